package scale

import (
	"context"
	"testing"
	"time"
)

// TestScaleWritesN100 runs the scale harness with 100 Machines and checks the count properties
// (never times, on a shared machine): no status write while the fleet is steady and kwok
// heartbeats the Nodes, and no more status writes than the distinct statuses the Machines went
// through.
func TestScaleWritesN100(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, kwok and the manager")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{N: 100, Steady: 20 * time.Second, StateDir: t.TempDir(), MaxConcurrentReconciles: 4, Out: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", res.Table())
	if res.IdleWrites != 0 {
		t.Errorf("%d status writes in %s of steady state, want 0", res.IdleWrites, res.IdleWindow)
	}
	if res.StatusWrites > res.DistinctStatuses {
		t.Errorf("%d status writes for %d distinct statuses: more than one write per real change", res.StatusWrites, res.DistinctStatuses)
	}
	// Every Machine has at least a first status and Running, and each flip adds two: fewer
	// means the observer missed changes, and the write comparison above proves nothing.
	if low := 2*res.N + 2*res.Flipped; res.DistinctStatuses < low {
		t.Errorf("only %d distinct statuses for %d Machines and %d flips (at least %d): the observer missed changes", res.DistinctStatuses, res.N, res.Flipped, low)
	}
	if len(res.FlipLatencies) != 2*res.Flipped {
		t.Errorf("measured %d flip latencies, want %d", len(res.FlipLatencies), 2*res.Flipped)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// TestScaleClusterAPIWritesN30 runs the Cluster API mode's scale harness (RunClusterAPI) with 30
// Machines and checks its counts: every Machine converges with its annotation written, the
// steady rewrites Cluster API's controllers make cause reconciles but no annotation write, and
// converging took no more writes than the creation's few changes per Machine.
func TestScaleClusterAPIWritesN30(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and the manager")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := RunClusterAPI(ctx, Options{N: 30, Steady: 15 * time.Second, StateDir: t.TempDir(), MaxConcurrentReconciles: 4, Out: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", res.Table())
	if res.N != 30 {
		t.Errorf("measured %d Machines, want 30", res.N)
	}
	// Counts only: memory per Machine means little at N=30 (docs/benchmarks.md records N=1000).
	if res.Patches < res.N || res.Patches > 2*res.N {
		t.Errorf("%d annotation patches for %d Machines, want one or two per Machine (its creation's changes)", res.Patches, res.N)
	}
	if res.Rewrites < res.N || res.Reconciles == 0 {
		t.Errorf("%d status rewrites causing %d reconciles while steady: the idle-write count below proves nothing", res.Rewrites, res.Reconciles)
	}
	if res.IdleWrites != 0 {
		t.Errorf("%d annotation writes during %d status rewrites that changed neither phase nor lastOperation, want 0", res.IdleWrites, res.Rewrites)
	}
}
