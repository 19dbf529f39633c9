package clusterapimanager

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
)

// TestStartsBeforeClusterAPI: started before Cluster API's CRD was installed, the manager said
// so in its log and its metric, kept running, and picked the CRD up once installed (setUp).
func TestStartsBeforeClusterAPI(t *testing.T) {
	if !strings.Contains(env.notServedLog, "serves no machines.cluster.x-k8s.io (is Cluster API installed?)") {
		t.Errorf("log line while Cluster API was not installed: %q, want it to say that machines.cluster.x-k8s.io is not served", env.notServedLog)
	}
	if env.servedBefore != 0 {
		t.Errorf("machinestatus_machine_api_served{api_group=cluster.x-k8s.io} before Cluster API = %v, want 0", env.servedBefore)
	}
	if got, err := servedMetric(context.Background()); err != nil || got != 1 {
		t.Errorf("machinestatus_machine_api_served{api_group=cluster.x-k8s.io} after = %v (%v), want 1", got, err)
	}
	select {
	case <-env.manager.Done():
		t.Fatalf("the manager exited: %v", env.manager.ExitError())
	default:
	}
}

// TestLifecycle: a new Cluster API Machine is not written while it is created (its Create
// Processing is derived the same without history: the info metric says it); Running makes it
// Create Successful, written once; events and metrics say so with api_group cluster.x-k8s.io;
// the phase itself is Cluster API's to report (no MachineRunning event); the manager's only
// field is that annotation key; deletion is not blocked.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	m := newMachine(t, ns, "worker-0", true)

	waitForMetric(t, "machinestatus_machine_info", map[string]string{"api_group": "cluster.x-k8s.io", "namespace": ns,
		"name": m.Name, "cluster": "cluster-0", "pool": "", "phase": "Provisioning", "operation_type": "Create",
		"operation_state": "Processing", "up_to_date": ""}, 1)
	if got := annotation(t, m); got != "" {
		t.Errorf("annotation while created: %s, want none", got)
	}
	setStatus(t, m, running)
	op := waitForOperation(t, m, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
	if op.Description != "" {
		t.Errorf("the annotation keeps a description: %+v, want type, state and lastUpdated only", op)
	}

	waitForEvents(t, ns, m.Name, "CreateSucceeded")
	if got := eventReasons(t, ns, m.Name); slices.Contains(got, "MachineRunning") {
		t.Errorf("events %v: a MachineRunning event, want Cluster API's phases left to Cluster API", got)
	}
	waitForMetric(t, "machinestatus_machine_operation_results_total",
		map[string]string{"api_group": "cluster.x-k8s.io", "type": "Create", "state": "Successful"}, 1)
	waitForMetric(t, "machinestatus_machines", map[string]string{"api_group": "cluster.x-k8s.io", "phase": "Running"}, 1)

	got := &clusterv1.Machine{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 0 {
		t.Errorf("finalizers %v, want none", got.Finalizers)
	}
	if got.Generation != 1 {
		t.Errorf("generation %d, want 1: the spec must not change", got.Generation)
	}
	// The manager owns exactly one field: the annotation key, through a patch (operation Update);
	// "." is the API server's mark that its patch created the annotations map itself.
	wantFields := `{"f:metadata":{"f:annotations":{".":{},"f:` + aggregate.LastOperationAnnotation + `":{}}}}`
	var owned []string
	for _, f := range got.ManagedFields {
		if f.Manager == fieldManager {
			owned = append(owned, fmt.Sprintf("%s %s %s", f.Operation, f.Subresource, f.FieldsV1.String()))
		}
	}
	if diff := cmp.Diff([]string{"Update  " + wantFields}, owned); diff != "" {
		t.Errorf("fields managed by %s (-want +got):\n%s", fieldManager, diff)
	}

	if err := env.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, time.Minute, "the deleted Machine to be gone", func(ctx context.Context) (bool, string) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), &clusterv1.Machine{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
}

// TestInstalledOnARunningFleet: Cluster API Machines that Cluster API has run for an hour, with
// no annotation (no history), come into the manager's shard (as on a fleet the manager is
// installed on). Its first reconcile derives the lastOperation from what each Machine shows
// (docs/rules.md, "Without history"): a registered Node (nodeRef) means
// creation finished, so a Node NotReady for an hour is a health check, never a creation.
func TestInstalledOnARunningFleet(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	hourAgo := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	notReady := func(s *clusterv1.MachineStatus) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineNodeReadyCondition,
			Status: metav1.ConditionFalse, Reason: clusterv1.MachineNodeNotReadyReason,
			Message: "* Node.Ready: kubelet stopped posting node status", LastTransitionTime: hourAgo})
	}
	healthCheck := func(status metav1.ConditionStatus, reason string) func(*clusterv1.MachineStatus) {
		return func(s *clusterv1.MachineStatus) {
			meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineHealthCheckSucceededCondition,
				Status: status, Reason: reason, LastTransitionTime: hourAgo})
		}
	}
	statuses := map[string][]func(*clusterv1.MachineStatus){
		"ready":     nil,
		"not-ready": {notReady, healthCheck(metav1.ConditionTrue, clusterv1.MachineHealthCheckSucceededReason)},
		"unhealthy": {notReady, healthCheck(metav1.ConditionFalse, clusterv1.MachineHealthCheckUnhealthyNodeReason)},
	}
	// Every (lastOperation type, state, phase) each Machine goes through, from a watch started
	// before the Machines come into the shard: the manager's first annotation must be right.
	history := env.WatchHistory(t, &clusterv1.MachineList{}, ns, func(o client.Object) (string, bool) {
		m, ok := o.(*clusterv1.Machine)
		if !ok {
			return "", false
		}
		if _, annotated := m.Annotations[aggregate.LastOperationAnnotation]; !annotated {
			return "", false // not written yet
		}
		op, err := aggregate.LastOperationFromAnnotations(m.Annotations)
		if err != nil || op == nil {
			return fmt.Sprintf("unreadable annotation (%v)", err), true
		}
		phase, _ := aggregate.ClusterAPIMachineStatus(m, op, false, time.Time{})
		return fmt.Sprintf("%s %s, phase %s", op.Type, op.State, phase), true
	})
	var machines []*clusterv1.Machine
	for name, edits := range statuses {
		m := newMachine(t, ns, name, false)
		setStatus(t, m, func(s *clusterv1.MachineStatus) {
			fleet.SetClusterAPIRunning(s, name, hourAgo)
			for _, edit := range edits {
				edit(s)
			}
		})
		machines = append(machines, m)
	}
	// Into the shard: the manager sees each Machine for the first time, with its status.
	for _, m := range machines {
		patch := []byte(`{"metadata":{"labels":{"` + shardLabel + `":"` + shardValue + `"}}}`)
		if err := env.Client.Patch(ctx, m.DeepCopy(), client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}

	type result struct {
		Type  v1alpha1.MachineOperationType
		State v1alpha1.MachineOperationState
		Phase v1alpha1.MachinePhase
	}
	wantResults := map[string]result{
		"ready":     {v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful, v1alpha1.MachinePhaseRunning},
		"not-ready": {v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateProcessing, v1alpha1.MachinePhaseUnknown},
		"unhealthy": {v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateFailed, v1alpha1.MachinePhaseFailed},
	}
	// The status does not change, so the first annotation the manager writes is its verdict;
	// the last one must be too (the history below).
	got := map[string]result{}
	err := harness.Poll(ctx, 2*time.Minute, func(ctx context.Context) (bool, string) {
		for _, m := range machines {
			cur := &clusterv1.Machine{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), cur); err != nil {
				return false, err.Error()
			}
			op, err := aggregate.LastOperationFromAnnotations(cur.Annotations)
			if err != nil || op == nil {
				continue
			}
			phase, _ := aggregate.ClusterAPIMachineStatus(cur, op, false, time.Time{})
			got[m.Name] = result{op.Type, op.State, phase}
		}
		return len(got) == len(machines), fmt.Sprintf("annotated: %v", got)
	})
	if err != nil {
		t.Errorf("not every Machine got the annotation: %v", err)
	}
	if diff := cmp.Diff(wantResults, got); diff != "" {
		t.Errorf("(lastOperation type, state, phase) per Machine (-want +got):\n%s", diff)
	}
	// Nothing else, ever.
	allowed := map[string][]string{}
	for name, r := range wantResults {
		allowed[name] = []string{fmt.Sprintf("%s %s, phase %s", r.Type, r.State, r.Phase)}
	}
	history.Check(t, "lastOperation annotations", allowed)
}

// TestIdleStatusRewritesCauseNoWrite: Cluster API rewrites a Machine's status often; rewrites
// that leave phase and lastOperation as they were send no write, nor does a Node going NotReady
// (HealthCheck Processing, derived the same from the annotation's Create Successful). The API
// server's own request counter counts the Machine patches: twenty status rewrites, the Node
// NotReady, then Ready again must cost exactly one patch (HealthCheck Successful), which also
// proves the rewrites were all reconciled before it.
func TestIdleStatusRewritesCauseNoWrite(t *testing.T) {
	ns := newNamespace(t)
	m := newMachine(t, ns, "idle-0", true)
	setStatus(t, m, running)
	waitForOperation(t, m, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
	waitForEvents(t, ns, m.Name, "CreateSucceeded")

	before := machinePatches(t)
	for i := range 20 {
		setStatus(t, m, func(s *clusterv1.MachineStatus) {
			// What Cluster API rewrites without a change of phase or lastOperation.
			s.Addresses = []clusterv1.MachineAddress{{Type: clusterv1.MachineInternalIP, Address: fmt.Sprintf("10.0.0.%d", i)}}
			s.NodeInfo = &corev1.NodeSystemInfo{KubeletVersion: fmt.Sprintf("v1.36.%d", i)}
			meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineAvailableCondition,
				Status: metav1.ConditionFalse, Reason: "NotAvailable", Message: fmt.Sprintf("rewrite %d", i),
				LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))})
		})
	}
	setStatus(t, m, func(s *clusterv1.MachineStatus) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineNodeReadyCondition,
			Status: metav1.ConditionFalse, Reason: clusterv1.MachineNodeNotReadyReason, Message: "* Node.Ready: kubelet stopped posting node status",
			LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))})
	})
	waitForMetric(t, "machinestatus_machine_info", map[string]string{"api_group": "cluster.x-k8s.io", "namespace": ns,
		"name": m.Name, "cluster": "cluster-0", "pool": "", "phase": "Unknown", "operation_type": "HealthCheck",
		"operation_state": "Processing", "up_to_date": ""}, 1)
	if got := machinePatches(t) - before; got != 0 {
		t.Errorf("%v patches of machines.cluster.x-k8s.io for 20 status rewrites and a Node NotReady, want 0", got)
	}
	setStatus(t, m, func(s *clusterv1.MachineStatus) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineNodeReadyCondition,
			Status: metav1.ConditionTrue, Reason: clusterv1.MachineNodeReadyReason,
			LastTransitionTime: metav1.NewTime(time.Now().Add(time.Second).Truncate(time.Second))})
	})
	waitForOperation(t, m, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateSuccessful)
	if got := machinePatches(t) - before; got != 1 {
		t.Errorf("%v patches of machines.cluster.x-k8s.io for 20 status rewrites, a Node NotReady and Ready again, want 1", got)
	}
}

// TestShard: a Machine outside the manager's --machine-selector is never written.
func TestShard(t *testing.T) {
	ns := newNamespace(t)
	outside := newMachine(t, ns, "other-shard", false)
	inside := newMachine(t, ns, "this-shard", true)
	setStatus(t, outside, running)
	setStatus(t, inside, running)
	waitForOperation(t, inside, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
	got := &clusterv1.Machine{}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(outside), got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Annotations[aggregate.LastOperationAnnotation]; ok {
		t.Errorf("a Machine outside the shard got the annotation %s", v)
	}
}

// TestUnreadableAnnotationIsReplaced: a hand-edited annotation that is no lastOperation is
// replaced by the next lastOperation the manager keeps.
func TestUnreadableAnnotationIsReplaced(t *testing.T) {
	ns := newNamespace(t)
	m := newMachine(t, ns, "edited", true)
	patch := []byte(`{"metadata":{"annotations":{"` + aggregate.LastOperationAnnotation + `":"not json"}}}`)
	if err := env.Client.Patch(context.Background(), m.DeepCopy(), client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	setStatus(t, m, running)
	waitForOperation(t, m, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
}

// TestLeaderElection: the manager holds a Lease of its own in its namespace, named for its
// shard and API (not the default machinestatus.machinestatus.io of a machinestatus manager).
func TestLeaderElection(t *testing.T) {
	leases := &coordinationv1.LeaseList{}
	if err := env.Client.List(context.Background(), leases, client.InNamespace(managerNamespace)); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, l := range leases.Items {
		if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			held = append(held, l.Name)
		}
	}
	if len(held) != 1 || held[0] == "machinestatus.machinestatus.io" || !strings.HasSuffix(held[0], ".machinestatus.io") {
		t.Errorf("held Leases in %s: %v, want one machinestatus-<hash>.machinestatus.io", managerNamespace, held)
	}
}

// TestRBAC: what the manager's user may do is config/clusterapi's ClusterRole (and the leader
// election Role), which the tests above show is enough, and no more.
func TestRBAC(t *testing.T) {
	tests := []struct {
		verb, group, resource, subresource, namespace string
		want                                          bool
	}{
		{"get", clusterv1.GroupVersion.Group, "machines", "", "default", true},
		{"list", clusterv1.GroupVersion.Group, "machines", "", "", true},
		{"watch", clusterv1.GroupVersion.Group, "machines", "", "", true},
		{"patch", clusterv1.GroupVersion.Group, "machines", "", "default", true},
		{"get", clusterv1.GroupVersion.Group, "clusters", "", "default", true},
		{"list", clusterv1.GroupVersion.Group, "clusters", "", "", false},
		{"create", "events.k8s.io", "events", "", "default", true},
		{"patch", "events.k8s.io", "events", "", "default", true},
		{"update", "coordination.k8s.io", "leases", "", managerNamespace, true},
		{"update", clusterv1.GroupVersion.Group, "machines", "", "default", false},
		{"patch", clusterv1.GroupVersion.Group, "machines", "status", "default", false},
		{"delete", clusterv1.GroupVersion.Group, "machines", "", "default", false},
		{"create", clusterv1.GroupVersion.Group, "machines", "", "default", false},
		{"list", clusterv1.GroupVersion.Group, "machinesets", "", "", false},
		{"list", "", "nodes", "", "", false},
		{"list", "", "secrets", "", "", false},
		{"list", "infrastructure.cluster.x-k8s.io", "simmachines", "", "", false},
		{"list", v1alpha1.GroupVersion.Group, "machines", "", "", false},
		{"update", "coordination.k8s.io", "leases", "", "default", false},
	}
	for _, tt := range tests {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: managerUser, Groups: []string{"system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: tt.verb, Group: tt.group, Resource: tt.resource, Subresource: tt.subresource, Namespace: tt.namespace,
			},
		}}
		if err := env.Client.Create(context.Background(), sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != tt.want {
			t.Errorf("%s %s/%s.%s in %q: allowed %v, want %v", tt.verb, tt.resource, tt.subresource, tt.group, tt.namespace, sar.Status.Allowed, tt.want)
		}
	}
}

// running is the status Cluster API writes for a Machine whose Node is Ready.
func running(s *clusterv1.MachineStatus) {
	fleet.SetClusterAPIRunning(s, "node-0", metav1.NewTime(time.Now().Truncate(time.Second)))
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "capi-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// newMachine creates a Cluster API Machine with bootstrap data given by name, in the manager's
// shard when inShard.
func newMachine(t *testing.T, ns, name string, inShard bool) *clusterv1.Machine {
	t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: clusterv1.MachineSpec{
			ClusterName: "cluster-0",
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "SimMachine", Name: name,
			},
		},
	}
	if inShard {
		m.Labels = map[string]string{shardLabel: shardValue}
	}
	if err := env.Client.Create(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

// setStatus reads m, applies edit to its status and writes the status, as Cluster API does.
func setStatus(t *testing.T, m *clusterv1.Machine, edit func(*clusterv1.MachineStatus)) {
	t.Helper()
	harness.Wait(t, time.Minute, fmt.Sprintf("a status write of %s/%s", m.Namespace, m.Name), func(ctx context.Context) (bool, string) {
		got := &clusterv1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), got); err != nil {
			return false, err.Error()
		}
		edit(&got.Status)
		err := env.Client.Status().Update(ctx, got)
		if err != nil && !apierrors.IsConflict(err) {
			t.Fatalf("cannot write the status of %s/%s: %v", m.Namespace, m.Name, err)
		}
		return err == nil, fmt.Sprint(err)
	})
}

// waitForOperation waits until m's annotation holds a lastOperation of type typ in state
// state, and returns it.
func waitForOperation(t *testing.T, m *clusterv1.Machine, typ v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState) *v1alpha1.LastOperation {
	t.Helper()
	var op *v1alpha1.LastOperation
	harness.Wait(t, 2*time.Minute, fmt.Sprintf("lastOperation %s %s of %s/%s", typ, state, m.Namespace, m.Name), func(ctx context.Context) (bool, string) {
		got := &clusterv1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), got); err != nil {
			return false, err.Error()
		}
		var err error
		op, err = aggregate.LastOperationFromAnnotations(got.Annotations)
		return err == nil && op != nil && op.Type == typ && op.State == state,
			fmt.Sprintf("annotation: %s (%v)\n%s", got.Annotations[aggregate.LastOperationAnnotation], err, env.manager.Tail(20))
	})
	return op
}

// annotation returns m's LastOperationAnnotation as the API server holds it ("" when none).
func annotation(t *testing.T, m *clusterv1.Machine) string {
	t.Helper()
	got := &clusterv1.Machine{}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(m), got); err != nil {
		t.Fatal(err)
	}
	return got.Annotations[aggregate.LastOperationAnnotation]
}

// eventReasons returns the reasons of the events about the Cluster API Machine name in ns.
func eventReasons(t *testing.T, ns, name string) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Regarding.Kind == "Machine" && e.Regarding.APIVersion == clusterv1.GroupVersion.String() {
			seen = append(seen, e.Reason)
		}
	}
	return seen
}

// waitForEvents waits until the Machine name in ns has events of every reason.
func waitForEvents(t *testing.T, ns, name string, reasons ...string) {
	t.Helper()
	harness.Wait(t, time.Minute, fmt.Sprintf("events %v of %s/%s", reasons, ns, name), func(context.Context) (bool, string) {
		seen := eventReasons(t, ns, name)
		for _, r := range reasons {
			if !slices.Contains(seen, r) {
				return false, fmt.Sprintf("events %v", seen)
			}
		}
		return true, ""
	})
}

// waitForMetric waits until the manager's metric name, summed over the samples with labels,
// is at least want.
func waitForMetric(t *testing.T, name string, labels map[string]string, want float64) {
	t.Helper()
	harness.Wait(t, time.Minute, fmt.Sprintf("%s%v ≥ %v", name, labels, want), func(ctx context.Context) (bool, string) {
		fams, err := metricstest.Fetch(ctx, nil, env.metricsURL, "")
		if err != nil { // the endpoint may not answer yet
			return false, fmt.Sprintf("scrape: %v", err)
		}
		got := fams.Sum(name, labels)
		return got >= want, fmt.Sprintf("%v", got)
	})
}

// machinePatches returns how many PATCH requests on machines.cluster.x-k8s.io (not its status)
// the API server has served, from its own apiserver_request_total.
func machinePatches(t *testing.T) float64 {
	t.Helper()
	fams, err := metricstest.APIServer(context.Background(), env.CP.Config)
	if err != nil {
		t.Fatal(err)
	}
	return fams.Sum("apiserver_request_total", map[string]string{
		"group": clusterv1.GroupVersion.Group, "resource": "machines", "subresource": "", "verb": "PATCH"})
}
