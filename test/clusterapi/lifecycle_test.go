package clusterapi

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLifecycleAgainstClusterAPI drives a Cluster API Machine through a real lifecycle under
// Cluster API's own controllers (Run) and checks, at every settled step, that our phase agrees
// with Cluster API's or differs as docs/clusterapi.md justifies (allowedDifferences), and that
// our lastOperation is the step's. The recorded table is docs/clusterapi.md's
// (CLUSTERAPI_WRITE_DOCS=1 writes it).
func TestLifecycleAgainstClusterAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	steps, err := Run(ctx, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(lifecycle()) {
		t.Fatalf("%d steps recorded, want %d", len(steps), len(lifecycle()))
	}
	rows := make([]Row, 0, len(steps))
	for i, s := range steps {
		t.Logf("step %d: %s\n  Cluster API: %s | %s\n  ours: %s | %s", i+1, s.Step, s.ClusterAPIPhase, s.Conditions, s.Phase, describeOp(s.Operation))
		if !s.Justified {
			t.Errorf("step %d (%s): our phase %s, Cluster API's %s: a difference docs/clusterapi.md does not justify", i+1, s.Step, s.Phase, s.ClusterAPIPhase)
		}
		if s.Operation == nil || s.Operation.Type != s.WantType || s.Operation.State != s.WantState {
			t.Errorf("step %d (%s): our lastOperation %s, want %s %s", i+1, s.Step, describeOp(s.Operation), s.WantType, s.WantState)
		}
		rows = append(rows, s.Row)
	}

	table := RenderTable(rows)
	if os.Getenv("CLUSTERAPI_WRITE_DOCS") == "1" {
		if err := writeDocsTable(docsPath, table); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the recorded table into %s", docsPath)
		return
	}
	committed, err := readDocsTable(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(committed, table); diff != "" {
		t.Errorf("docs/clusterapi.md's recorded table differs from this run (-committed +recorded); if the change is right, run CLUSTERAPI_WRITE_DOCS=1 make test-clusterapi:\n%s", diff)
	}
}
