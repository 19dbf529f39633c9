package aggregate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// ready is the Ready condition Summarize writes at(100) on a Machine of generation 1.
func ready(s metav1.ConditionStatus, reason, message string) *metav1.Condition {
	return &metav1.Condition{Type: "Ready", Status: s, Reason: reason, Message: message,
		ObservedGeneration: 1, LastTransitionTime: at(100)}
}

// healthy are the conditions of a Machine whose Node is Ready and healthy.
func healthy() []metav1.Condition {
	return conds(
		cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
		cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
		cond(nodeHealthy, T, v1alpha1.MachineNodeHealthyReason, 10),
		cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 10),
	)
}

func gates(g ...v1alpha1.MachineReadinessGate) func(*v1alpha1.Machine) {
	return func(m *v1alpha1.Machine) { m.Spec.ReadinessGates = g }
}

func with(list []metav1.Condition, more ...metav1.Condition) []metav1.Condition {
	return append(list, more...)
}

func TestSummarize(t *testing.T) {
	createdOK := op(create, successful, "Created: the Node is Ready", 10)
	tests := []struct {
		name      string
		m         *v1alpha1.Machine
		wantReady *metav1.Condition
		wantPhase v1alpha1.MachinePhase
		wantOp    *v1alpha1.LastOperation
	}{
		{
			name: "new Machine: nothing reported is Unknown, never True",
			m:    machine(nil),
			wantReady: ready(U, conditions.MultipleUnknownReportedReason,
				"HealthCheckSucceeded: not yet reported; InfrastructureReady: not yet reported; NodeHealthy: not yet reported; and 1 more"),
			wantPhase: v1alpha1.MachinePhasePending,
			wantOp:    op(create, processing, "Waiting for infrastructure to be provisioned", 0),
		},
		{
			name:      "healthy Machine: Ready True, Running, Create Successful (Deleting ignored when missing)",
			m:         machine(healthy()),
			wantReady: ready(T, conditions.NoIssuesReportedReason, ""),
			wantPhase: v1alpha1.MachinePhaseRunning,
			wantOp:    createdOK,
		},
		{
			name: "bootstrap in scope when spec.bootstrap is set",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapConfigNotReadyReason, 1, "no data secret yet"),
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 1),
				cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 1),
				cond(nodeHealthy, U, v1alpha1.MachineNodeHealthUnknownReason, 1),
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 1),
			), withBootstrap),
			wantReady: ready(F, conditions.MultipleIssuesReportedReason,
				"BootstrapConfigReady: no data secret yet; InfrastructureReady: InfrastructureNotProvisioned; NodeHealthy: NodeHealthUnknown; and 1 more"),
			wantPhase: v1alpha1.MachinePhaseProvisioning,
			wantOp:    op(create, processing, "Waiting for bootstrap data: no data secret yet", 0),
		},
		{
			name:      "bootstrap out of scope without spec.bootstrap",
			m:         machine(with(healthy(), cond(bootstrapReady, F, v1alpha1.MachineBootstrapConfigNotReadyReason, 1))),
			wantReady: ready(T, conditions.NoIssuesReportedReason, ""),
			wantPhase: v1alpha1.MachinePhaseRunning,
			wantOp:    createdOK,
		},
		{
			name:      "deletionTimestamp without Deleting yet: Deleting counts as not yet reported",
			m:         machine(healthy(), deleted(50), prevOp(create, successful, "Created: the Node is Ready", 10)),
			wantReady: ready(U, conditions.NotYetReportedReason, "Deleting: not yet reported"),
			wantPhase: v1alpha1.MachinePhaseDeleting,
			wantOp:    op(deleteOp, processing, "Deletion in progress", 50),
		},
		{
			name: "deleting: Deleting True is an issue",
			m: machine(with(healthy(), cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 51, "draining Node m")),
				deleted(50), prevOp(create, successful, "Created: the Node is Ready", 10)),
			wantReady: ready(F, conditions.IssueReportedReason, "Deleting: draining Node m"),
			wantPhase: v1alpha1.MachinePhaseDeleting,
			wantOp:    op(deleteOp, processing, "Deletion in progress: draining Node m", 51),
		},
		{
			name: "not deleting: Deleting False is fine",
			m: machine(with(healthy(), cond(deleting, F, v1alpha1.MachineNotDeletingReason, 0)),
				prevOp(create, successful, "Created: the Node is Ready", 10)),
			wantReady: ready(T, conditions.NoIssuesReportedReason, ""),
			wantPhase: v1alpha1.MachinePhaseRunning,
			wantOp:    createdOK,
		},
		{
			name: "readiness gates: missing positive gate, True negative gate",
			m: machine(with(healthy(), cond("example.com/Maintenance", T, "Scheduled", 20)),
				gates(
					v1alpha1.MachineReadinessGate{ConditionType: "example.com/Network", Polarity: v1alpha1.PositiveConditionPolarity},
					v1alpha1.MachineReadinessGate{ConditionType: "example.com/Maintenance", Polarity: v1alpha1.NegativeConditionPolarity},
				), prevOp(create, successful, "Created: the Node is Ready", 10)),
			wantReady: ready(F, conditions.IssueReportedReason, "example.com/Maintenance: Scheduled; example.com/Network: not yet reported"),
			wantPhase: v1alpha1.MachinePhaseRunning,
			wantOp:    createdOK,
		},
		{
			name: "readiness gates: Ready and invalid types are skipped, built-in types keep their polarity, empty polarity takes the catalog's",
			m: machine(with(healthy(), cond(updating, F, v1alpha1.MachineNotUpdatingReason, 0)),
				gates(
					v1alpha1.MachineReadinessGate{ConditionType: "Ready"},
					v1alpha1.MachineReadinessGate{ConditionType: "not a type!"},
					v1alpha1.MachineReadinessGate{ConditionType: nodeReady, Polarity: v1alpha1.NegativeConditionPolarity},
					v1alpha1.MachineReadinessGate{ConditionType: updating},
				), prevOp(create, successful, "Created: the Node is Ready", 10)),
			wantReady: ready(T, conditions.NoIssuesReportedReason, ""),
			wantPhase: v1alpha1.MachinePhaseRunning,
			wantOp:    createdOK,
		},
		{
			name: "failed health check",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 30, "Kubelet stopped posting node status."),
				cond(nodeHealthy, U, v1alpha1.MachineNodeHealthUnknownReason, 30),
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 35, "Node Ready=Unknown for more than 5m"),
			), prevOp(healthCheck, processing, "Node is not Ready", 30)),
			wantReady: ready(F, conditions.IssueReportedReason,
				"HealthCheckSucceeded: Node Ready=Unknown for more than 5m; NodeHealthy: NodeHealthUnknown; NodeReady: Kubelet stopped posting node status."),
			wantPhase: v1alpha1.MachinePhaseFailed,
			wantOp:    op(healthCheck, failed, "Health check failed (UnhealthyNode): Node Ready=Unknown for more than 5m", 35),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m.DeepCopy()
			if !aggregate.Summarize(m, at(100).Time) {
				t.Errorf("first Summarize() = false, want true")
			}
			if diff := cmp.Diff(tt.wantReady, conditions.Get(m, v1alpha1.MachineReadyCondition)); diff != "" {
				t.Errorf("Ready (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPhase, m.Status.Phase); diff != "" {
				t.Errorf("phase (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOp, m.Status.LastOperation); diff != "" {
				t.Errorf("lastOperation (-want +got):\n%s", diff)
			}
			if err := validateAll(m.Status.Conditions); err != nil {
				t.Errorf("invalid condition written: %v", err)
			}

			// Idempotent: a second run, even with a later clock, changes nothing.
			first := m.DeepCopy()
			if aggregate.Summarize(m, at(200).Time) {
				t.Errorf("second Summarize() = true, want false")
			}
			if diff := cmp.Diff(first, m); diff != "" {
				t.Errorf("second Summarize() changed the Machine (-first +second):\n%s", diff)
			}
		})
	}
}

func TestSummarizeNil(t *testing.T) {
	if aggregate.Summarize(nil, time.Time{}) {
		t.Errorf("Summarize(nil) = true, want false")
	}
}

func validateAll(list []metav1.Condition) error {
	for _, c := range list {
		if err := conditions.Validate(c); err != nil {
			return err
		}
	}
	return nil
}
