package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MachineOperationType is the kind of operation a Machine went through most recently.
// +kubebuilder:validation:Enum=Create;Update;DrainNode;HealthCheck;Delete
type MachineOperationType string

const (
	// MachineOperationCreate runs from creation until the Node is first Ready.
	MachineOperationCreate MachineOperationType = "Create"
	// MachineOperationUpdate is an update of the Machine (e.g. kubelet version), running or ended.
	MachineOperationUpdate MachineOperationType = "Update"
	// MachineOperationDrainNode means the Node is cordoned or drained.
	MachineOperationDrainNode MachineOperationType = "DrainNode"
	// MachineOperationHealthCheck means the Node stopped being Ready, or the health check failed.
	MachineOperationHealthCheck MachineOperationType = "HealthCheck"
	// MachineOperationDelete means the Machine is being deleted.
	MachineOperationDelete MachineOperationType = "Delete"
)

// MachineOperationState is the state of a Machine's last operation.
// +kubebuilder:validation:Enum=Processing;Successful;Failed
type MachineOperationState string

const (
	// MachineOperationStateProcessing means the operation is in progress.
	MachineOperationStateProcessing MachineOperationState = "Processing"
	// MachineOperationStateSuccessful means the operation ended well.
	MachineOperationStateSuccessful MachineOperationState = "Successful"
	// MachineOperationStateFailed means the operation is failing: a failure is reported now
	// (terminal, or retried by its owner as a failed drain or deletion). Never sticky.
	MachineOperationStateFailed MachineOperationState = "Failed"
)

// MachineOperationTypes returns every operation type.
func MachineOperationTypes() []MachineOperationType {
	return []MachineOperationType{
		MachineOperationCreate, MachineOperationUpdate, MachineOperationDrainNode,
		MachineOperationHealthCheck, MachineOperationDelete,
	}
}

// MachineOperationStates returns every operation state.
func MachineOperationStates() []MachineOperationState {
	return []MachineOperationState{
		MachineOperationStateProcessing, MachineOperationStateSuccessful, MachineOperationStateFailed,
	}
}

// LastOperation is the most recent operation on a Machine, derived by aggregate.LastOperation
// from the conditions and the previous value.
type LastOperation struct {
	// type of the operation: Create, Update, DrainNode, HealthCheck or Delete.
	// +required
	Type MachineOperationType `json:"type"`

	// state of the operation: Processing, Successful or Failed.
	// +required
	State MachineOperationState `json:"state"`

	// description says, in one bounded human-readable sentence, what the operation is doing or
	// why it ended as it did.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Description string `json:"description,omitempty"`

	// lastUpdated is when type or state last changed: the lastTransitionTime of the condition
	// whose status change decided it, or, when a reason decided it (e.g. UpdateFailed on an
	// Updating condition that stays True), the moment the controller observed the change.
	// +required
	LastUpdated metav1.Time `json:"lastUpdated"`
}
