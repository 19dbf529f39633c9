package clusterapi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/machinestatus/machinestatus/test/internal/docblock"
)

// TestClusterAPI runs our manager beside Cluster API's real controllers on one API server and,
// side by side: the lifecycle of a standalone worker Machine, the flows of MachineDeployments
// (scale, rollout, remediation, deletion hooks, Nodes that never register, deletions with no
// finalizer to hold them) and the CLI scenario. At every settled step our side must be what the
// step wants, and a different phase from Cluster API's one docs/clusterapi.md justifies. Then,
// over the whole run: no ERROR line in our manager's log; no lost event; from the API server's
// audit log, no identical patch, at most one patch per (type, state) change, at most
// maxWriteShare of Cluster API's effective Machine writes, and no more Events than Cluster
// API's controllers. The tables are docs/clusterapi.md's (CLUSTERAPI_WRITE_DOCS=1 writes them).
func TestClusterAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	h, err := startHarness(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.stop()
	if err := h.createClusters(ctx); err != nil {
		t.Fatalf("%v\n%s", err, h.fleet.LogHint())
	}
	t.Logf("harness and Clusters ready in %s", time.Since(start).Round(time.Second))

	var mu sync.Mutex
	blocks := map[string]string{}
	record := func(name, content string) {
		mu.Lock()
		defer mu.Unlock()
		blocks[name] = content
	}
	// Side by side, each in goroutines of its own (they mostly wait for Cluster API's timers);
	// each one's verdict is a subtest once all are done.
	type outcome struct {
		name     string
		problems []string
		err      error
	}
	runs := []func() outcome{
		func() outcome {
			o := outcome{name: "lifecycle"}
			steps, err := h.runLifecycle(ctx, prefixWriter{t, "lifecycle: "})
			o.err = err
			rows := make([]LifecycleRow, 0, len(steps))
			for i, s := range steps {
				if m := s.Mismatch(); m != "" {
					o.problems = append(o.problems, fmt.Sprintf("step %d (%s): %s", i+1, s.Step, m))
				}
				rows = append(rows, s.LifecycleRow)
			}
			if err == nil {
				record("clusterapi-lifecycle", RenderTable(rows))
			}
			return o
		},
		func() outcome {
			o := outcome{name: "CLI names the troubled pools"}
			var outs []cliOutput
			outs, o.problems, o.err = h.runCLIScenario(ctx)
			for _, c := range outs {
				t.Logf("$ %s\n%s", c.command, c.stdout)
			}
			return o
		},
	}
	for _, f := range flows() {
		runs = append(runs, func() outcome {
			res, err := f.run(ctx, h, prefixWriter{t, ""})
			if err == nil {
				record("clusterapi-flow-"+f.name, renderFlowTable(res.rows))
			}
			return outcome{name: "flow " + f.name, problems: res.mismatches, err: err}
		})
	}
	outcomes := make([]outcome, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = run()
		}()
	}
	wg.Wait()
	for _, o := range outcomes {
		t.Run(o.name, func(t *testing.T) {
			for _, p := range o.problems {
				t.Error(p)
			}
			if o.err != nil {
				t.Fatalf("%v\n%s", o.err, h.fleet.LogHint())
			}
		})
	}
	t.Logf("side by side done in %s", time.Since(start).Round(time.Second))

	t.Run("no ERROR line", func(t *testing.T) {
		if err := h.checkManager(); err != nil {
			t.Error(err)
		}
	})
	audit, err := readAuditLog(h.auditLog)
	if err != nil {
		t.Fatal(err)
	}
	run := accountRun(audit, poolLabels(audit))
	record("clusterapi-writes", run.renderWritesTable())
	t.Logf("writes of the run:\n%s", run.renderWritesTable())
	t.Run("writes", func(t *testing.T) {
		for _, f := range run.failures() {
			t.Error(f)
		}
	})
	t.Run("events", func(t *testing.T) {
		var lost, unwanted []string
		// Our manager records events asynchronously: give the last ones time to arrive.
		err := wait.PollUntilContextTimeout(ctx, time.Second, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			var err error
			lost, unwanted, err = h.eventFailures(ctx, run)
			return len(lost) == 0, err
		})
		if err != nil && len(lost) == 0 {
			t.Fatal(err)
		}
		for _, f := range append(lost, unwanted...) {
			t.Error(f)
		}
	})
	checkDocs(t, blocks)
}

// checkDocs writes the recorded blocks into docs/clusterapi.md (CLUSTERAPI_WRITE_DOCS=1) or
// checks them against it: each block as it is, the writes table by its shape (its numbers
// change from run to run).
func checkDocs(t *testing.T, blocks map[string]string) {
	t.Helper()
	for name, content := range blocks {
		var normalize func(string) string
		if name == "clusterapi-writes" {
			normalize = writesTableShape
		}
		docblock.Sync(t, docsPath, name, content, writeDocsEnv, normalize)
	}
}

// prefixWriter writes progress lines to the test's log, each after prefix.
type prefixWriter struct {
	t      *testing.T
	prefix string
}

func (w prefixWriter) Write(p []byte) (int, error) {
	w.t.Log(w.prefix + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
