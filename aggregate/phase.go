package aggregate

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Phase derives the one-word phase of m from its conditions, deletionTimestamp and (for the
// Unknown row) its lastOperation as LastOperation computes it. The first matching row wins:
//
//  1. Deleted: a deletionTimestamp is set and the Deleting reason is DeletionCompleted.
//  2. Deleting: a deletionTimestamp is set (also while LastOperation reports the deletion
//     failing: it is retried).
//  3. Failed: a terminal signal is present now: HealthCheckSucceeded is False, or any
//     condition (whatever its status) has a terminal reason (v1alpha1.IsTerminalReason).
//  4. Standby: Standby is True.
//  5. Draining: Draining is True (also with reason DrainingFailed: drainers retry, so a failed
//     drain is not terminal).
//  6. Updating: Updating is True.
//  7. Running: NodeReady is True.
//  8. Unknown: creation has finished (LastOperation(m) is not a Create that has not
//     succeeded; a failed Create is caught by row 3) and NodeReady is not True: the Node
//     lost contact or is NotReady, still inside the health-check timeout.
//  9. Provisioned: InfrastructureReady is True.
//  10. Provisioning: BootstrapConfigReady is True, or InfrastructureReady is False (the
//     infrastructure object exists and is being provisioned). An Unknown or missing
//     InfrastructureReady (e.g. InfrastructureDoesNotExist) is not provisioning.
//  11. Pending: otherwise, and for a nil m.
//
// Nothing is sticky: Failed lasts exactly as long as its signal. Deleting and Deleted never
// appear without a deletionTimestamp.
func Phase(m *v1alpha1.Machine) v1alpha1.MachinePhase {
	if m == nil {
		return v1alpha1.MachinePhasePending
	}
	get := func(t string) *metav1.Condition { return meta.FindStatusCondition(m.Status.Conditions, t) }
	switch {
	case m.DeletionTimestamp != nil && hasReason(get(v1alpha1.MachineDeletingCondition), v1alpha1.MachineDeletingDeletionCompletedReason):
		return v1alpha1.MachinePhaseDeleted
	case m.DeletionTimestamp != nil:
		return v1alpha1.MachinePhaseDeleting
	case terminalSignal(m) != nil:
		return v1alpha1.MachinePhaseFailed
	case isTrue(get(v1alpha1.MachineStandbyCondition)):
		return v1alpha1.MachinePhaseStandby
	case isTrue(get(v1alpha1.MachineDrainingCondition)):
		return v1alpha1.MachinePhaseDraining
	case isTrue(get(v1alpha1.MachineUpdatingCondition)):
		return v1alpha1.MachinePhaseUpdating
	case isTrue(get(v1alpha1.MachineNodeReadyCondition)):
		return v1alpha1.MachinePhaseRunning
	case creationFinished(LastOperation(m, time.Time{})):
		return v1alpha1.MachinePhaseUnknown
	case isTrue(get(v1alpha1.MachineInfrastructureReadyCondition)):
		return v1alpha1.MachinePhaseProvisioned
	case isTrue(get(v1alpha1.MachineBootstrapConfigReadyCondition)),
		hasStatus(get(v1alpha1.MachineInfrastructureReadyCondition), metav1.ConditionFalse):
		return v1alpha1.MachinePhaseProvisioning
	}
	return v1alpha1.MachinePhasePending
}

// creationFinished reports whether op is anything but a Create that has not succeeded.
func creationFinished(op *v1alpha1.LastOperation) bool {
	return op != nil && (op.Type != v1alpha1.MachineOperationCreate || op.State == v1alpha1.MachineOperationStateSuccessful)
}

// terminal is a terminal signal: the condition that carries it and whether it is an update
// failure.
type terminal struct {
	condition metav1.Condition
	update    bool
}

// terminalSignal returns the terminal signal present on m, or nil. Of several, the one reported
// is, first match wins: a condition with reason UpdateFailed, then any other condition with a
// terminal reason, then a False HealthCheckSucceeded; ties in catalog order.
func terminalSignal(m *v1alpha1.Machine) *terminal {
	sorted := slices.SortedStableFunc(slices.Values(m.Status.Conditions), func(a, b metav1.Condition) int {
		return conditions.Compare(a.Type, b.Type)
	})
	if i := slices.IndexFunc(sorted, func(c metav1.Condition) bool { return c.Reason == v1alpha1.MachineUpdateFailedReason }); i >= 0 {
		return &terminal{condition: sorted[i], update: true}
	}
	if i := slices.IndexFunc(sorted, func(c metav1.Condition) bool { return v1alpha1.IsTerminalReason(c.Reason) }); i >= 0 {
		return &terminal{condition: sorted[i]}
	}
	if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineHealthCheckSucceededCondition); hasStatus(c, metav1.ConditionFalse) {
		return &terminal{condition: *c}
	}
	return nil
}

// isTrue reports whether c is present and True.
func isTrue(c *metav1.Condition) bool { return hasStatus(c, metav1.ConditionTrue) }

// hasStatus reports whether c is present with status s.
func hasStatus(c *metav1.Condition, s metav1.ConditionStatus) bool { return c != nil && c.Status == s }

// hasReason reports whether c is present with the given reason.
func hasReason(c *metav1.Condition, reason string) bool { return c != nil && c.Reason == reason }
