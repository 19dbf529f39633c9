package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// bothAPIs is the manager flag that reconciles machinestatus and Cluster API Machines.
const bothAPIs = "--machine-apis=machinestatus.io,cluster.x-k8s.io"

// startBothAPIsFleet starts a control plane serving both Machine CRDs, kwok and the simulated
// provider, without a manager (the test starts its own with startManager); the manager user
// holds the RBAC of both APIs.
func startBothAPIsFleet(t *testing.T, ctx context.Context, withClusterAPI bool) (*fleet.Fleet, *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	crd, err := clusterapicrd.MachineCRD(root)
	if err != nil {
		t.Fatal(err)
	}
	o := fleet.Options{
		StateDir: t.TempDir(), Manager: "bin/manager", NoManager: true, BothMachineAPIs: true,
		AddToScheme: []func(*runtime.Scheme) error{clusterv1.AddToScheme, apiextensionsv1.AddToScheme},
	}
	if withClusterAPI {
		o.CRDs = []*apiextensionsv1.CustomResourceDefinition{crd.DeepCopy()}
	}
	f, err := fleet.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	if err := f.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return f, crd
}

// manager is one manager process and its plain-HTTP metrics endpoint.
type manager struct {
	*proc.Process
	url string
}

// startManager starts a manager process named name for both Machine APIs with leader election,
// metrics over plain HTTP, and args, and waits until it leads.
func startManager(t *testing.T, f *fleet.Fleet, name string, args ...string) *manager {
	t.Helper()
	port, err := host.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.StartManager(name, "", append([]string{bothAPIs, "--leader-elect",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port), "--metrics-secure=false",
		"--health-probe-bind-address=0", "--clusterapi-check-interval=1s"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	m := &manager{Process: p, url: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)}
	t.Cleanup(func() {
		m.Stop(harness.ManagerStopGrace)
		if t.Failed() {
			t.Logf("last lines of %s:\n%s", m.LogPath, m.Tail(20))
		}
	})
	harness.Wait(t, 2*time.Minute, name+" to lead", func(ctx context.Context) (bool, string) {
		select {
		case <-m.Done():
			t.Fatalf("%s exited: %v\n%s", name, m.ExitError(), m.Tail(20))
		default:
		}
		fams, err := metricstest.Fetch(ctx, nil, m.url, "")
		if err != nil {
			return false, err.Error()
		}
		v := fams.Sum("leader_election_master_status", nil)
		return v == 1, fmt.Sprintf("leader_election_master_status = %v", v)
	})
	return m
}

// waitStates waits until the manager's machinestatus_machine_info reports exactly want (one
// series per Machine) and its duration histogram counts and result counters are exactly
// counts and results, and returns that scrape; it fails at once when a count is above its
// want (counts never decrease).
func (m *manager) waitStates(t *testing.T, what string, want map[string]machineState, counts map[string]uint64, results map[string]float64) metricstest.Families {
	t.Helper()
	var fams metricstest.Families
	harness.Wait(t, 2*time.Minute, what, func(ctx context.Context) (bool, string) {
		var err error
		if fams, err = metricstest.Fetch(ctx, nil, m.url, ""); err != nil {
			return false, err.Error()
		}
		if d := diffStates(want, infoStates(fams)); d != "" {
			return false, d
		}
		// Counts only grow: one above what is wanted is an operation observed twice.
		got, gotResults := durationCounts(fams), resultCounts(fams)
		for k, n := range got {
			if n > counts[k] {
				t.Fatalf("%s: duration counts %v, want %v: an operation observed more than once", what, got, counts)
			}
		}
		for k, n := range gotResults {
			if n > results[k] {
				t.Fatalf("%s: results %v, want %v: a result counted more than once", what, gotResults, results)
			}
		}
		if !maps.Equal(got, counts) || !maps.Equal(gotResults, results) {
			return false, fmt.Sprintf("duration counts %v, want %v; results %v, want %v", got, counts, gotResults, results)
		}
		return true, ""
	})
	return fams
}

// TestDurationsAcrossRestart: the operation duration histogram observes every operation exactly
// once across a restart of the manager, for both Machine APIs, with the manager as its own
// process on a real API server (kwok Nodes and the simulated provider for machinestatus
// Machines; the test writes Cluster API Machines' status as Cluster API would). The first
// manager sees, for each API:
//   - a Create that ends and a Delete whose Machine another controller's finalizer keeps after
//     its deletion completed (Cluster API) — observed by the first manager only;
//   - a Create still in progress and a Delete held by a finalizer — ended only once the second
//     manager runs, which observes each once, with its duration from the object's timestamps
//     (the Create's spans the restart).
//
// Stopped (SIGTERM) as soon as it has observed the last of those ends, it is replaced by a second
// process, which must neither observe the ended operations again nor miss the ones that end
// under it: per process and over both, the histogram's counts and the result counters are
// pinned.
func TestDurationsAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, kwok and two managers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	f, _ := startBothAPIsFleet(t, ctx, true)
	o := ops{t: t, c: f.Client}
	const (
		ms, capi       = "machinestatus.io", "cluster.x-k8s.io"
		ns             = "restart"
		cluster, pool  = "prod", "workers"
		capiNS, mdPool = "restart-capi", "md-0"
	)
	for _, n := range []string{ns, capiNS} {
		if err := f.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			t.Fatal(err)
		}
	}
	key := func(group, namespace, name string) string { return fmt.Sprintf("%s %s/%s", group, namespace, name) }
	const (
		running      = v1alpha1.MachinePhaseRunning
		provisioning = v1alpha1.MachinePhaseProvisioning
		deleting     = v1alpha1.MachinePhaseDeleting
		deleted      = v1alpha1.MachinePhaseDeleted
		create       = v1alpha1.MachineOperationCreate
		del          = v1alpha1.MachineOperationDelete
		processing   = v1alpha1.MachineOperationStateProcessing
		successful   = v1alpha1.MachineOperationStateSuccessful
	)

	m1 := startManager(t, f, "manager-1")

	// machinestatus Machines, each seen creating first (its infrastructure provisions only when
	// the test says so): "done" ends its Create; "creating" is still being created at the
	// restart; "deleting" ends its Create, then is deleted while another controller's finalizer
	// keeps it.
	for _, name := range []string{"done", "creating"} {
		o.msMachine(ns, name, cluster, pool, sim(86400), nil)
	}
	o.msMachine(ns, "deleting", cluster, pool, sim(86400), func(m *v1alpha1.Machine) { m.Finalizers = []string{keepFinalizer} })
	// Cluster API Machines: "capi-done" ends its Create; "capi-creating" is still being created
	// at the restart; "capi-deleting" ends its Create, then its deletion starts; "capi-kept" ends
	// its Create and its deletion, kept by another controller's finalizer.
	for _, name := range []string{"capi-done", "capi-creating", "capi-deleting"} {
		o.capiMachine(capiNS, name, cluster, mdPool)
	}
	o.capiMachine(capiNS, "capi-kept", cluster, mdPool, keepFinalizer)
	want := map[string]machineState{}
	for _, name := range []string{"done", "creating", "deleting"} {
		want[key(ms, ns, name)] = state(provisioning, create, processing)
	}
	for _, name := range []string{"capi-done", "capi-creating", "capi-deleting", "capi-kept"} {
		want[key(capi, capiNS, name)] = state(provisioning, create, processing)
	}
	m1.waitStates(t, "manager-1 to see every Machine creating", want, map[string]uint64{}, map[string]float64{})

	for _, name := range []string{"done", "deleting"} {
		o.patch(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, `{"spec":{"provisionAfterSeconds":0}}`, false)
		want[key(ms, ns, name)] = state(running, create, successful)
	}
	for _, name := range []string{"capi-done", "capi-deleting", "capi-kept"} {
		o.capiStatus(capiNS, name, capiRunning(name))
		want[key(capi, capiNS, name)] = state(running, create, successful) + " up_to_date=true"
	}
	m1.waitStates(t, "manager-1 to see five Creates end", want,
		map[string]uint64{ms + " prod/workers Create Successful": 2, capi + " prod/md-0 Create Successful": 3},
		map[string]float64{ms + " Create Successful": 2, capi + " Create Successful": 3})

	// Deletions: "deleting" and "capi-deleting" start theirs, "capi-kept" too, then completes it
	// (Cluster API removes its finalizer, the other one stays).
	o.delete(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deleting"}})
	for _, name := range []string{"capi-deleting", "capi-kept"} {
		o.delete(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: capiNS, Name: name}})
		o.capiStatus(capiNS, name, capiDeleting(clusterv1.MachineDeletingDrainingNodeReason))
		want[key(capi, capiNS, name)] = state(deleting, del, processing) + " up_to_date=true"
	}
	want[key(ms, ns, "deleting")] = state(deleting, del, processing)
	m1.waitStates(t, "manager-1 to see three deletions start", want,
		map[string]uint64{ms + " prod/workers Create Successful": 2, capi + " prod/md-0 Create Successful": 3},
		map[string]float64{ms + " Create Successful": 2, capi + " Create Successful": 3})
	// Cluster API is done with "capi-kept": it removes its finalizer (another controller's
	// stays) and reports the deletion completed. manager-1 observes that end, and is stopped at
	// once: the second manager starts from the annotation manager-1 wrote for the deletion
	// in progress, or from its end if manager-1 kept it before it stopped.
	waitAnnotation(t, f.Client, capiNS, "capi-kept", del, processing)
	o.patch(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: capiNS, Name: "capi-kept"}},
		`{"metadata":{"finalizers":["`+keepFinalizer+`"]}}`, false)
	o.capiStatus(capiNS, "capi-kept", capiDeleting(clusterv1.MachineDeletingDeletionCompletedReason))
	want[key(capi, capiNS, "capi-kept")] = state(deleted, del, successful) + " up_to_date=true"
	before := m1.waitStates(t, "manager-1 to see a deletion complete", want,
		map[string]uint64{ms + " prod/workers Create Successful": 2, capi + " prod/md-0 Create Successful": 3,
			capi + " prod/md-0 Delete Successful": 1},
		map[string]float64{ms + " Create Successful": 2, capi + " Create Successful": 3, capi + " Delete Successful": 1})

	m1.Stop(harness.ManagerStopGrace)
	restarted := time.Now()
	if err := m1.ExitError(); errors.Unwrap(err) != nil { // wrapped: a non-zero exit
		t.Errorf("manager-1 did not exit cleanly on SIGTERM: %v", err)
	}
	m2 := startManager(t, f, "manager-2")
	m2.waitStates(t, "manager-2 to see every Machine, observing nothing", want, map[string]uint64{}, map[string]float64{})

	// The operations in progress end under manager-2.
	o.patch(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creating"}},
		`{"spec":{"provisionAfterSeconds":0}}`, false)
	o.patch(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deleting"}}, `{"metadata":{"finalizers":null}}`, false)
	o.capiStatus(capiNS, "capi-creating", capiRunning("capi-creating"))
	o.capiStatus(capiNS, "capi-deleting", capiDeleting(clusterv1.MachineDeletingDeletionCompletedReason))
	o.patch(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: capiNS, Name: "capi-deleting"}}, `{"metadata":{"finalizers":null}}`, true)
	// And the kept Machine goes: its deletion was observed by manager-1.
	o.patch(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: capiNS, Name: "capi-kept"}}, `{"metadata":{"finalizers":null}}`, true)
	want[key(ms, ns, "creating")] = state(running, create, successful)
	want[key(capi, capiNS, "capi-creating")] = state(running, create, successful) + " up_to_date=true"
	for _, k := range []string{key(ms, ns, "deleting"), key(capi, capiNS, "capi-deleting"), key(capi, capiNS, "capi-kept")} {
		delete(want, k)
	}
	after := m2.waitStates(t, "manager-2 to observe the operations that ended under it", want,
		map[string]uint64{ms + " prod/workers Create Successful": 1, ms + " prod/workers Delete Successful": 1,
			capi + " prod/md-0 Create Successful": 1, capi + " prod/md-0 Delete Successful": 1},
		map[string]float64{ms + " Create Successful": 1, ms + " Delete Successful": 1,
			capi + " Create Successful": 1, capi + " Delete Successful": 1})

	// Over both processes: one observation per operation that ended.
	total := durationCounts(before)
	for k, n := range durationCounts(after) {
		total[k] += n
	}
	wantTotal := map[string]uint64{ms + " prod/workers Create Successful": 3, ms + " prod/workers Delete Successful": 1,
		capi + " prod/md-0 Create Successful": 4, capi + " prod/md-0 Delete Successful": 2}
	if !maps.Equal(total, wantTotal) {
		t.Errorf("observations over both managers %v, want %v", total, wantTotal)
	}
	// The Creates that ended under manager-2 are timed from their creationTimestamp: across the
	// restart.
	for _, c := range []struct{ group, namespace, name string }{{ms, ns, "creating"}, {capi, capiNS, "capi-creating"}} {
		created := creationTimestamp(t, f.Client, c.group, c.namespace, c.name)
		sum := durationSum(after, map[string]string{"api_group": c.group, "type": "Create", "state": "Successful"})
		if least := restarted.Truncate(time.Second).Sub(created).Seconds(); sum < least {
			t.Errorf("%s %s/%s: Create observed as %.0f s, want at least %.0f s (from its creation, %s, to the restart)",
				c.group, c.namespace, c.name, sum, least, created.UTC().Format(time.RFC3339))
		}
	}
}

// waitAnnotation waits until the Cluster API Machine's annotation keeps typ and state.
func waitAnnotation(t *testing.T, c client.Client, ns, name string, typ v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState) {
	t.Helper()
	harness.Wait(t, time.Minute, fmt.Sprintf("the annotation of %s/%s to keep %s %s", ns, name, typ, state), func(ctx context.Context) (bool, string) {
		m := &clusterv1.Machine{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return false, err.Error()
		}
		op, err := aggregate.LastOperationFromAnnotations(m.Annotations)
		return err == nil && op != nil && op.Type == typ && op.State == state, fmt.Sprintf("%+v (%v)", op, err)
	})
}

// creationTimestamp returns the creationTimestamp of a Machine of group.
func creationTimestamp(t *testing.T, c client.Client, group, ns, name string) time.Time {
	t.Helper()
	var obj client.Object = &v1alpha1.Machine{}
	if group == clusterv1.GroupVersion.Group {
		obj = &clusterv1.Machine{}
	}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatal(err)
	}
	return obj.GetCreationTimestamp().Time
}
