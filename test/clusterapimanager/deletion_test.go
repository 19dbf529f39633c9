package clusterapimanager

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestGoneMachineIsANormalEnd: Cluster API deletes a Machine's object 70-320 ms after it writes
// Deleting=True/DeletionCompleted, so the manager's patch of the annotation may find it gone (or
// the manager may see only the deletion). A Machine that is gone is a normal end: its Delete
// Successful is recorded (the DeleteSucceeded event, operation_results{Delete,Successful}), and
// the manager logs no ERROR. The test plays Cluster API: the last status write, then the
// finalizer removed at once.
func TestGoneMachineIsANormalEnd(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	const rounds = 5
	before := env.manager.Log()
	for i := range rounds {
		m := newMachine(t, ns, fmt.Sprintf("worker-%d", i), true)
		setStatus(t, m, running)
		obj := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m.Name}}
		if err := env.Client.Patch(ctx, obj, client.RawPatch("application/merge-patch+json",
			[]byte(`{"metadata":{"finalizers":["`+clusterv1.MachineFinalizer+`"]}}`))); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
		setStatus(t, m, func(s *clusterv1.MachineStatus) {
			meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineDeletingCondition, Status: metav1.ConditionTrue,
				Reason: clusterv1.MachineDeletingDeletionCompletedReason, LastTransitionTime: metav1.NewTime(time.Now())})
		})
		if err := env.Client.Patch(ctx, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m.Name}},
			client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		waitForEvents(t, ns, m.Name, "DeleteSucceeded")
	}
	waitForMetric(t, "machinestatus_machine_operation_results_total",
		map[string]string{"api_group": "cluster.x-k8s.io", "type": "Delete", "state": "Successful"}, rounds)
	harness.Wait(t, 10*time.Second, "the manager's log to settle", func(context.Context) (bool, string) { return true, "" })
	if logged := strings.TrimPrefix(env.manager.Log(), before); strings.Contains(logged, "ERROR") {
		t.Errorf("the manager logged an ERROR while Machines ended:\n%s", errorLines(logged))
	}
}

// TestQuickDeletionWritesItsResultOnly: Cluster API goes through a deletion's steps in a second
// or two (drain, infrastructure deletion, DeletionCompleted). Its Delete Processing is an
// in-between state that a reader derives from the Machine: a Machine whose deletion completes at
// once, then is kept by a finalizer, costs one patch, its Delete Successful with the deletion's
// cause (the Delete Processing in between is not written).
func TestQuickDeletionWritesItsResultOnly(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	m := newMachine(t, ns, "quick-0", true)
	setStatus(t, m, running)
	waitForOperation(t, m, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
	obj := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m.Name}}
	if err := env.Client.Patch(ctx, obj, client.RawPatch("application/merge-patch+json",
		[]byte(`{"metadata":{"finalizers":["`+clusterv1.MachineFinalizer+`"]}}`))); err != nil {
		t.Fatal(err)
	}
	before := machinePatches(t)
	if err := env.Client.Delete(ctx, obj); err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{clusterv1.MachineDeletingDrainingNodeReason, clusterv1.MachineDeletingDeletionCompletedReason} {
		setStatus(t, m, func(s *clusterv1.MachineStatus) {
			meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: clusterv1.MachineDeletingCondition, Status: metav1.ConditionTrue,
				Reason: reason, LastTransitionTime: metav1.NewTime(time.Now())})
		})
	}
	op := waitForOperation(t, m, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateSuccessful)
	if op.Reason != v1alpha1.DeletionRequestedReason {
		t.Errorf("deletion cause %q, want %q", op.Reason, v1alpha1.DeletionRequestedReason)
	}
	if got := machinePatches(t) - before; got != 1 {
		t.Errorf("%v patches of machines.cluster.x-k8s.io for a deletion completed at once, want 1 (Delete Successful)", got)
	}
	if err := env.Client.Patch(ctx, obj, client.RawPatch("application/merge-patch+json",
		[]byte(`{"metadata":{"finalizers":null}}`))); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// errorLines returns the lines of log that hold ERROR.
func errorLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "ERROR") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
