package main

import (
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/machinestatus/machinestatus/internal/version"
)

// The build-info gauge is served with the manager's other metrics.
func init() { metrics.Registry.MustRegister(version.NewBuildInfoCollector()) }

// printVersion writes the version line to w and reports true when args (without the program
// name) are exactly "version": `manager version` prints and exits instead of running.
func printVersion(args []string, w io.Writer) bool {
	if len(args) != 1 || args[0] != "version" {
		return false
	}
	fmt.Fprintln(w, version.Get().String("manager"))
	return true
}
