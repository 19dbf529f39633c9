package aggregate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestSummarizeGateGenerations: a readiness gate that reports fine for an older generation
// than the Machine's does not make Ready True; one without observedGeneration keeps the
// behaviour it always had.
func TestSummarizeGateGenerations(t *testing.T) {
	const network = "example.com/NetworkReady"
	const quota = "example.com/QuotaExceeded"
	gate := func(t string, p v1alpha1.ConditionPolarity) v1alpha1.MachineReadinessGate {
		return v1alpha1.MachineReadinessGate{ConditionType: t, Polarity: p}
	}
	observed := func(c metav1.Condition, generation int64) metav1.Condition {
		c.ObservedGeneration = generation
		return c
	}
	generation := func(g int64) func(*v1alpha1.Machine) {
		return func(m *v1alpha1.Machine) { m.Generation = g }
	}
	readyAt := func(s metav1.ConditionStatus, reason, message string) *metav1.Condition {
		return &metav1.Condition{Type: v1alpha1.MachineReadyCondition, Status: s, Reason: reason, Message: message,
			ObservedGeneration: 3, LastTransitionTime: at(100)}
	}
	tests := []struct {
		name string
		m    *v1alpha1.Machine
		want *metav1.Condition
	}{
		{
			name: "issue 12 instance: gate True for generation 2, Machine at 3: not True",
			m: machine(with(healthy(), observed(cond(network, T, "NetworkAttached", 20), 2)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(U, conditions.UnknownReportedReason,
				"example.com/NetworkReady: True for generation 2, not yet observed for generation 3"),
		},
		{
			name: "gate True for the current generation: True",
			m: machine(with(healthy(), observed(cond(network, T, "NetworkAttached", 20), 3)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "gate without observedGeneration: read as it is (True)",
			m: machine(with(healthy(), cond(network, T, "NetworkAttached", 20)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "gate ahead of the Machine we read (our cache lags): read as it is",
			m: machine(with(healthy(), observed(cond(network, T, "NetworkAttached", 20), 4)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "gate False for an older generation: still an issue, its own message",
			m: machine(with(healthy(), observed(cond(network, F, "NetworkDetached", 20, "NIC eth1 is down"), 2)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(F, conditions.IssueReportedReason, "example.com/NetworkReady: NIC eth1 is down"),
		},
		{
			name: "gate Unknown for an older generation: Unknown, its own message",
			m: machine(with(healthy(), observed(cond(network, U, "NetworkProbing", 20, "probing"), 2)),
				generation(3), gates(gate(network, ""))),
			want: readyAt(U, conditions.UnknownReportedReason, "example.com/NetworkReady: probing"),
		},
		{
			name: "negative gate False (fine) for an older generation: not True",
			m: machine(with(healthy(), observed(cond(quota, F, "WithinQuota", 20), 1)),
				generation(3), gates(gate(quota, v1alpha1.NegativeConditionPolarity))),
			want: readyAt(U, conditions.UnknownReportedReason,
				"example.com/QuotaExceeded: False for generation 1, not yet observed for generation 3"),
		},
		{
			name: "two stale gates",
			m: machine(with(healthy(),
				observed(cond(network, T, "NetworkAttached", 20), 2),
				observed(cond(quota, F, "WithinQuota", 20), 2)),
				generation(3), gates(gate(network, ""), gate(quota, v1alpha1.NegativeConditionPolarity))),
			want: readyAt(U, conditions.MultipleUnknownReportedReason,
				"example.com/NetworkReady: True for generation 2, not yet observed for generation 3; "+
					"example.com/QuotaExceeded: False for generation 2, not yet observed for generation 3"),
		},
		{
			name: "a stale condition that is not a gate is not read",
			m: machine(with(healthy(), observed(cond(network, T, "NetworkAttached", 20), 2)),
				generation(3)),
			want: readyAt(T, conditions.NoIssuesReportedReason, ""),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := tt.m.DeepCopy()
			clk := at(100).Time
			aggregate.Summarize(tt.m, clk)
			if diff := cmp.Diff(tt.want, conditions.Get(tt.m, v1alpha1.MachineReadyCondition)); diff != "" {
				t.Errorf("Ready (-want +got):\n%s", diff)
			}
			// The gate itself is never modified.
			for _, g := range stored.Spec.ReadinessGates {
				if diff := cmp.Diff(conditions.Get(stored, g.ConditionType), conditions.Get(tt.m, g.ConditionType)); diff != "" {
					t.Errorf("gate %s modified (-stored +got):\n%s", g.ConditionType, diff)
				}
			}
			if aggregate.Summarize(tt.m, clk) {
				t.Error("a second Summarize changed the Machine")
			}
		})
	}
}
