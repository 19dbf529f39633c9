// Command machinestatus reads Machines (machinestatus.io and Cluster API) from the cluster of
// the current kubeconfig and prints their phase, lastOperation and conditions, problems first:
// `machinestatus describe [TYPE[/NAME]]`. Installed on the PATH as kubectl-machinestatus, it is
// the kubectl plugin `kubectl machinestatus describe`. The logic lives in internal/describe.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/machinestatus/machinestatus/internal/describe"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := describe.Main(ctx, os.Args[0], os.Args[1:],
		genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	stop()
	os.Exit(code)
}
