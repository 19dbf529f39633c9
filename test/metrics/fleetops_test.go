package metrics

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

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
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
)

// The fleet operations of the tests that run both Machine APIs through one manager: what a
// user, the simulated provider, kwok and Cluster API's controllers (played by the test) do.

const (
	infoMetric     = "machinestatus_machine_info"
	durationMetric = "machinestatus_machine_operation_duration_seconds"
	// keepFinalizer is another controller's finalizer that keeps a deleted Machine visible.
	keepFinalizer = "example.com/keep"
	kubelet       = "v1.36.3"
)

// ops acts on a fleet's API server as the test's actors do.
type ops struct {
	t *testing.T
	c client.Client
}

// msMachine creates the machinestatus Machine ns/name, labelled with its cluster and pool, and
// its SimMachine (nodes register under the SimMachine's name, so names are unique in a test)
// with sim's spec (nil: no SimMachine); edit, when not nil, changes the Machine before it is
// created.
func (o ops) msMachine(ns, name, cluster, pool string, sim *infrav1.SimMachineSpec, edit func(*v1alpha1.Machine)) {
	o.t.Helper()
	ctx := context.Background()
	if sim != nil {
		s := &infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: *sim}
		if err := o.c.Create(ctx, s); err != nil {
			o.t.Fatalf("cannot create SimMachine %s/%s: %v", ns, name, err)
		}
	}
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			aggregate.ClusterNameLabel: cluster, aggregate.DefaultPoolLabel: pool}},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachine", Name: name},
			Version:           kubelet,
		},
	}
	if edit != nil {
		edit(m)
	}
	if err := o.c.Create(ctx, m); err != nil {
		o.t.Fatalf("cannot create Machine %s/%s: %v", ns, name, err)
	}
}

// sim is a SimMachine provisioned after provision seconds whose Node registers 1 s later.
func sim(provision int32) *infrav1.SimMachineSpec {
	return &infrav1.SimMachineSpec{ProvisionAfterSeconds: provision, RegisterNodeAfterSeconds: 1, KubeletVersion: kubelet}
}

// capiMachine creates the Cluster API Machine ns/name of cluster in MachineDeployment pool, with
// Cluster API's finalizer (and finalizers) as Cluster API's Machine controller adds it.
func (o ops) capiMachine(ns, name, cluster, pool string, finalizers ...string) {
	o.t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels:     map[string]string{clusterv1.ClusterNameLabel: cluster, clusterv1.MachineDeploymentNameLabel: pool},
			Finalizers: append([]string{clusterv1.MachineFinalizer}, finalizers...)},
		Spec: clusterv1.MachineSpec{
			ClusterName: cluster,
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: name,
			},
			Version: kubelet,
		},
	}
	if err := o.c.Create(context.Background(), m); err != nil {
		o.t.Fatalf("cannot create Cluster API Machine %s/%s: %v", ns, name, err)
	}
}

// capiStatus reads the Cluster API Machine ns/name, applies edits to its status and writes it, as
// Cluster API does.
func (o ops) capiStatus(ns, name string, edits ...func(*clusterv1.MachineStatus)) {
	o.t.Helper()
	harness.Wait(o.t, time.Minute, fmt.Sprintf("a status write of %s/%s", ns, name), func(ctx context.Context) (bool, string) {
		m := &clusterv1.Machine{}
		if err := o.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return false, err.Error()
		}
		for _, edit := range edits {
			edit(&m.Status)
		}
		err := o.c.Status().Update(ctx, m)
		if err != nil && !apierrors.IsConflict(err) {
			o.t.Fatalf("cannot write the status of %s/%s: %v", ns, name, err)
		}
		return err == nil, fmt.Sprint(err)
	})
}

// patch merge-patches obj (its namespace and name) with body; a gone object is not an error
// when gone is true.
func (o ops) patch(obj client.Object, body string, gone bool) {
	o.t.Helper()
	err := o.c.Patch(context.Background(), obj, client.RawPatch(types.MergePatchType, []byte(body)))
	if err != nil && (!gone || !apierrors.IsNotFound(err)) {
		o.t.Fatalf("cannot patch %T %s/%s with %s: %v", obj, obj.GetNamespace(), obj.GetName(), body, err)
	}
}

// delete deletes obj without waiting for its finalizers.
func (o ops) delete(obj client.Object) {
	o.t.Helper()
	if err := o.c.Delete(context.Background(), obj); err != nil {
		o.t.Fatalf("cannot delete %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
	}
}

// Cluster API's status writes, as its Machine controller makes them.

// capiRunning: the Machine's Node, named node, is Ready (fleet.SetClusterAPIRunning) and the
// Machine is up to date.
func capiRunning(node string) func(*clusterv1.MachineStatus) {
	return func(s *clusterv1.MachineStatus) {
		fleet.SetClusterAPIRunning(s, node, metav1.NewTime(time.Now().Truncate(time.Second)))
		capiCondition(clusterv1.MachineUpToDateCondition, metav1.ConditionTrue, clusterv1.MachineUpToDateReason)(s)
	}
}

// capiCondition sets condition t to status and reason, changed now.
func capiCondition(t string, status metav1.ConditionStatus, reason string) func(*clusterv1.MachineStatus) {
	return func(s *clusterv1.MachineStatus) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason,
			LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))})
	}
}

// capiDeleting: Cluster API's deletion is at step reason (DrainingNode, DeletionCompleted, …).
func capiDeleting(reason string) func(*clusterv1.MachineStatus) {
	return capiCondition(clusterv1.MachineDeletingCondition, metav1.ConditionTrue, reason)
}

// machineState is a Machine as machinestatus_machine_info says it: phase, lastOperation type and
// state, and up_to_date when set.
type machineState string

func state(phase v1alpha1.MachinePhase, op v1alpha1.MachineOperationType, st v1alpha1.MachineOperationState) machineState {
	return machineState(fmt.Sprintf("%s %s %s", phase, op, st))
}

// infoStates returns, by "api_group namespace/name", the states machinestatus_machine_info
// reports (more than one joined by " | ": a Machine must have exactly one series).
func infoStates(fams metricstest.Families) map[string]machineState {
	out := map[string]machineState{}
	for _, m := range fams[infoMetric].GetMetric() {
		l := metricstest.Labels(m)
		key := fmt.Sprintf("%s %s/%s", l["api_group"], l["namespace"], l["name"])
		s := fmt.Sprintf("%s %s %s", l["phase"], l["operation_type"], l["operation_state"])
		if l["up_to_date"] != "" {
			s += " up_to_date=" + l["up_to_date"]
		}
		if prev, ok := out[key]; ok {
			s = string(prev) + " | " + s
		}
		out[key] = machineState(s)
	}
	return out
}

// durationCounts returns the observation counts of machinestatus_machine_operation_duration_seconds
// by "api_group cluster/pool type state" (counts of 0 left out).
func durationCounts(fams metricstest.Families) map[string]uint64 {
	out := map[string]uint64{}
	for _, m := range fams[durationMetric].GetMetric() {
		l := metricstest.Labels(m)
		if n := m.GetHistogram().GetSampleCount(); n > 0 {
			out[fmt.Sprintf("%s %s/%s %s %s", l["api_group"], l["cluster"], l["pool"], l["type"], l["state"])] += n
		}
	}
	return out
}

// durationSum returns the sum of the observations of the histogram series with labels.
func durationSum(fams metricstest.Families, labels map[string]string) float64 {
	total := 0.0
	for _, m := range fams[durationMetric].GetMetric() {
		if metricstest.HasLabels(m, labels) {
			total += m.GetHistogram().GetSampleSum()
		}
	}
	return total
}

// resultCounts returns machinestatus_machine_operation_results_total by "api_group type state"
// (0 left out).
func resultCounts(fams metricstest.Families) map[string]float64 {
	out := map[string]float64{}
	for _, m := range fams[resultsMetric].GetMetric() {
		l := metricstest.Labels(m)
		if v := metricstest.Value(m); v > 0 {
			out[fmt.Sprintf("%s %s %s", l["api_group"], l["type"], l["state"])] += v
		}
	}
	return out
}

// diffStates describes how got differs from want, "" when equal.
func diffStates(want, got map[string]machineState) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			out = append(out, fmt.Sprintf("%s: %q, want %q", k, got[k], want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %q, want no series", k, got[k]))
		}
	}
	return strings.Join(out, "; ")
}
