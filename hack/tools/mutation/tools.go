//go:build tools

// Package mutation pins the gremlins version the Makefile builds into
// bin/gremlins for make mutation. It is its own module so that gremlins'
// dependencies never move the versions pinned in hack/tools/go.mod.
package mutation

import (
	_ "github.com/go-gremlins/gremlins/cmd/gremlins"
)
