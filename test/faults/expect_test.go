//go:build faults

package faults

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// inputState is what a test made of a Machine's inputs (its Node, SimMachine and spec).
type inputState int

const (
	// healthy: the Node is Ready, schedulable, at the wanted version.
	healthy inputState = iota
	// notReady: kwok reports the Node Ready=False (inside the 300 s health-check timeout).
	notReady
	// cordoned: the Node is unschedulable.
	cordoned
	// upgrading: the kubelet version differs from spec.version.
	upgrading
)

func (s inputState) String() string {
	return [...]string{"healthy", "notReady", "cordoned", "upgrading"}[s]
}

// expectation is the phase and the condition statuses that an input state calls for.
type expectation struct {
	phase      v1alpha1.MachinePhase
	conditions map[string]metav1.ConditionStatus
}

var expectations = map[inputState]expectation{
	healthy: {v1alpha1.MachinePhaseRunning, map[string]metav1.ConditionStatus{
		v1alpha1.MachineReadyCondition: metav1.ConditionTrue, v1alpha1.MachineNodeReadyCondition: metav1.ConditionTrue,
		v1alpha1.MachineDrainingCondition: metav1.ConditionFalse, v1alpha1.MachineUpdatingCondition: metav1.ConditionFalse,
		v1alpha1.MachineHealthCheckSucceededCondition: metav1.ConditionTrue,
	}},
	notReady: {v1alpha1.MachinePhaseUnknown, map[string]metav1.ConditionStatus{
		v1alpha1.MachineReadyCondition: metav1.ConditionFalse, v1alpha1.MachineNodeReadyCondition: metav1.ConditionFalse,
		v1alpha1.MachineDrainingCondition: metav1.ConditionFalse, v1alpha1.MachineUpdatingCondition: metav1.ConditionFalse,
	}},
	cordoned: {v1alpha1.MachinePhaseDraining, map[string]metav1.ConditionStatus{
		v1alpha1.MachineNodeReadyCondition: metav1.ConditionTrue, v1alpha1.MachineDrainingCondition: metav1.ConditionTrue,
		v1alpha1.MachineUpdatingCondition: metav1.ConditionFalse,
	}},
	upgrading: {v1alpha1.MachinePhaseUpdating, map[string]metav1.ConditionStatus{
		v1alpha1.MachineNodeReadyCondition: metav1.ConditionTrue, v1alpha1.MachineDrainingCondition: metav1.ConditionFalse,
		v1alpha1.MachineUpdatingCondition: metav1.ConditionTrue,
	}},
}

// check returns why m's status is not what state s calls for, or "" when it is: the phase and
// the conditions of the expectation, and a status consistent with the pure derivation
// (aggregate.Summarize changes nothing in it: Ready, lastOperation and phase are what its own
// conditions give).
func check(m *v1alpha1.Machine, s inputState) string {
	want := expectations[s]
	if m.Status.Phase != want.phase {
		return fmt.Sprintf("phase %q, want %q (%s)", m.Status.Phase, want.phase, s)
	}
	for t, st := range want.conditions {
		c := conditions.Get(m, t)
		if c == nil {
			return fmt.Sprintf("no %s condition (%s)", t, s)
		}
		if c.Status != st {
			return fmt.Sprintf("%s=%s, want %s (%s)", t, c.Status, st, s)
		}
	}
	if m.Status.ObservedGeneration != m.Generation {
		return fmt.Sprintf("observedGeneration %d of generation %d", m.Status.ObservedGeneration, m.Generation)
	}
	if aggregate.Summarize(m.DeepCopy(), time.Time{}) {
		return "phase, Ready or lastOperation disagree with the Machine's own conditions"
	}
	return ""
}
