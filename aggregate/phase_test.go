package aggregate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestPhase(t *testing.T) {
	created := prevOp(create, successful, "Created: the Node is Ready", 10)
	tests := []struct {
		name string
		m    *v1alpha1.Machine
		want v1alpha1.MachinePhase
	}{
		// Row 1: Deleted.
		{
			name: "1 Deleted: deletionTimestamp and DeletionCompleted",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 60),
			), deleted(50)),
			want: v1alpha1.MachinePhaseDeleted,
		},
		{
			name: "1 Deleted needs a deletionTimestamp",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 60),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), created),
			want: v1alpha1.MachinePhaseRunning,
		},
		// Row 2: Deleting.
		{
			name: "2 Deleting: deletionTimestamp, deletion in progress",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 50),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), deleted(50), created),
			want: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "2 Deleting: deletionTimestamp without a Deleting condition yet",
			m:    machine(nil, deleted(50)),
			want: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "2 Deleting beats 3 Failed",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, 50),
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 40),
			), deleted(50), created),
			want: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "2 Deleting needs a deletionTimestamp",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 50),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), created),
			want: v1alpha1.MachinePhaseRunning,
		},
		// Row 3: Failed.
		{
			name: "3 Failed: HealthCheckSucceeded False",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 40),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 30),
			), created),
			want: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "3 Failed: InfrastructureFailed during creation",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 5),
			)),
			want: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "3 Failed: BootstrapFailed",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapFailedReason, 5),
			), withBootstrap),
			want: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "3 Failed: a terminal reason counts whatever the status",
			m: machine(conds(
				cond(updating, U, v1alpha1.MachineUpdateFailedReason, 45),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), created),
			want: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "3 Failed beats 4 Standby",
			m: machine(conds(
				cond(standby, T, v1alpha1.MachineStandbyRequestedReason, 20),
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 40),
			), created),
			want: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "3 Failed is not sticky: the signal is gone",
			m: machine(conds(
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 50),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 49),
			), prevOp(healthCheck, failed, "Health check failed", 40), func(m *v1alpha1.Machine) {
				m.Status.Phase = v1alpha1.MachinePhaseFailed
			}),
			want: v1alpha1.MachinePhaseRunning,
		},
		// Row 4: Standby.
		{
			name: "4 Standby",
			m: machine(conds(
				cond(standby, T, v1alpha1.MachineStandbyRequestedReason, 20),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 20),
			), created),
			want: v1alpha1.MachinePhaseStandby,
		},
		{
			name: "4 Standby beats 5 Draining",
			m: machine(conds(
				cond(standby, T, v1alpha1.MachineStandbyRequestedReason, 20),
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 20),
			), created),
			want: v1alpha1.MachinePhaseStandby,
		},
		// Row 5: Draining.
		{
			name: "5 Draining beats 6 Updating",
			m: machine(conds(
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 20),
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 20),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), created),
			want: v1alpha1.MachinePhaseDraining,
		},
		// Row 6: Updating.
		{
			name: "6 Updating beats 7 Running",
			m: machine(conds(
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 20),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), created),
			want: v1alpha1.MachinePhaseUpdating,
		},
		// Row 7: Running.
		{
			name: "7 Running",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
				cond(standby, F, v1alpha1.MachineNotInStandbyReason, 0),
				cond(draining, F, v1alpha1.MachineNotDrainingReason, 0),
				cond(updating, F, v1alpha1.MachineNotUpdatingReason, 0),
			), created),
			want: v1alpha1.MachinePhaseRunning,
		},
		{
			name: "7 Running on the first computation (creation finishes now)",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			)),
			want: v1alpha1.MachinePhaseRunning,
		},
		// Row 8: Unknown.
		{
			name: "8 Unknown: created, Node NotReady",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 30),
			), created),
			want: v1alpha1.MachinePhaseUnknown,
		},
		{
			name: "8 Unknown: created, Node deleted (NodeReady Unknown)",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, U, v1alpha1.MachineNodeDeletedReason, 30),
			), prevOp(healthCheck, processing, "Node is not Ready", 30)),
			want: v1alpha1.MachinePhaseUnknown,
		},
		{
			name: "8 Unknown beats 9 Provisioned only once creation has finished",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 0),
			), prevOp(create, processing, "Waiting for the Node to become Ready", 0)),
			want: v1alpha1.MachinePhaseProvisioned,
		},
		// Row 9: Provisioned.
		{
			name: "9 Provisioned: no previous operation, infrastructure ready",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 0),
			)),
			want: v1alpha1.MachinePhaseProvisioned,
		},
		{
			name: "9 Provisioned beats 10 Provisioning",
			m: machine(conds(
				cond(bootstrapReady, T, v1alpha1.MachineBootstrapDataSecretCreatedReason, 2),
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
			), withBootstrap),
			want: v1alpha1.MachinePhaseProvisioned,
		},
		// Row 10: Provisioning.
		{
			name: "10 Provisioning: bootstrap data ready",
			m: machine(conds(
				cond(bootstrapReady, T, v1alpha1.MachineBootstrapDataSecretCreatedReason, 2),
				cond(infraReady, U, v1alpha1.MachineInfrastructureDoesNotExistReason, 0),
			), withBootstrap),
			want: v1alpha1.MachinePhaseProvisioning,
		},
		{
			name: "10 Provisioning: infrastructure exists and is being provisioned",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 1),
			)),
			want: v1alpha1.MachinePhaseProvisioning,
		},
		// Row 11: Pending.
		{
			name: "11 Pending: no conditions",
			m:    machine(nil),
			want: v1alpha1.MachinePhasePending,
		},
		{
			name: "11 Pending: infrastructure does not exist (Unknown is not provisioning)",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapConfigNotReadyReason, 0),
				cond(infraReady, U, v1alpha1.MachineInfrastructureDoesNotExistReason, 0),
			), withBootstrap),
			want: v1alpha1.MachinePhasePending,
		},
		{
			name: "11 Pending: nil Machine",
			m:    nil,
			want: v1alpha1.MachinePhasePending,
		},
	}
	reached := map[v1alpha1.MachinePhase]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.m.DeepCopy()
			got := aggregate.Phase(tt.m)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Phase() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.m); diff != "" {
				t.Errorf("Phase() modified the Machine (-before +after):\n%s", diff)
			}
		})
		reached[tt.want] = true
	}
	t.Run("every phase is reachable", func(t *testing.T) {
		var missing []v1alpha1.MachinePhase
		for _, p := range v1alpha1.MachinePhases() {
			if !reached[p] {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 || len(reached) != len(v1alpha1.MachinePhases()) {
			t.Errorf("phases without a test case: %v (reached %d of %d)", missing, len(reached), len(v1alpha1.MachinePhases()))
		}
	})
}

// TestPhaseRows: the phase table has one row per phase, in v1alpha1.MachinePhases' order, each
// saying when it applies; the last row, Pending, matches every Machine.
func TestPhaseRows(t *testing.T) {
	var phases []v1alpha1.MachinePhase
	for _, r := range aggregate.PhaseRows() {
		phases = append(phases, r.Phase)
		if r.When == "" {
			t.Errorf("row %s: no text", r.Phase)
		}
	}
	if d := cmp.Diff(v1alpha1.MachinePhases(), phases); d != "" {
		t.Errorf("PhaseRows' phases (-MachinePhases +rows):\n%s", d)
	}
	if got := aggregate.Phase(&v1alpha1.Machine{}); got != v1alpha1.MachinePhasePending {
		t.Errorf("Phase of a Machine without status = %s, want Pending", got)
	}
}
