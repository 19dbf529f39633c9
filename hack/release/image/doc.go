// Package image builds the manager's multi-platform OCI image from prebuilt static binaries,
// without Docker: one layer holding the binary (and /etc/passwd naming its non-root user) on
// an empty base, no shell, written as an OCI image layout and as a tar of that layout (what
// `skopeo copy oci-archive:…`, `crane push`, `oras cp --from-oci-layout` or `docker load` take).
package image
