package main

import (
	"context"
	"os"

	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// env is everything the demo started (test/internal/fleet) and the demo's options.
type env struct {
	*fleet.Fleet
	o options
}

// startEnv starts the control plane, kwok, the manager and the simulated provider, printing
// one line per component. On error it stops what it started.
func startEnv(ctx context.Context, o options) (*env, error) {
	banner("Setup")
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir:    o.stateDir,
		Manager:     o.manager,
		ManagerArgs: []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"},
		Out:         os.Stdout,
	})
	if err != nil {
		return nil, err
	}
	return &env{Fleet: f, o: o}, nil
}

func (e *env) stop()                                                     { e.Fleet.Stop() }
func (e *env) watch(ctx context.Context, cancel context.CancelCauseFunc) { e.Fleet.Watch(ctx, cancel) }
func (e *env) logHint() string                                           { return e.Fleet.LogHint() }
