package controllers_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestLifecycle drives one Machine through every phase with a real API server and real Node
// objects, checking the phase, the lastOperation and the deciding conditions at each step.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	name := "m1"
	node := ns + "-node"
	pid := "fake://" + ns + "/m1"

	m := harness.NewMachine(ns, name)
	m.Spec.Version = "v1.36.3"
	m.Finalizers = []string{"example.com/keep"} // another controller's, to watch Deleting/Deleted
	env.Create(t, m)

	step := func(want v1alpha1.MachinePhase, op v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState) *v1alpha1.Machine {
		t.Helper()
		got := env.WaitPhase(t, ns, name, want)
		if got.Status.LastOperation == nil || got.Status.LastOperation.Type != op || got.Status.LastOperation.State != state {
			t.Fatalf("phase %s: want lastOperation %s/%s, got %s", want, op, state, harness.Describe(got))
		}
		if got.Status.ObservedGeneration != got.Generation {
			t.Fatalf("phase %s: observedGeneration %d, generation %d", want, got.Status.ObservedGeneration, got.Generation)
		}
		return got
	}

	got := step(v1alpha1.MachinePhasePending, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing)
	if r := conditions.GetReason(got, v1alpha1.MachineInfrastructureReadyCondition); r != v1alpha1.MachineInfrastructureDoesNotExistReason {
		t.Fatalf("InfrastructureReady reason %q", r)
	}
	if conditions.IsTrue(got, v1alpha1.MachineReadyCondition) {
		t.Fatal("Ready is True with nothing provisioned")
	}

	env.CreateInfra(t, ns, name, map[string]any{}, map[string]any{"initialization": map[string]any{"provisioned": false}})
	step(v1alpha1.MachinePhaseProvisioning, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing)

	// v1beta1 contract field status.ready, with spec.providerID.
	u := env.GetInfra(t, ns, name)
	u.Object["spec"] = map[string]any{"providerID": pid}
	if err := k8s.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"ready": true})
	got = step(v1alpha1.MachinePhaseProvisioned, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing)
	if got.Status.ProviderID != pid {
		t.Fatalf("status.providerID %q, want %q", got.Status.ProviderID, pid)
	}

	env.CreateNode(t, node, pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	got = step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful)
	if got.Status.NodeRef == nil || got.Status.NodeRef.Name != node {
		t.Fatalf("nodeRef %+v, want %s", got.Status.NodeRef, node)
	}
	if !conditions.IsTrue(got, v1alpha1.MachineReadyCondition) {
		t.Fatalf("Ready not True when Running: %s", harness.Describe(got))
	}

	// NotReady just now: inside the default 5m timeout.
	env.UpdateNode(t, node, func(n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{harness.ReadyCondition(corev1.ConditionFalse, time.Now())}
	})
	step(v1alpha1.MachinePhaseUnknown, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateProcessing)

	// NotReady for longer than the timeout, shortened to 2 s (the timer counts from when the
	// controller saw the Node turn, never from the Node's own time).
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) {
		m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: 2},
		}}
	})
	got = step(v1alpha1.MachinePhaseFailed, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateFailed)
	if r := conditions.GetReason(got, v1alpha1.MachineHealthCheckSucceededCondition); r != v1alpha1.MachineHealthCheckUnhealthyNodeReason {
		t.Fatalf("HealthCheckSucceeded reason %q", r)
	}

	env.UpdateNode(t, node, func(n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{harness.ReadyCondition(corev1.ConditionTrue, time.Now())}
	})
	step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateSuccessful)

	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Spec.Version = "v1.36.4" })
	step(v1alpha1.MachinePhaseUpdating, v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateProcessing)
	env.UpdateNode(t, node, func(n *corev1.Node) { n.Status.NodeInfo.KubeletVersion = "v1.36.4" })
	step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateSuccessful)

	env.UpdateNode(t, node, func(n *corev1.Node) { n.Spec.Unschedulable = true })
	step(v1alpha1.MachinePhaseDraining, v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateProcessing)
	env.UpdateNode(t, node, func(n *corev1.Node) { n.Spec.Unschedulable = false })
	step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateSuccessful)

	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Spec.Standby = true })
	step(v1alpha1.MachinePhaseStandby, v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateSuccessful)
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Spec.Standby = false })
	step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateSuccessful)

	// Terminal provider failure.
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"ready": true, "failureReason": "InsufficientCapacity", "failureMessage": "no hosts left"})
	got = step(v1alpha1.MachinePhaseFailed, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateFailed)
	if r := conditions.GetReason(got, v1alpha1.MachineInfrastructureReadyCondition); r != v1alpha1.MachineInfrastructureFailedReason {
		t.Fatalf("InfrastructureReady reason %q", r)
	}
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"ready": true})
	step(v1alpha1.MachinePhaseRunning, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateSuccessful)

	// Deletion: the steps follow what still exists.
	if err := k8s.Delete(ctx, env.GetMachine(t, ns, name)); err != nil {
		t.Fatal(err)
	}
	got = step(v1alpha1.MachinePhaseDeleting, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateProcessing)
	if r := conditions.GetReason(got, v1alpha1.MachineDeletingCondition); r != v1alpha1.MachineDeletingDrainingNodeReason {
		t.Fatalf("Deleting reason %q", r)
	}
	env.DeleteInfra(t, ns, name)
	harness.Wait(t, harness.MachineTimeout, "WaitingForNodeDeletion", func(context.Context) (bool, string) {
		if r := conditions.GetReason(env.GetMachine(t, ns, name), v1alpha1.MachineDeletingCondition); r != v1alpha1.MachineDeletingWaitingForNodeDeletionReason {
			return false, r
		}
		return true, ""
	})
	if err := k8s.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}); err != nil {
		t.Fatal(err)
	}
	step(v1alpha1.MachinePhaseDeleted, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateSuccessful)

	// No finalizer of our own: once the other controller's is removed, the Machine is gone.
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Finalizers = nil })
	harness.Wait(t, harness.MachineTimeout, "the Machine to be gone", func(context.Context) (bool, string) {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &v1alpha1.Machine{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, "still present"
	})
}
