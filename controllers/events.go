package controllers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Events are emitted only when the phase or the lastOperation's (type, state) changes, never
// on a reconcile that writes nothing. Their reasons are CamelCase and name the outcome, because
// the events API merges events of the same reason and action on one object into a series
// ("x2 over 5s") showing the first note:
//   - a phase change: reason "Machine<Phase>" (e.g. MachineRunning), Warning for MachineFailed;
//   - an operation result: reason "<Type>Succeeded" (e.g. CreateSucceeded, Normal) or
//     "<Type>Failed" (e.g. HealthCheckFailed, Warning).
const (
	// EventMachineFailed is the reason of the Warning emitted when the phase becomes Failed.
	EventMachineFailed = "MachineFailed"
)

// eventAction is the action field of the events this controller emits.
const eventAction = "Observe"

// PhaseEventReason is the reason of the event emitted when a Machine's phase becomes p.
func PhaseEventReason(p v1alpha1.MachinePhase) string { return "Machine" + string(p) }

// OperationEventReason is the reason of the event emitted when a lastOperation of type t ends
// in state s (Successful or Failed).
func OperationEventReason(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState) string {
	if s == v1alpha1.MachineOperationStateFailed {
		return string(t) + "Failed"
	}
	return string(t) + "Succeeded"
}

func (r *MachineReconciler) recordEvents(before, after *v1alpha1.Machine) {
	if p0, p1 := before.Status.Phase, after.Status.Phase; p0 != p1 {
		from := string(p0)
		if from == "" {
			from = "none"
		}
		kind := corev1.EventTypeNormal
		if p1 == v1alpha1.MachinePhaseFailed {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(after, nil, kind, PhaseEventReason(p1), eventAction, "Phase changed from %s to %s", from, p1)
	}
	op0, op1 := before.Status.LastOperation, after.Status.LastOperation
	if op1 == nil || (op0 != nil && op0.Type == op1.Type && op0.State == op1.State) {
		return
	}
	switch op1.State {
	case v1alpha1.MachineOperationStateSuccessful:
		r.Recorder.Eventf(after, nil, corev1.EventTypeNormal, OperationEventReason(op1.Type, op1.State), eventAction,
			"%s succeeded", op1.Type)
	case v1alpha1.MachineOperationStateFailed:
		r.Recorder.Eventf(after, nil, corev1.EventTypeWarning, OperationEventReason(op1.Type, op1.State), eventAction,
			"%s: %s", op1.Type, oneLine(op1.Description))
	}
}

// oneLine keeps an event note on one line of the kubectl describe table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
