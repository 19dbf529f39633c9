//go:build tools

// Package lint pins the golangci-lint version the Makefile builds into
// bin/golangci-lint. It is its own module so that golangci-lint's
// dependencies never move the versions pinned in hack/tools/go.mod.
package lint

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
)
