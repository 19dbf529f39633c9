package aggregate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestLastOperationFailures: for each operation, the failures real Machines report, how each
// reaches Failed (description, lastUpdated) and how it leaves it (Failed is never sticky).
// The clock reads minute `observed`: a change no lastTransitionTime dates (a reason changed,
// or the deciding condition had already changed before the stored lastOperation) is dated
// then.
func TestLastOperationFailures(t *testing.T) {
	const pdb = "Cannot evict pod as it would violate the pod's disruption budget: default/web-0"
	const auth = "AuthFailure: could not validate the credentials"
	nodeOK := cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10)
	tests := []struct {
		name  string
		m     *v1alpha1.Machine
		want  *v1alpha1.LastOperation
		phase v1alpha1.MachinePhase
	}{
		// Update.
		{
			name: "issue 12 instance A: Updating stays True, only the reason becomes UpdateFailed: dated at the change, not at t=100",
			m: machine(conds(nodeOK,
				cond(updating, T, v1alpha1.MachineUpdateFailedReason, 100, "image pull failed"),
			), prevOp(update, processing, "Update in progress", 100)),
			want:  op(update, failed, "Update failed: Updating is True (UpdateFailed): image pull failed", observed),
			phase: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "Update: Updating turns False with UpdateFailed",
			m: machine(conds(nodeOK,
				cond(updating, F, v1alpha1.MachineUpdateFailedReason, 500),
			), prevOp(update, processing, "Update in progress", 100)),
			want:  op(update, failed, "Update failed: Updating is False (UpdateFailed)", observed),
			phase: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "Update Failed is retried: back to Processing, dated when observed (Updating did not transition)",
			m: machine(conds(nodeOK,
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 100, "kubelet is v1.30.1, want v1.30.2"),
			), prevOp(update, failed, "Update failed", 500)),
			want:  op(update, processing, "Update in progress: kubelet is v1.30.1, want v1.30.2", observed),
			phase: v1alpha1.MachinePhaseUpdating,
		},
		{
			name: "Update Failed clears when Updating turns False without UpdateFailed",
			m: machine(conds(nodeOK,
				cond(updating, F, v1alpha1.MachineNotUpdatingReason, 600),
			), prevOp(update, failed, "Update failed", 500)),
			want:  op(update, successful, "Update completed", 600),
			phase: v1alpha1.MachinePhaseRunning,
		},

		// Create.
		{
			name: "Create: infrastructure that was provisioning reports InfrastructureFailed (status unchanged since t=1)",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 1, "InsufficientInstanceCapacity"),
			), prevOp(create, processing, "Waiting for infrastructure to be provisioned", 0)),
			want:  op(create, failed, "Creation failed: InfrastructureReady is False (InfrastructureFailed): InsufficientInstanceCapacity", observed),
			phase: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "Create: the bootstrap provider reports BootstrapFailed",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapFailedReason, 2, "join token expired"),
			), withBootstrap, prevOp(create, processing, "Waiting for bootstrap data", 0)),
			want:  op(create, failed, "Creation failed: BootstrapConfigReady is False (BootstrapFailed): join token expired", observed),
			phase: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "Create: no Node within the startup timeout, at HealthCheckSucceeded's transition",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckNodeStartupTimeoutReason, 20, "no Node within 600s"),
			), prevOp(create, processing, "Waiting for the Node to become Ready", 0)),
			want:  op(create, failed, "Creation failed: Health check failed (NodeStartupTimeout): no Node within 600s", 20),
			phase: v1alpha1.MachinePhaseFailed,
		},

		// HealthCheck.
		{
			name: "HealthCheck: a Node NotReady past its timeout, at HealthCheckSucceeded's transition",
			m: machine(conds(
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 25),
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 30, "Node Ready=False for more than 300s"),
			), prevOp(healthCheck, processing, "Node is not Ready", 25)),
			want:  op(healthCheck, failed, "Health check failed (UnhealthyNode): Node Ready=False for more than 300s", 30),
			phase: v1alpha1.MachinePhaseFailed,
		},
		{
			name: "HealthCheck: the provider reports the instance terminated after creation",
			m: machine(conds(nodeOK,
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 5, "instance i-0aaa terminated"),
			), prevOp(create, successful, "Created", 10)),
			want:  op(healthCheck, failed, "Terminal failure: InfrastructureReady is False (InfrastructureFailed): instance i-0aaa terminated", observed),
			phase: v1alpha1.MachinePhaseFailed,
		},

		// DrainNode.
		{
			name: "DrainNode: the drainer reports DrainingFailed (evictions refused by a PodDisruptionBudget)",
			m: machine(conds(nodeOK,
				cond(draining, T, v1alpha1.MachineDrainingFailedReason, 40, pdb),
			), prevOp(drainNode, processing, "Node is cordoned", 40)),
			want:  op(drainNode, failed, "Drain failed: "+pdb, observed),
			phase: v1alpha1.MachinePhaseDraining,
		},
		{
			name: "DrainNode: a drainer that gave up and uncordoned still reports the failure",
			m: machine(conds(nodeOK,
				cond(draining, F, v1alpha1.MachineDrainingFailedReason, 45, "drain timeout 600s exceeded"),
			), prevOp(drainNode, processing, "Node is cordoned", 40)),
			want:  op(drainNode, failed, "Drain failed: drain timeout 600s exceeded", observed),
			phase: v1alpha1.MachinePhaseRunning,
		},
		{
			name: "DrainNode Failed is retried: back to Processing, dated when observed",
			m: machine(conds(nodeOK,
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 40),
			), prevOp(drainNode, failed, "Drain failed", 900)),
			want:  op(drainNode, processing, "Node is cordoned or being drained: NodeCordoned", observed),
			phase: v1alpha1.MachinePhaseDraining,
		},
		{
			name: "DrainNode Failed clears when the Node is schedulable again",
			m: machine(conds(nodeOK,
				cond(draining, F, v1alpha1.MachineNotDrainingReason, 950),
			), prevOp(drainNode, failed, "Drain failed", 900)),
			want:  op(drainNode, successful, "Node is schedulable again", 950),
			phase: v1alpha1.MachinePhaseRunning,
		},

		// Delete.
		{
			name: "issue 12 instance B: the infrastructure reports a failure while it is being deleted",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 52, auth),
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, 51, "waiting for the infrastructure to be deleted"),
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 51)),
			want:  op(deleteOp, failed, "Deletion failed: InfrastructureReady is False (InfrastructureFailed): "+auth, observed),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete: the drain during deletion fails",
			m: machine(conds(nodeOK,
				cond(draining, T, v1alpha1.MachineDrainingFailedReason, 55, pdb),
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 51),
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 51)),
			want:  op(deleteOp, failed, "Deletion failed: Draining is True (DrainingFailed): "+pdb, observed),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete: an infrastructure failure after the infrastructure is gone does not fail the deletion",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 52, auth),
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForNodeDeletionReason, 56, "waiting for Node n to be deleted"),
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 51)),
			want:  op(deleteOp, processing, "Deletion in progress: waiting for Node n to be deleted", 51),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete: a failed health check (the usual reason for a deletion) does not fail it",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 40),
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 51),
			), deleted(50), prevOp(healthCheck, failed, "Health check failed", 40)),
			want:  op(deleteOp, processing, "Deletion in progress: DrainingNode", 51),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete: a finalizer that never goes away reports no failure: Processing, lastUpdated kept",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, 51, "waiting for the infrastructure to be deleted"),
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 51)),
			want:  op(deleteOp, processing, "Deletion in progress: waiting for the infrastructure to be deleted", 51),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete Failed is not sticky: the failure report goes away, back to Processing, dated when observed",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 52, "deleting"),
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, 51),
			), deleted(50), prevOp(deleteOp, failed, "Deletion failed", 900)),
			want:  op(deleteOp, processing, "Deletion in progress: WaitingForInfrastructureDeletion", observed),
			phase: v1alpha1.MachinePhaseDeleting,
		},
		{
			name: "Delete: DeletionCompleted beats a failure report",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 52, auth),
				cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 51),
			), deleted(50), prevOp(deleteOp, failed, "Deletion failed", 900)),
			want:  op(deleteOp, successful, "Deletion completed: the infrastructure is gone", observed),
			phase: v1alpha1.MachinePhaseDeleted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregate.LastOperation(tt.m, observedClock)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LastOperation() (-want +got):\n%s", diff)
			}
			if phase := aggregate.Phase(tt.m); phase != tt.phase {
				t.Errorf("Phase() = %s, want %s", phase, tt.phase)
			}
			// Idempotent: the Machine carrying the result gets it again, whatever the clock says.
			again := tt.m.DeepCopy()
			again.Status.LastOperation = got.DeepCopy()
			if diff := cmp.Diff(got, aggregate.LastOperation(again, laterClock)); diff != "" {
				t.Errorf("not a fixed point (-first +second):\n%s", diff)
			}
		})
	}
}
