// Package plugin packages the cross-compiled kubectl-machinestatus binaries for a release: one
// .tar.gz per platform holding the binary and LICENSE, checksums.txt (sha256sum's format) and
// the krew manifest machinestatus.yaml, whose URIs point at the release's download URL.
package plugin
