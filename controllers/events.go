package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Events are emitted only when the phase or the lastOperation's (type, state) changes, never
// on a reconcile that changes nothing. Their reasons are CamelCase and name the outcome, because
// the events API merges events of the same reason and action on one object into a series
// ("x2 over 5s") showing the first note:
//   - a phase change: reason "Machine<Phase>" (e.g. MachineRunning), Warning for MachineFailed,
//     note "Phase changed to <Phase>": true of every event of its series, so the note does not
//     name the phase before (the machinestatus_machine_phase_transitions_total metric counts
//     transitions by their phase before). For Cluster API Machines, whose own controllers report
//     their phases, only MachineFailed;
//   - an operation result: reason "<Type>Succeeded" (e.g. CreateSucceeded, Normal) or
//     "<Type>Failed" (e.g. HealthCheckFailed, Warning).
//
// Events are about the Machine by apiVersion, kind, namespace, name and UID, never by
// resourceVersion: the events library merges events whose reference, reason, action and type are
// equal, and every status write changes the resourceVersion, so with it no event would ever join
// a series and a flapping Node would add Event objects without bound. Their related object is
// the Machine's pool object (eventRelated), so that a pool's failures stay findable after its
// Machines are gone.
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

// eventRegarding is the reference events about a Machine of the given apiVersion carry: without
// resourceVersion (see above).
func eventRegarding(apiVersion string, m metav1.Object) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: apiVersion, Kind: "Machine",
		Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
	}
}

// eventRelated is the related object of events about Machine m, nil when none: for a Cluster
// API Machine the MachineDeployment its deployment-name label names, else the MachineSet that
// controls it; for a machinestatus Machine its controller.
func eventRelated(m metav1.Object) *corev1.ObjectReference {
	owner := metav1.GetControllerOf(m)
	if _, capi := m.(*clusterv1.Machine); capi {
		if name := m.GetLabels()[clusterv1.MachineDeploymentNameLabel]; name != "" {
			return &corev1.ObjectReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment",
				Namespace: m.GetNamespace(), Name: name}
		}
		if owner == nil || owner.Kind != "MachineSet" {
			return nil
		}
	}
	if owner == nil {
		return nil
	}
	return &corev1.ObjectReference{APIVersion: owner.APIVersion, Kind: owner.Kind,
		Namespace: m.GetNamespace(), Name: owner.Name, UID: owner.UID}
}
