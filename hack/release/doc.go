// Package release holds the tests of the artifacts `make image` and `make release` build
// (make_test.go runs make and reads what it wrote). The builders are image (the manager's OCI
// image, without Docker) and plugin (the kubectl plugin's archives, checksums and krew
// manifest), run by cmd/release.
//
// It is a module of its own so that go-containerregistry stays out of the main module's go.mod.
package release
