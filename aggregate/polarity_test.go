package aggregate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

func TestConditionPolarity(t *testing.T) {
	const (
		pos = v1alpha1.PositiveConditionPolarity
		neg = v1alpha1.NegativeConditionPolarity
	)
	gate := func(t string, p v1alpha1.ConditionPolarity) v1alpha1.MachineReadinessGate {
		return v1alpha1.MachineReadinessGate{ConditionType: t, Polarity: p}
	}
	tests := []struct {
		name  string
		typ   string
		gates []v1alpha1.MachineReadinessGate
		want  v1alpha1.ConditionPolarity
	}{
		{"catalog negative, no gate", v1alpha1.MachineDeletingCondition, nil, neg},
		{"catalog negative: Updating", v1alpha1.MachineUpdatingCondition, nil, neg},
		{"catalog negative: Paused", v1alpha1.MachinePausedCondition, nil, neg},
		{"catalog positive: NodeReady", v1alpha1.MachineNodeReadyCondition, nil, pos},
		{"unknown type: positive (API conventions)", "example.com/NetworkReady", nil, pos},
		{"gate declares Negative on a foreign type", "example.com/Degraded", []v1alpha1.MachineReadinessGate{gate("example.com/Degraded", neg)}, neg},
		{"gate without polarity takes the catalog's", v1alpha1.MachineStandbyCondition, []v1alpha1.MachineReadinessGate{gate(v1alpha1.MachineStandbyCondition, "")}, neg},
		{"gate declares Positive on a catalog-negative type: the spec wins", v1alpha1.MachineStandbyCondition, []v1alpha1.MachineReadinessGate{gate(v1alpha1.MachineStandbyCondition, pos)}, pos},
		{"gate declares Negative on a catalog-positive type: the spec wins", "Available", []v1alpha1.MachineReadinessGate{gate("Available", neg)}, neg},
		{"a built-in type of Ready's scope keeps its polarity: Deleting", v1alpha1.MachineDeletingCondition, []v1alpha1.MachineReadinessGate{gate(v1alpha1.MachineDeletingCondition, pos)}, neg},
		{"a built-in type of Ready's scope keeps its polarity: NodeReady", v1alpha1.MachineNodeReadyCondition, []v1alpha1.MachineReadinessGate{gate(v1alpha1.MachineNodeReadyCondition, neg)}, pos},
		{"another type's gate does not apply", "example.com/Degraded", []v1alpha1.MachineReadinessGate{gate("example.com/Other", neg)}, pos},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, aggregate.ConditionPolarity(tt.typ, tt.gates)); diff != "" {
				t.Errorf("ConditionPolarity(%q) (-want +got):\n%s", tt.typ, diff)
			}
		})
	}
}

// TestSummarizeGateDeclaredPositiveWins is issue 12's instance: a gate declared Positive on a
// type the catalog registers as negative is read as Positive by Ready.
func TestSummarizeGateDeclaredPositiveWins(t *testing.T) {
	m := steadyRunning(t)
	m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: v1alpha1.MachineStandbyCondition, Polarity: v1alpha1.PositiveConditionPolarity}}
	clock := at(13).Time
	if _, err := conditions.Set(m, cond(v1alpha1.MachineStandbyCondition, T, "Parked", 13), clockAt(clock)); err != nil {
		t.Fatal(err)
	}
	aggregate.Summarize(m, clock)
	if ready := conditions.Get(m, v1alpha1.MachineReadyCondition); ready == nil || ready.Status != T {
		t.Fatalf("Ready = %+v, want True: the gate declares Standby positive and it is True", ready)
	}
	if _, err := conditions.Set(m, cond(v1alpha1.MachineStandbyCondition, F, "Unparked", 14), clockAt(clock)); err != nil {
		t.Fatal(err)
	}
	aggregate.Summarize(m, clock)
	if ready := conditions.Get(m, v1alpha1.MachineReadyCondition); ready == nil || ready.Status != F || ready.Reason != conditions.IssueReportedReason {
		t.Fatalf("Ready = %+v, want False/IssueReported: the positive gate's condition is False", ready)
	}
}
