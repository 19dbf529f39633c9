// Package repo locates the repository checkout and the tool binaries `make tools` builds into
// bin/, for the demo and the e2e tests (which run from the repository root or from their
// package directory).
package repo
