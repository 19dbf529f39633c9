package aggregate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestSummarizeSkipsGateTheSummaryRefuses: a readiness gate whose type is a qualified name but
// too long for a condition (317 characters) is skipped, and Ready is still written.
func TestSummarizeSkipsGateTheSummaryRefuses(t *testing.T) {
	long := strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63)
	m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{ReadinessGates: []v1alpha1.MachineReadinessGate{{ConditionType: long}}}}
	aggregate.Summarize(m, time.Time{})
	if !conditions.Has(m, v1alpha1.MachineReadyCondition) {
		t.Fatal("Ready was not written")
	}
}

// TestSummarizeSkipsStalledGate: Stalled is derived from the phase after Ready, so a gate on it
// (as a Cluster API Machine may carry) is skipped; otherwise Summarize would need two passes
// to settle a Failed Machine.
func TestSummarizeSkipsStalledGate(t *testing.T) {
	m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{ReadinessGates: []v1alpha1.MachineReadinessGate{{ConditionType: v1alpha1.MachineStalledCondition}}}}
	if _, err := conditions.MarkFalse(m, v1alpha1.MachineHealthCheckSucceededCondition, v1alpha1.MachineHealthCheckUnhealthyNodeReason, "Node Ready=False for more than 5m"); err != nil {
		t.Fatal(err)
	}
	aggregate.Summarize(m, time.Time{})
	if m.Status.Phase != v1alpha1.MachinePhaseFailed || !conditions.IsTrue(m, v1alpha1.MachineStalledCondition) {
		t.Fatalf("want phase Failed with Stalled=True, got phase %s", m.Status.Phase)
	}
	if aggregate.Summarize(m, time.Time{}) {
		t.Fatal("a second Summarize changed the Machine: the Stalled gate was read")
	}
}
