//go:build tools

// Package krew pins the krew version the Makefile builds into bin/kubectl-krew and
// bin/validate-krew-manifest, which the release tests (hack/release) check the plugin's krew
// manifest and archives with. It is its own module: krew needs old Kubernetes modules.
package krew

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
