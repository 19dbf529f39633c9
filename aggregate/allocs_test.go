package aggregate_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestSummarizeSteadyNotRunningKeepsLastOperation: a Machine that stays in an operation (waiting
// for its infrastructure, its Node NotReady, being updated) keeps its stored lastOperation
// value, not an equal copy, and its allocations per Summarize are only the texts built from its
// conditions to be compared with the stored ones: Ready's message and the pieces of
// lastOperation's description (no new LastOperation, no new conditions). The counts are
// deterministic: a higher one is a regression.
func TestSummarizeSteadyNotRunningKeepsLastOperation(t *testing.T) {
	clock := conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(30).Time)}
	for _, tc := range []struct {
		name      string
		m         *v1alpha1.Machine
		maxAllocs float64
	}{
		{"Provisioning, waiting for the infrastructure", machine(conds(
			cond(v1alpha1.MachineInfrastructureReadyCondition, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 1, "waiting for an instance"),
		)), 2},
		{"Running before, its Node NotReady", func() *v1alpha1.Machine {
			m := steadyRunning(t)
			if _, err := conditions.Set(m, cond(v1alpha1.MachineNodeReadyCondition, F, v1alpha1.MachineNodeNotReadyReason, 20, "kubelet stopped posting node status"), clock); err != nil {
				t.Fatal(err)
			}
			return m
		}(), 3},
		{"Updating", func() *v1alpha1.Machine {
			m := steadyRunning(t)
			if _, err := conditions.Set(m, cond(v1alpha1.MachineUpdatingCondition, T, v1alpha1.MachineUpdatingKubeletVersionReason, 20, "kubelet 1.31 to 1.32"), clock); err != nil {
				t.Fatal(err)
			}
			return m
		}(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aggregate.Summarize(tc.m, clock)
			stored := tc.m.Status.LastOperation
			if stored == nil || stored.State != v1alpha1.MachineOperationStateProcessing {
				t.Fatalf("lastOperation %+v, want an operation in progress", stored)
			}
			opts := []conditions.SetOption{clock} // boxed once, as a controller does per reconcile
			allocs := testing.AllocsPerRun(100, func() {
				if aggregate.Summarize(tc.m, opts...) {
					t.Fatal("a steady Machine changed")
				}
			})
			if tc.m.Status.LastOperation != stored {
				t.Errorf("Summarize replaced the stored lastOperation by an equal copy")
			}
			if allocs > tc.maxAllocs {
				t.Errorf("%v allocations per Summarize, want at most %v (Ready's message, the description's pieces)", allocs, tc.maxAllocs)
			}
		})
	}
}

// escaped is where a test stores a result so that it is allocated as in a caller that keeps
// it (a result nobody keeps may stay on the stack of an inlined call).
var escaped *metav1.Condition

// TestNewSummaryConditionAllocations guards the options' cost: the options of a call stay on
// the caller's stack (SummaryOption is sealed), so a summary allocates its result and, when it
// has one, its message; nothing else. A Summarizer's summaries allocate the same.
func TestNewSummaryConditionAllocations(t *testing.T) {
	scope := []string{"BootstrapConfigReady", "Deleting", "InfrastructureReady", "NodeReady", "example.com/NetworkReady"}
	negative := []string{"Deleting"}
	for _, tc := range []struct {
		name   string
		node   metav1.ConditionStatus
		allocs float64
	}{
		{"True: the result only", T, 1},
		{"False: the result and its message", F, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := machine(conds(
				cond("BootstrapConfigReady", T, "DataSecretCreated", 0),
				cond("Deleting", F, "NotDeleting", 0),
				cond("InfrastructureReady", T, "Provisioned", 0),
				cond("NodeReady", tc.node, "KubeletReady", 0, "kubelet is posting ready status"),
				cond("example.com/NetworkReady", T, "Attached", 0),
			))
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := aggregate.NewSummaryCondition(m, "Ready",
					aggregate.ForConditionTypes(scope...), aggregate.NegativePolarityConditionTypes(negative...)); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != tc.allocs {
				t.Errorf("NewSummaryCondition: %v allocations per run, want %v", allocs, tc.allocs)
			}

			clock := conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(1).Time)}
			s, err := aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes(scope...), aggregate.NegativePolarityConditionTypes(negative...),
				aggregate.WithSetOptions(clock))
			if err != nil {
				t.Fatal(err)
			}
			if allocs := testing.AllocsPerRun(100, func() { escaped = s.NewCondition(m) }); allocs != tc.allocs {
				t.Errorf("Summarizer.NewCondition: %v allocations per run, want %v", allocs, tc.allocs)
			}
			if _, err := s.SetCondition(m); err != nil {
				t.Fatal(err)
			}
			var setClock conditions.SetOption = clock // the caller's option, made once
			// A summary that changes nothing, the Summarizer's set options and the call's
			// passed together: the result and the options stay on the stack, only a message
			// (compared with the stored one) is built.
			if allocs := testing.AllocsPerRun(100, func() {
				if changed, err := s.SetCondition(m, setClock); changed || err != nil {
					t.Fatalf("SetCondition() of an unchanged Machine = %v, %v", changed, err)
				}
			}); allocs != tc.allocs-1 {
				t.Errorf("Summarizer.SetCondition, nothing to change: %v allocations per run, want %v", allocs, tc.allocs-1)
			}
		})
	}
}
