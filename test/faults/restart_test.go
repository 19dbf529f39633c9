//go:build faults

package faults

import (
	"strings"
	"testing"
	"time"
)

// TestManagerKilledAndRestarted kills the manager with SIGKILL once every Machine has
// converged and starts it again: the restarted manager reconciles every Machine, writes no
// status (the API server's apiserver_request_total) and changes no Machine (every status, with
// its lastTransitionTimes, and every resourceVersion is the same); it still reacts to a change.
func TestManagerKilledAndRestarted(t *testing.T) {
	fig := figures.section(t, "restart")
	ctx := t.Context()
	const n = 16
	fx := newFixture(t, "restart", n)
	first := fx.startManager("")
	fx.waitStates(2*time.Minute, fx.all(healthy))
	// Four kinds of status, not only Running.
	states := map[string]inputState{}
	for i, name := range fx.names {
		states[name] = inputState(i % 4)
		if err := applyInputs(ctx, fx.name, name, states[name]); err != nil {
			t.Fatal(err)
		}
	}
	fx.waitStates(2*time.Minute, states)
	time.Sleep(2 * time.Second) // nothing is in flight any more

	before := fx.snapshot(ctx)
	w0, err := apiStatusWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first.kill()
	second := fx.startManager("")
	fx.waitReconciled(second, n)
	time.Sleep(2 * time.Second)
	w1, err := apiStatusWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reconciled, err := second.reconciles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	diffs := before.diff(fx.snapshot(ctx))
	if w1 != w0 {
		t.Errorf("the restarted manager sent %d status writes for %d unchanged Machines, want 0", w1-w0, n)
	}
	if len(diffs) > 0 {
		t.Errorf("the restart changed Machines:\n%s", strings.Join(diffs, "\n"))
	}

	// The restarted manager is not idle for want of working: it reflects a new change.
	changed := fx.names[0] // healthy until now
	if err := setCordoned(ctx, changed, true); err != nil {
		t.Fatal(err)
	}
	states[changed] = cordoned
	fx.waitStates(2*time.Minute, states)
	requireAlive(t, second)

	fig("Machines", "%d (4 each Running, Unknown, Draining, Updating)", n)
	fig("reconciles by the restarted manager", "%d", reconciled)
	fig("status writes after the restart", "%d", w1-w0)
	fig("Machines whose status or resourceVersion changed", "%d of %d", len(diffs), n)
	fig("a change after the restart reflected", "yes (%s cordoned → Draining)", changed)
}
