//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

// conflictRejects is how many 409s each status write meets before one goes through.
const conflictRejects = 2

// TestWriteConflictsRetried puts a proxy between the manager and the API server that answers
// 409 Conflict to the first two of every three status writes of each Machine, and walks the
// Machines through a series of input changes, each of which must be reflected before the next:
// no update is dropped, every 409 is followed by a retry (the controller's rate-limited requeue:
// exponential backoff per Machine), and exactly the writes the proxy let through reach the API
// server.
func TestWriteConflictsRetried(t *testing.T) {
	fig := figures.section(t, "conflicts")
	ctx := t.Context()
	const n = 8
	fx := newFixture(t, "conflicts", n)
	px := newConflictProxy(t, env.CP.Config, conflictRejects)
	fx.allowErrors(managerlog.Allowed{Contains: "injected by the faults test", Why: "the test's proxy answers status writes with 409 Conflict; each is a reconcile error, retried"})
	w0, err := apiStatusWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mgr := fx.startManager(px.kubeconfig)

	steps := []inputStep{
		{"created", nil, healthy},
		{"Node NotReady", func(ctx context.Context, name string) error { return setNotReady(ctx, name, true) }, notReady},
		{"Node Ready again", func(ctx context.Context, name string) error { return setNotReady(ctx, name, false) }, healthy},
		{"Node cordoned", func(ctx context.Context, name string) error { return setCordoned(ctx, name, true) }, cordoned},
		{"Node uncordoned", func(ctx context.Context, name string) error { return setCordoned(ctx, name, false) }, healthy},
		{"kubelet upgraded", func(ctx context.Context, name string) error { return setKubelet(ctx, fx.name, name, "v1.36.4") }, upgrading},
		{"spec.version follows", func(ctx context.Context, name string) error { return setWantedVersion(ctx, fx.name, name, "v1.36.4") }, healthy},
	}
	reflected := 0
	for _, s := range steps {
		if s.apply != nil {
			for _, name := range fx.names {
				if err := s.apply(ctx, name); err != nil {
					t.Fatal(err)
				}
			}
		}
		fx.waitStates(2*time.Minute, fx.all(s.want))
		reflected += n
		t.Logf("step %q reflected on all %d Machines", s.what, n)
	}
	requireAlive(t, mgr)
	time.Sleep(2 * time.Second) // let a last retry, if any, land before counting
	f := px.figures()
	w1, err := apiStatusWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := mgr.metric(ctx, "controller_runtime_reconcile_errors_total", map[string]string{"controller": "machine"})
	if err != nil {
		t.Fatal(err)
	}
	retries, err := mgr.metric(ctx, "workqueue_retries_total", map[string]string{"name": "machine"})
	if err != nil {
		t.Fatal(err)
	}

	if f.injected == 0 {
		t.Fatal("the proxy injected no 409: the test proves nothing")
	}
	if f.injected != conflictRejects*f.passed {
		t.Errorf("%d 409s for %d writes let through: some write was not retried until it landed (want %d 409s)", f.injected, f.passed, conflictRejects*f.passed)
	}
	if f.unanswered != 0 {
		t.Errorf("%d Machines' last write was a 409 that was never retried", f.unanswered)
	}
	if got := w1 - w0; got != f.passed {
		t.Errorf("the API server served %d status writes, the proxy let %d through", got, f.passed)
	}
	if int(errs) < f.injected || int(retries) < f.injected {
		t.Errorf("the manager counted %.0f reconcile errors and %.0f rate-limited retries for %d 409s", errs, retries, f.injected)
	}

	fig("Machines × input changes", "%d × %d (%s)", n, len(steps), stepNames(steps))
	fig("updates reflected / lost", "%d / %d", reflected, len(steps)*n-reflected)
	fig("409 Conflict injected", "%d (the first %d of every %d status writes of each Machine)", f.injected, conflictRejects, conflictRejects+1)
	fig("status writes let through = served by the API server", "%d = %d", f.passed, w1-w0)
	fig("manager: reconcile errors / rate-limited retries", "%.0f / %.0f", errs, retries)
	for i, d := range f.retryDelays {
		if len(d) == 0 {
			continue
		}
		fig(fmt.Sprintf("delay before the retry after a %s 409 (median / max)", ordinal(i+1)), "%s / %s over %d retries", median(d), slices.Max(d).Round(time.Millisecond), len(d))
	}
	requireAlive(t, mgr)
}

// inputStep is one change of every Machine's inputs (none for the first) and the state it
// leads to.
type inputStep struct {
	what  string
	apply func(ctx context.Context, name string) error
	want  inputState
}

func stepNames(steps []inputStep) string {
	var names []string
	for _, s := range steps {
		names = append(names, s.what)
	}
	return strings.Join(names, " → ")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond)
}

func ordinal(i int) string {
	switch i {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", i)
}
