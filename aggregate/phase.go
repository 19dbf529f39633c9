package aggregate

import (
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
//     condition (whatever its status) has a reason in v1alpha1.TerminalReasons.
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
	signal := terminalSignal(m)
	return phaseWith(m, signal, func() *v1alpha1.LastOperation { return lastOperationWith(m, signal, nil) })
}

// phaseWith is Phase for a non-nil m whose terminal signal is known; lastOp returns m's
// lastOperation (as lastOperationWith derives it), asked for only by the Unknown row, so that
// Summarize, which has just derived it, passes it instead of deriving it again.
func phaseWith(m *v1alpha1.Machine, signal *terminal, lastOp func() *v1alpha1.LastOperation) v1alpha1.MachinePhase {
	switch {
	case m.DeletionTimestamp != nil &&
		conditionHasReason(findCondition(m.Status.Conditions, v1alpha1.MachineDeletingCondition), v1alpha1.MachineDeletingDeletionCompletedReason):
		return v1alpha1.MachinePhaseDeleted
	case m.DeletionTimestamp != nil:
		return v1alpha1.MachinePhaseDeleting
	case signal != nil:
		return v1alpha1.MachinePhaseFailed
	case conditionIsTrue(m, v1alpha1.MachineStandbyCondition):
		return v1alpha1.MachinePhaseStandby
	case conditionIsTrue(m, v1alpha1.MachineDrainingCondition):
		return v1alpha1.MachinePhaseDraining
	case conditionIsTrue(m, v1alpha1.MachineUpdatingCondition):
		return v1alpha1.MachinePhaseUpdating
	case conditionIsTrue(m, v1alpha1.MachineNodeReadyCondition):
		return v1alpha1.MachinePhaseRunning
	case creationFinished(lastOp()):
		return v1alpha1.MachinePhaseUnknown
	case conditionIsTrue(m, v1alpha1.MachineInfrastructureReadyCondition):
		return v1alpha1.MachinePhaseProvisioned
	case conditionIsTrue(m, v1alpha1.MachineBootstrapConfigReadyCondition),
		conditionIsFalse(m, v1alpha1.MachineInfrastructureReadyCondition):
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

// terminalSignal returns the terminal signal present on m, or nil. When several are present,
// the one reported is, first match wins: a condition with reason UpdateFailed, then any other
// condition with a terminal reason, then a False HealthCheckSucceeded; conditions of equal
// rank are taken in catalog order (conditions.Compare).
func terminalSignal(m *v1alpha1.Machine) *terminal {
	var update, other *metav1.Condition
	for i := range m.Status.Conditions {
		c := &m.Status.Conditions[i]
		switch {
		case c.Reason == v1alpha1.MachineUpdateFailedReason:
			update = first(update, c)
		case isTerminalReason(c.Reason):
			other = first(other, c)
		}
	}
	switch {
	case update != nil:
		return &terminal{condition: *update, update: true}
	case other != nil:
		return &terminal{condition: *other}
	}
	if c := findCondition(m.Status.Conditions, v1alpha1.MachineHealthCheckSucceededCondition); c != nil && c.Status == metav1.ConditionFalse {
		return &terminal{condition: *c}
	}
	return nil
}

// first returns whichever of a (possibly nil) and b comes first in catalog order.
func first(a, b *metav1.Condition) *metav1.Condition {
	if a == nil || conditions.Compare(b.Type, a.Type) < 0 {
		return b
	}
	return a
}

// conditionIsTrue and conditionIsFalse are conditions.IsTrue and conditions.IsFalse for a
// non-nil Machine, without copying the condition.
func conditionIsTrue(m *v1alpha1.Machine, t string) bool {
	return isTrue(findCondition(m.Status.Conditions, t))
}

func conditionIsFalse(m *v1alpha1.Machine, t string) bool {
	c := findCondition(m.Status.Conditions, t)
	return c != nil && c.Status == metav1.ConditionFalse
}

// conditionHasReason reports whether c is present with the given reason.
func conditionHasReason(c *metav1.Condition, reason string) bool {
	return c != nil && c.Reason == reason
}

// isTerminalReason is slices.Contains(v1alpha1.TerminalReasons, reason), written out so that
// the comparisons inline (it runs for every condition, twice per Summarize).
func isTerminalReason(reason string) bool {
	for _, r := range v1alpha1.TerminalReasons {
		if r == reason {
			return true
		}
	}
	return false
}
