package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Events are emitted only when the phase or the lastOperation's (type, state) changes, never
// on a reconcile that writes nothing. Their reasons are CamelCase and name the outcome, because
// the events API merges events of the same reason and action on one object into a series
// ("x2 over 5s") showing the first note:
//   - a phase change: reason "Machine<Phase>" (e.g. MachineRunning), Warning for MachineFailed,
//     note "Phase changed to <Phase>": true of every event of its series, so the note does not
//     name the phase before (it would be the first event's only; the
//     machinestatus_machine_phase_transitions_total metric counts transitions by their phase before);
//   - an operation result: reason "<Type>Succeeded" (e.g. CreateSucceeded, Normal) or
//     "<Type>Failed" (e.g. HealthCheckFailed, Warning).
//
// Events are about the Machine by apiVersion, kind, namespace, name and UID, never by
// resourceVersion: the events library merges events whose reference, reason, action and type are
// equal, and every status write changes the resourceVersion, so with it no event would ever join
// a series and a flapping Node would add Event objects without bound.
//
// eventAction is the action field of the events this controller emits.
const eventAction = "Observe"

// phaseEventReason is the reason of the event emitted when a Machine's phase becomes p.
func phaseEventReason(p v1alpha1.MachinePhase) string { return "Machine" + string(p) }

// operationEventReason is the reason of the event emitted when a lastOperation of type t ends
// in state s (Successful or Failed).
func operationEventReason(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState) string {
	if s == v1alpha1.MachineOperationStateFailed {
		return string(t) + "Failed"
	}
	return string(t) + "Succeeded"
}

// transition is what a status write changed that events and metrics report.
type transition struct {
	// from and to are the phases before and after; phaseChanged says whether they differ.
	from, to     v1alpha1.MachinePhase
	phaseChanged bool
	// result is the new lastOperation when it just became Successful or Failed, else nil.
	result *v1alpha1.LastOperation
}

func transitionOf(before, after *v1alpha1.Machine) transition {
	t := transition{from: before.Status.Phase, to: after.Status.Phase}
	t.phaseChanged = t.from != t.to
	op0, op1 := before.Status.LastOperation, after.Status.LastOperation
	if op1 != nil && op1.State != v1alpha1.MachineOperationStateProcessing &&
		(op0 == nil || op0.Type != op1.Type || op0.State != op1.State) {
		t.result = op1
	}
	return t
}

// fromLabel names the previous phase, "none" for a Machine's first status.
func (t transition) fromLabel() string {
	if t.from == "" {
		return "none"
	}
	return string(t.from)
}

// eventRegarding is the reference events about a Machine of the given apiVersion carry: without
// resourceVersion (see above).
func eventRegarding(apiVersion string, m metav1.Object) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: apiVersion, Kind: "Machine",
		Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
	}
}

// recordEvents emits through rec, on the Machine after (of either API, see eventRegarding), the
// events of t.
func recordEvents(rec events.EventRecorder, after *corev1.ObjectReference, t transition) {
	if t.phaseChanged {
		kind := corev1.EventTypeNormal
		if t.to == v1alpha1.MachinePhaseFailed {
			kind = corev1.EventTypeWarning
		}
		rec.Eventf(after, nil, kind, phaseEventReason(t.to), eventAction, "Phase changed to %s", t.to)
	}
	switch op := t.result; {
	case op == nil:
	case op.State == v1alpha1.MachineOperationStateSuccessful:
		rec.Eventf(after, nil, corev1.EventTypeNormal, operationEventReason(op.Type, op.State), eventAction,
			"%s succeeded", op.Type)
	default:
		rec.Eventf(after, nil, corev1.EventTypeWarning, operationEventReason(op.Type, op.State), eventAction,
			"%s: %s", op.Type, conditions.CollapseSpace(op.Description))
	}
}
