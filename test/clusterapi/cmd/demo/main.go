// Command demo shows a Cluster API Machine under Cluster API's own controllers with the phase
// and lastOperation machinestatus derives next to Cluster API's view, step by step: created,
// provisioned, Node Ready, Node NotReady, failed by a MachineHealthCheck, Ready again, drained
// and deleted. Run it with `make demo-clusterapi` (about 3 minutes, most of it waiting for Cluster
// API's timers).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/machinestatus/machinestatus/test/clusterapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	steps, err := clusterapi.Run(ctx, clusterapi.Options{StateDir: ".clusterapi", Out: os.Stdout})
	if err != nil {
		return err
	}
	rows := make([]clusterapi.LifecycleRow, 0, len(steps))
	for _, s := range steps {
		rows = append(rows, s.LifecycleRow)
	}
	fmt.Printf("\nSide by side (docs/clusterapi.md records the same table):\n\n%s", clusterapi.RenderTable(rows))
	return nil
}
