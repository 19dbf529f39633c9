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

// MachineOperationReason says why an operation happens.
// +kubebuilder:validation:Enum=DeletionRequested;Rollout;MarkedForDeletion;ClusterDeleted;Remediation;RemediationNodeStartupTimeout;RemediationUnhealthyNode;RemediationUnhealthyMachine;RemediationNodeDeleted;RemediationRequested
type MachineOperationReason string

// Why a Cluster API Machine is deleted, read from the Machine (and its Cluster) when its deletion
// starts.
const (
	// DeletionRequestedReason: nothing else says why (a user, a scale-down).
	DeletionRequestedReason MachineOperationReason = "DeletionRequested"
	// RolloutReason: the Machine was not up to date (UpToDate False): a rollout replaces it.
	RolloutReason MachineOperationReason = "Rollout"
	// MarkedForDeletionReason: the Machine carried the cluster.x-k8s.io/delete-machine
	// annotation (chosen for a scale-down).
	MarkedForDeletionReason MachineOperationReason = "MarkedForDeletion"
	// ClusterDeletedReason: the Machine's Cluster is being deleted.
	ClusterDeletedReason MachineOperationReason = "ClusterDeleted"
	// RemediationReason: its owner remediates it (OwnerRemediated False) for a reason the
	// health check does not name.
	RemediationReason MachineOperationReason = "Remediation"
	// RemediationNodeStartupTimeoutReason: remediated after no Node registered in time.
	RemediationNodeStartupTimeoutReason MachineOperationReason = "RemediationNodeStartupTimeout"
	// RemediationUnhealthyNodeReason: remediated after its Node was unhealthy too long.
	RemediationUnhealthyNodeReason MachineOperationReason = "RemediationUnhealthyNode"
	// RemediationUnhealthyMachineReason: remediated after a check of the Machine failed.
	RemediationUnhealthyMachineReason MachineOperationReason = "RemediationUnhealthyMachine"
	// RemediationNodeDeletedReason: remediated after its Node was deleted.
	RemediationNodeDeletedReason MachineOperationReason = "RemediationNodeDeleted"
	// RemediationRequestedReason: remediated on request (the cluster.x-k8s.io/remediate-machine
	// annotation).
	RemediationRequestedReason MachineOperationReason = "RemediationRequested"
)

// LastOperation is the most recent operation on a Machine, derived by aggregate.LastOperation
// from the conditions and the previous value.
type LastOperation struct {
	// type of the operation: Create, Update, DrainNode, HealthCheck or Delete.
	// +required
	Type MachineOperationType `json:"type"`

	// state of the operation: Processing, Successful or Failed.
	// +required
	State MachineOperationState `json:"state"`

	// reason says why the operation happens, from a fixed list; set for a Delete of a Cluster
	// API Machine (why it is deleted), empty otherwise.
	// +optional
	Reason MachineOperationReason `json:"reason,omitempty"`

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
