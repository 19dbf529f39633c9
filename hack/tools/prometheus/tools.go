//go:build tools

// Package prometheus pins the Prometheus version the Makefile builds into bin/promtool and
// bin/prometheus. It is its own module so that Prometheus's dependencies (its service
// discovery's cloud SDKs, its own client-go) never move the versions pinned in hack/tools/go.mod.
package prometheus

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
