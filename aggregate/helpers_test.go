package aggregate_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// t0 is the creation time of every test Machine; at(n) is n minutes later.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(minutes int) metav1.Time {
	return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute))
}

// cond builds a condition whose lastTransitionTime is at(minutes); msg is optional.
func cond(t string, s metav1.ConditionStatus, reason string, minutes int, msg ...string) metav1.Condition {
	c := metav1.Condition{Type: t, Status: s, Reason: reason, LastTransitionTime: at(minutes)}
	if len(msg) > 0 {
		c.Message = msg[0]
	}
	return c
}

const (
	T = metav1.ConditionTrue
	F = metav1.ConditionFalse
	U = metav1.ConditionUnknown
)

// machine builds a Machine created at t0 with the given conditions, then applies the edits.
func machine(conds []metav1.Condition, edits ...func(*v1alpha1.Machine)) *v1alpha1.Machine {
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "default", Generation: 1, CreationTimestamp: at(0)},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: "m",
			},
		},
		Status: v1alpha1.MachineStatus{Conditions: conds},
	}
	for _, e := range edits {
		e(m)
	}
	return m
}

func conds(c ...metav1.Condition) []metav1.Condition { return c }

// deleted sets a deletionTimestamp at(minutes).
func deleted(minutes int) func(*v1alpha1.Machine) {
	return func(m *v1alpha1.Machine) { ts := at(minutes); m.DeletionTimestamp = &ts }
}

// registered sets status.nodeRef: the Node registered.
func registered(m *v1alpha1.Machine) { m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "m"} }

// withBootstrap configures a bootstrap config.
func withBootstrap(m *v1alpha1.Machine) {
	m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
		APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "m",
	}}
}

// prevOp sets the previous lastOperation.
func prevOp(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState, desc string, minutes int) func(*v1alpha1.Machine) {
	return func(m *v1alpha1.Machine) { m.Status.LastOperation = op(t, s, desc, minutes) }
}

func op(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState, desc string, minutes int) *v1alpha1.LastOperation {
	return &v1alpha1.LastOperation{Type: t, State: s, Description: desc, LastUpdated: at(minutes)}
}

// Shorthands for the operation types and states.
const (
	create      = v1alpha1.MachineOperationCreate
	update      = v1alpha1.MachineOperationUpdate
	drainNode   = v1alpha1.MachineOperationDrainNode
	healthCheck = v1alpha1.MachineOperationHealthCheck
	deleteOp    = v1alpha1.MachineOperationDelete

	processing = v1alpha1.MachineOperationStateProcessing
	successful = v1alpha1.MachineOperationStateSuccessful
	failed     = v1alpha1.MachineOperationStateFailed
)

// Shorthands for the catalog's condition types.
const (
	bootstrapReady = v1alpha1.MachineBootstrapConfigReadyCondition
	infraReady     = v1alpha1.MachineInfrastructureReadyCondition
	nodeReady      = v1alpha1.MachineNodeReadyCondition
	nodeHealthy    = v1alpha1.MachineNodeHealthyCondition
	hcSucceeded    = v1alpha1.MachineHealthCheckSucceededCondition
	updating       = v1alpha1.MachineUpdatingCondition
	draining       = v1alpha1.MachineDrainingCondition
	standby        = v1alpha1.MachineStandbyCondition
	deleting       = v1alpha1.MachineDeletingCondition
)

// clockAt is the conditions.Set option that dates a status change at t.
func clockAt(t time.Time) conditions.WithClock {
	return conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(t)}
}

// steadyRunning is a Running Machine whose derived status Summarize already wrote: summarizing
// it again has nothing to change.
func steadyRunning(t *testing.T, gates ...v1alpha1.MachineReadinessGate) *v1alpha1.Machine {
	t.Helper()
	m := machine(conds(
		cond(v1alpha1.MachineBootstrapConfigReadyCondition, T, v1alpha1.MachineBootstrapDataSecretCreatedReason, 1),
		cond(v1alpha1.MachineDeletingCondition, F, v1alpha1.MachineNotDeletingReason, 0),
		cond(v1alpha1.MachineDrainingCondition, F, v1alpha1.MachineNotDrainingReason, 0),
		cond(v1alpha1.MachineHealthCheckSucceededCondition, T, v1alpha1.MachineHealthCheckSucceededReason, 12),
		cond(v1alpha1.MachineInfrastructureReadyCondition, T, v1alpha1.MachineInfrastructureProvisionedReason, 8),
		cond(v1alpha1.MachineNodeHealthyCondition, T, v1alpha1.MachineNodeHealthyReason, 12),
		cond(v1alpha1.MachineNodeReadyCondition, T, v1alpha1.MachineNodeReadyReason, 12),
		cond(v1alpha1.MachinePausedCondition, F, v1alpha1.MachineNotPausedReason, 0),
		cond(v1alpha1.MachineStandbyCondition, F, v1alpha1.MachineNotInStandbyReason, 0),
		cond(v1alpha1.MachineUpdatingCondition, F, v1alpha1.MachineNotUpdatingReason, 0),
		cond("example.com/NetworkReady", T, "Attached", 12),
	), withBootstrap, func(m *v1alpha1.Machine) { m.Spec.ReadinessGates = gates })
	if !aggregate.Summarize(m, at(12).Time) {
		t.Fatal("the first Summarize changed nothing")
	}
	if m.Status.Phase != v1alpha1.MachinePhaseRunning {
		t.Fatalf("phase %s, want Running", m.Status.Phase)
	}
	return m
}
