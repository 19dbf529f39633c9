package aggregate_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// machines enumerates Machines over the conditions that drive phase and lastOperation, every
// previous lastOperation (a few of them with deletion) and with or without deletion, and calls f
// on each.
func machines(f func(name string, m *v1alpha1.Machine)) {
	none := metav1.Condition{}
	choices := [][]metav1.Condition{
		{none, cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10), cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 11), cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 1)},
		{none, cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5), cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 2), cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 3, "boom")},
		{none, cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 20), cond(updating, F, v1alpha1.MachineNotUpdatingReason, 21), cond(updating, F, v1alpha1.MachineUpdateFailedReason, 22)},
		{none, cond(draining, T, v1alpha1.MachineNodeCordonedReason, 30), cond(draining, F, v1alpha1.MachineNotDrainingReason, 31)},
		{none, cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 40), cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 41)},
		{none, cond(standby, T, v1alpha1.MachineStandbyRequestedReason, 1)},
	}
	prevs := []*v1alpha1.LastOperation{nil}
	for _, t := range v1alpha1.MachineOperationTypes {
		for _, s := range v1alpha1.MachineOperationStates {
			prevs = append(prevs, op(t, s, "previous", 9))
		}
	}
	deletions := []func(*v1alpha1.Machine){
		func(*v1alpha1.Machine) {},
		deleted(50),
		func(m *v1alpha1.Machine) {
			deleted(50)(m)
			m.Status.Conditions = append(m.Status.Conditions, cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 51))
		},
	}
	idx := make([]int, len(choices))
	for {
		var list []metav1.Condition
		for i, j := range idx {
			if c := choices[i][j]; c.Type != "" {
				list = append(list, c)
			}
		}
		for pi, prev := range prevs {
			for di, del := range deletions {
				if di > 0 && prev != nil && (prev.Type != deleteOp || prev.State == failed) && prev.Type != create {
					continue // rule 1 ignores the previous value, except for its lastUpdated
				}
				m := machine(append([]metav1.Condition(nil), list...), withBootstrap, del)
				m.Status.LastOperation = prev.DeepCopy()
				f(fmt.Sprintf("conds=%v prev=%d deletion=%d", idx, pi, di), m)
			}
		}
		// Next combination.
		i := 0
		for ; i < len(idx); i++ {
			idx[i]++
			if idx[i] < len(choices[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			return
		}
	}
}

// TestProperties checks, over every enumerated Machine: LastOperation is a fixed point,
// Summarize is idempotent, Deleting/Deleted need a deletionTimestamp, and Failed (without
// deletion) is exactly the presence of a terminal signal.
func TestProperties(t *testing.T) {
	clock := conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(100).Time)}
	later := conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(200).Time)}
	count := 0
	machines(func(name string, m *v1alpha1.Machine) {
		count++
		got := aggregate.LastOperation(m)
		again := m.DeepCopy()
		again.Status.LastOperation = got.DeepCopy()
		if second := aggregate.LastOperation(again); !equality.Semantic.DeepEqual(got, second) {
			t.Errorf("%s: LastOperation is not a fixed point (-first +second):\n%s", name, cmp.Diff(got, second))
		}

		phase := aggregate.Phase(m)
		if m.DeletionTimestamp == nil && (phase == v1alpha1.MachinePhaseDeleting || phase == v1alpha1.MachinePhaseDeleted) {
			t.Errorf("%s: phase %s without a deletionTimestamp", name, phase)
		}
		terminal := conditions.IsFalse(m, hcSucceeded) ||
			conditions.GetReason(m, infraReady) == v1alpha1.MachineInfrastructureFailedReason ||
			conditions.GetReason(m, updating) == v1alpha1.MachineUpdateFailedReason
		if m.DeletionTimestamp == nil && terminal != (phase == v1alpha1.MachinePhaseFailed) {
			t.Errorf("%s: phase %s, terminal signal %v", name, phase, terminal)
		}

		aggregate.Summarize(m, clock)
		first := m.DeepCopy()
		if aggregate.Summarize(m, later) {
			t.Errorf("%s: second Summarize() = true, diff (-first +second):\n%s", name, cmp.Diff(first, m))
		}
	})
	if count < 10000 {
		t.Errorf("enumerated only %d Machines", count)
	}
}
