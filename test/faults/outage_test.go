//go:build faults

package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

// outage is how long the API server stays down.
const outage = 30 * time.Second

// foreignType is a condition type that another controller (the test, field manager
// foreignOwner) writes on the Machines; the manager must keep it.
const (
	foreignType  = "faults.example.com/Audited"
	foreignOwner = "faults-test"
)

// TestAPIServerOutage stops kube-apiserver for 30 s in the middle of a burst of input changes
// and keeps changing inputs the moment it is back. Every Machine must end with the status its
// final inputs call for, the very status a freshly started manager computes (it writes nothing
// and changes no resourceVersion); the manager must not exit; and the condition another
// controller wrote on every Machine must still be there, unchanged.
//
// A second manager, with --leader-elect as deployed, runs for four other Machines: it may exit
// when it cannot renew its Lease (controller-runtime's rule, so that two leaders never act at
// once); it is then started again, as its Deployment would, and its Machines must end right too.
func TestAPIServerOutage(t *testing.T) {
	fig := figures.section(t, "outage")
	ctx := t.Context()
	const n = 16
	fx := newFixture(t, "outage", n)
	le := newFixture(t, "outage-le", 4)
	ensureNamespace(t, leaseNamespace)
	leArgs := []string{"--leader-elect", "--leader-election-namespace=" + leaseNamespace, "--leader-election-id=faults-outage"}
	outageErrors := []managerlog.Allowed{
		{Contains: "connection refused", Why: "the test stops the API server for 30 s: every request fails, and an operator must act on that"},
		{Contains: "Failed to watch", Why: "the informers' lists fail while the API server is stopped"},
		{Contains: "error retrieving resource lock", Why: "the leader cannot renew its Lease while the API server is stopped"},
		{Contains: "Error retrieving lease lock", Why: "the leader cannot renew its Lease while the API server is stopped"},
		{Contains: "leader election lost", Why: "the leader-elected manager exits when it cannot renew its Lease (controller-runtime's rule)"},
		{Contains: "http2: client connection lost", Why: "open connections break when the API server stops"},
		{Contains: "EOF", Why: "open requests break when the API server stops"},
		{Contains: "context deadline exceeded", Why: "requests time out while the API server is stopped"},
	}
	fx.allowErrors(outageErrors...)
	le.allowErrors(outageErrors...)
	mgr := fx.startManager("")
	leMgr := le.startManager("", leArgs...)
	leExited := make(chan time.Time, 1)
	go func(p *manager) { <-p.Done(); leExited <- time.Now() }(leMgr)
	fx.waitStates(2*time.Minute, fx.all(healthy))
	le.waitStates(2*time.Minute, le.all(healthy))

	foreign := map[string]metav1.Condition{}
	for _, name := range fx.names {
		foreign[name] = applyForeignCondition(t, ctx, fx.name, name)
	}

	// The final inputs: a quarter of the Machines each healthy, NotReady, cordoned, upgrading.
	final := map[string]inputState{}
	for i, name := range fx.names {
		final[name] = inputState(i % 4)
	}
	leFinal := map[string]inputState{}
	for i, name := range le.names {
		leFinal[name] = inputState(i % 4)
	}

	// The burst: every Node goes NotReady, every other one is cordoned; the API server stops
	// while kwok, the provider and the manager are busy with it.
	for i, name := range append(slices.Clone(fx.names), le.names...) {
		if err := setNotReady(ctx, name, true); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := setCordoned(ctx, name, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	time.Sleep(time.Second)
	stopCalled := time.Now()
	if err := env.CP.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	if _, err := apiStatusWrites(ctx); err == nil {
		t.Fatal("the API server still answers after StopAPIServer")
	}
	time.Sleep(outage)
	requireAlive(t, mgr)
	startCalled := time.Now()
	if err := env.CP.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()

	// Right away, the final inputs (retried while the API server finishes starting).
	for _, f := range []struct {
		fx    *fixture
		final map[string]inputState
	}{{fx, final}, {le, leFinal}} {
		for _, name := range f.fx.names {
			if err := retryFor(ctx, "set the final inputs of "+name, func(ctx context.Context) error {
				return applyInputs(ctx, f.fx.name, name, f.final[name])
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	changed := time.Now()
	fx.waitStates(3*time.Minute, final)
	converged := time.Now()
	requireAlive(t, mgr)

	// The leader-elected manager: exited for a lost Lease, or still running.
	leOutcome := "kept running"
	if !leMgr.alive() {
		if !strings.Contains(leMgr.Tail(40), "leader election lost") {
			t.Fatalf("the leader-elected manager exited for another reason than a lost Lease: %v\n%s", leMgr.ExitError(), leMgr.Tail(20))
		}
		leOutcome = fmt.Sprintf("exited (leader election lost) %.1f s after the API server stopped; started again", (<-leExited).Sub(stopped).Seconds())
		leMgr = le.startManager("", leArgs...)
	}
	le.waitStates(3*time.Minute, leFinal)
	requireAlive(t, leMgr)
	leMgr.Stop(managerStopGrace)
	writesSinceBack, err := apiStatusWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}

	ms, err := fx.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, name := range fx.names {
		c := conditions.Get(ms[name], foreignType)
		switch {
		case c == nil:
			t.Errorf("%s lost the %s condition written by %s", name, foreignType, foreignOwner)
		case *c != foreign[name]:
			t.Errorf("%s: the %s condition changed from %+v to %+v", name, foreignType, foreign[name], *c)
		default:
			kept++
		}
	}

	errorLines := countErrorLines(t, mgr.LogPath)
	mgr.Stop(managerStopGrace)
	if exit := (*exec.ExitError)(nil); errors.As(mgr.ExitError(), &exit) {
		t.Errorf("the manager did not stop cleanly on SIGTERM after the outage: %v", exit)
	}
	writes, diffs := fx.freshManagerCheck(ctx)
	if writes != 0 || len(diffs) != 0 {
		t.Errorf("a freshly started manager wrote %d statuses; the stored statuses were not what it computes:\n%s", writes, strings.Join(diffs, "\n"))
	}

	fig("Machines", "%d (4 each healthy, Node NotReady, cordoned, kubelet upgraded)", n)
	fig("kube-apiserver process gone (exited → started again)", "%.1f s", startCalled.Sub(stopped).Seconds())
	fig("API server unreachable (SIGTERM → healthy again)", "%.1f s (stopping took %.1f s, starting %.1f s)", back.Sub(stopCalled).Seconds(), stopped.Sub(stopCalled).Seconds(), back.Sub(startCalled).Seconds())
	fig("inputs changed after the API server was back", "%d Machines within %.1f s", n, changed.Sub(back).Seconds())
	fig("API server back → every Machine right", "%.1f s", converged.Sub(back).Seconds())
	fig("Machines with the right phase and conditions", "%d of %d", n, n)
	fig("status writes after the API server was back (both managers, 20 Machines)", "%d", writesSinceBack)
	fig("manager exits / restarts during the outage", "0 / 0 (same pid %d throughout)", mgr.Pid())
	fig("manager with --leader-elect (4 more Machines, right at the end)", "%s", leOutcome)
	fig("error lines the manager logged", "%d", errorLines)
	fig("foreign condition kept unchanged", "%d of %d Machines", kept, n)
	fig("writes / changed Machines by a freshly started manager", "%d / %d", writes, len(diffs))
}

// applyForeignCondition sets condition foreignType on Machine ns/name with server-side apply as
// field manager foreignOwner, as another controller would, and returns it as stored.
func applyForeignCondition(t *testing.T, ctx context.Context, ns, name string) metav1.Condition {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "Machine",
		"metadata":   map[string]any{"namespace": ns, "name": name},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": foreignType, "status": "True", "reason": "Audited",
			"message":            "written by " + foreignOwner,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}},
	}}
	if err := env.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(foreignOwner)); err != nil {
		t.Fatalf("cannot apply %s on %s: %v", foreignType, name, err)
	}
	m := &v1alpha1.Machine{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
		t.Fatal(err)
	}
	c := conditions.Get(m, foreignType)
	if c == nil {
		t.Fatalf("%s has no %s after applying it", name, foreignType)
	}
	return *c
}

// applyInputs sets Machine ns/name's Node and SimMachine to state s.
func applyInputs(ctx context.Context, ns, name string, s inputState) error {
	if err := setNotReady(ctx, name, s == notReady); err != nil {
		return err
	}
	if err := setCordoned(ctx, name, s == cordoned); err != nil {
		return err
	}
	v := kubeletVersion
	if s == upgrading {
		v = "v1.36.4"
	}
	return setKubelet(ctx, ns, name, v)
}

// countErrorLines counts the lines the manager logged at error level.
func countErrorLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(fmt.Errorf("cannot read the manager's log: %w", err))
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "\tERROR\t") || strings.Contains(line, `"level":"error"`) {
			n++
		}
	}
	return n
}
