//go:build tools

package install

// The helm command, which TestInstallDoc builds to run docs/install.md's Helm steps; pinned
// here with the SDK.
import _ "helm.sh/helm/v4/cmd/helm"
