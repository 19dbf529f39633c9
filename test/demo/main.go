// Command demo walks sample Machines through every phase, for real: it starts kube-apiserver and
// etcd (test/embedded), kwok as the kubelet of every Node, the machinestatus manager
// (bin/manager) and the simulated infrastructure provider (test/infra), then acts as a user and
// an infrastructure would, and after each step waits until the manager reports the expected
// phase and prints what kubectl shows.
//
// Run it with `make demo` (which builds the tools and bin/manager first). It ends by itself in
// about a minute, stops everything it started (also on failure, Ctrl-C or SIGTERM) and exits
// non-zero when a phase is not reached in time. Logs and the kubeconfig go to .demo/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

type options struct {
	stateDir    string
	manager     string
	timeout     time.Duration
	stepTimeout time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.stateDir, "state-dir", ".demo", "Directory (relative to the repository root) for the kubeconfig and the logs.")
	flag.StringVar(&o.manager, "manager", "bin/manager", "The manager binary (relative to the repository root), built by `make build`.")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "The demo fails when it has not finished after this long.")
	flag.DurationVar(&o.stepTimeout, "step-timeout", 30*time.Second, "How long a step waits for the phases it expects (the health-check step adds its timeout).")
	flag.Parse()

	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range sigs {
			fmt.Fprintf(os.Stderr, "\n%s: stopping everything the demo started...\n", sig)
			cancel(interruptedError{sig})
		}
	}()

	err := run(ctx, o)
	signal.Stop(sigs)
	cancel(nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo FAILED: %v\n", err)
		os.Exit(1)
	}
}

func run(parent context.Context, o options) error {
	start := time.Now()
	ctx, cancelTimeout := context.WithTimeoutCause(parent, o.timeout, fmt.Errorf("the demo did not finish within %s", o.timeout))
	defer cancelTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	e, err := startEnv(ctx, o)
	if err != nil {
		return err
	}
	defer e.stop()
	go e.watch(ctx, cancel)

	if err := e.runScenario(ctx); err != nil {
		if errors.As(err, new(interruptedError)) {
			return err
		}
		return fmt.Errorf("%w\n%s", err, e.logHint())
	}
	// The demo is normal operation: the manager must have logged nothing at ERROR.
	lines, err := managerlog.Unexpected(e.Manager.LogPath)
	if err != nil {
		return err
	}
	if len(lines) > 0 {
		return fmt.Errorf("the manager logged %d ERROR lines during normal operation (%s), e.g.:\n%s",
			len(lines), e.Rel(e.Manager.LogPath), strings.Join(lines[:min(len(lines), 5)], "\n"))
	}
	fmt.Printf("\nThe demo finished in %s.\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// interruptedError is the cause of the demo's cancellation by a signal.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string { return "interrupted by " + e.sig.String() }
