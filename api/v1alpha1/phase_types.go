package v1alpha1

// MachinePhase is a one-word summary of a Machine for humans and GUIs, derived from the
// Machine's conditions by aggregate.Phase (first matching row of the phase table wins).
//
// The phase is informative only: controllers must decide from conditions, not from the phase,
// because a single word cannot say everything the conditions say.
//
// +kubebuilder:validation:Enum=Pending;Provisioning;Provisioned;Running;Unknown;Standby;Draining;Updating;Failed;Deleting;Deleted
type MachinePhase string

const (
	// MachinePhasePending means nothing has started yet (no infrastructure progress reported).
	MachinePhasePending MachinePhase = "Pending"

	// MachinePhaseProvisioning means the bootstrap data is ready, or the infrastructure object exists
	// and is being provisioned.
	MachinePhaseProvisioning MachinePhase = "Provisioning"

	// MachinePhaseProvisioned means the infrastructure is provisioned; no Node is Ready yet.
	MachinePhaseProvisioned MachinePhase = "Provisioned"

	// MachinePhaseRunning means the Node is Ready.
	MachinePhaseRunning MachinePhase = "Running"

	// MachinePhaseUnknown means creation has finished but the Node is not Ready (lost contact or
	// NotReady), still inside the health-check timeout.
	MachinePhaseUnknown MachinePhase = "Unknown"

	// MachinePhaseStandby means the Machine is parked on purpose (spec.standby).
	MachinePhaseStandby MachinePhase = "Standby"

	// MachinePhaseDraining means the Node is cordoned or being drained.
	MachinePhaseDraining MachinePhase = "Draining"

	// MachinePhaseUpdating means an update is in progress (e.g. the kubelet version differs from
	// spec.version).
	MachinePhaseUpdating MachinePhase = "Updating"

	// MachinePhaseFailed means a terminal signal is present now (failed health check or a terminal
	// reason). Never sticky: the phase is recomputed when the signal goes away.
	MachinePhaseFailed MachinePhase = "Failed"

	// MachinePhaseDeleting means the Machine has a deletionTimestamp and deletion is in progress.
	MachinePhaseDeleting MachinePhase = "Deleting"

	// MachinePhaseDeleted means the Machine has a deletionTimestamp and everything it depended on is
	// gone; only other controllers' finalizers keep the object.
	MachinePhaseDeleted MachinePhase = "Deleted"
)

// MachinePhases returns every phase in the order of the phase table.
func MachinePhases() []MachinePhase {
	return []MachinePhase{
		MachinePhaseDeleted, MachinePhaseDeleting, MachinePhaseFailed, MachinePhaseStandby,
		MachinePhaseDraining, MachinePhaseUpdating, MachinePhaseRunning, MachinePhaseUnknown,
		MachinePhaseProvisioned, MachinePhaseProvisioning, MachinePhasePending,
	}
}
