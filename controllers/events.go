package controllers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Event reasons (CamelCase). Events are emitted only when the phase or the lastOperation's
// (type, state) changes, never on a reconcile that writes nothing.
const (
	// EventPhaseChanged: the phase changed to anything but Failed.
	EventPhaseChanged = "PhaseChanged"
	// EventMachineFailed: the phase changed to Failed.
	EventMachineFailed = "MachineFailed"
	// EventOperationSucceeded: the lastOperation became Successful.
	EventOperationSucceeded = "OperationSucceeded"
	// EventOperationFailed: the lastOperation became Failed.
	EventOperationFailed = "OperationFailed"
)

// eventAction is the action field of the events this controller emits.
const eventAction = "Observe"

func (r *MachineReconciler) recordEvents(before, after *v1alpha1.Machine) {
	if p0, p1 := before.Status.Phase, after.Status.Phase; p0 != p1 {
		from := string(p0)
		if from == "" {
			from = "none"
		}
		if p1 == v1alpha1.MachinePhaseFailed {
			r.Recorder.Eventf(after, nil, corev1.EventTypeWarning, EventMachineFailed, eventAction,
				"Phase changed from %s to %s", from, p1)
		} else {
			r.Recorder.Eventf(after, nil, corev1.EventTypeNormal, EventPhaseChanged, eventAction,
				"Phase changed from %s to %s", from, p1)
		}
	}
	op0, op1 := before.Status.LastOperation, after.Status.LastOperation
	if op1 == nil || (op0 != nil && op0.Type == op1.Type && op0.State == op1.State) {
		return
	}
	switch op1.State {
	case v1alpha1.MachineOperationStateSuccessful:
		r.Recorder.Eventf(after, nil, corev1.EventTypeNormal, EventOperationSucceeded, eventAction,
			"%s succeeded", op1.Type)
	case v1alpha1.MachineOperationStateFailed:
		r.Recorder.Eventf(after, nil, corev1.EventTypeWarning, EventOperationFailed, eventAction,
			"%s: %s", op1.Type, oneLine(op1.Description))
	}
}

// oneLine keeps an event note on one line of the kubectl describe table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
