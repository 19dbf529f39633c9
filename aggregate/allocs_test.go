package aggregate_test

import (
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

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
	if !aggregate.Summarize(m, conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(12).Time)}) {
		t.Fatal("the first Summarize changed nothing")
	}
	if m.Status.Phase != v1alpha1.MachinePhaseRunning {
		t.Fatalf("phase %s, want Running", m.Status.Phase)
	}
	return m
}

// TestSummarizeSteadyAllocatesNothing guards the hot path: a reconcile of a Machine that did not
// change summarizes it again, and that must cost no allocation (deterministic, unlike a time).
func TestSummarizeSteadyAllocatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gates []v1alpha1.MachineReadinessGate
	}{
		{name: "no readiness gates"},
		{name: "a positive readiness gate", gates: []v1alpha1.MachineReadinessGate{{ConditionType: "example.com/NetworkReady"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := steadyRunning(t, tc.gates...)
			allocs := testing.AllocsPerRun(100, func() {
				if aggregate.Summarize(m) {
					t.Fatal("a steady Machine changed")
				}
			})
			if allocs != 0 {
				t.Errorf("Summarize of a steady Machine: %v allocations per run, want 0", allocs)
			}
		})
	}
}
