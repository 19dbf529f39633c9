package aggregate_test

import (
	"strings"
	"testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestSummarizeSkipsGateTheSummaryRefuses: a readiness gate whose type is a qualified name but
// too long for a condition (317 characters) is skipped, and Ready is still written.
func TestSummarizeSkipsGateTheSummaryRefuses(t *testing.T) {
	long := strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63)
	m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{ReadinessGates: []v1alpha1.MachineReadinessGate{{ConditionType: long}}}}
	aggregate.Summarize(m)
	if !conditions.Has(m, v1alpha1.MachineReadyCondition) {
		t.Fatal("Ready was not written")
	}
}
