package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SimMachineFinalizer is set by the provider on every SimMachine it manages, so that it can
// delete the simulated host's Node before the SimMachine goes away.
const SimMachineFinalizer = "infrastructure.machinestatus.io/simmachine"

// Annotations and labels the provider puts on the Nodes it creates.
const (
	// SimMachineNamespaceAnnotation and SimMachineNameAnnotation name the SimMachine of a Node.
	SimMachineNamespaceAnnotation = "infrastructure.machinestatus.io/simmachine-namespace"
	// SimMachineNameAnnotation: see SimMachineNamespaceAnnotation.
	SimMachineNameAnnotation = "infrastructure.machinestatus.io/simmachine-name"

	// KwokNodeAnnotation is the annotation kwok's --manage-nodes-with-annotation-selector
	// conventionally selects (kwok.x-k8s.io/node=fake): kwok plays the kubelet of such Nodes.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	// KwokNodeAnnotationValue is the value of KwokNodeAnnotation.
	KwokNodeAnnotationValue = "fake"
)

// ProviderIDPrefix starts every provider ID this provider writes: sim://<namespace>/<name>.
const ProviderIDPrefix = "sim://"

// The SimMachine Ready condition (Cluster API v1beta2 infrastructure contract), set by the
// simulated provider.
const (
	// SimMachineReadyCondition is True once the simulated host is provisioned.
	SimMachineReadyCondition = "Ready"

	// SimMachineProvisioningReason: the host is being provisioned (provisionAfterSeconds has
	// not passed yet).
	SimMachineProvisioningReason = "Provisioning"
	// SimMachineProvisionedReason: the host is provisioned.
	SimMachineProvisionedReason = "Provisioned"
	// SimMachineFailedReason: the provider hit a terminal failure (see status.failureReason).
	SimMachineFailedReason = "Failed"
	// SimMachineDeletingReason: the host is being deleted.
	SimMachineDeletingReason = "Deleting"
)

// Terminal failure reasons written to status.failureReason.
const (
	// SimMachineNodeNameConflictFailure: a Node of the wanted name exists and belongs to another
	// host (its spec.providerID differs).
	SimMachineNodeNameConflictFailure = "NodeNameConflict"
)

// SimMachineSpec is the desired state of a simulated host.
type SimMachineSpec struct {
	// providerID identifies the host; the provider sets it to sim://<namespace>/<name> once the
	// host is provisioned, and the host's Node reports the same value. Immutable once set.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="providerID is immutable once set"
	ProviderID string `json:"providerID,omitempty"`

	// provisionAfterSeconds is how long provisioning takes, counted from the SimMachine's
	// creation. Default 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	ProvisionAfterSeconds int32 `json:"provisionAfterSeconds,omitempty"`

	// registerNodeAfterSeconds is how long the host takes to boot and register its Node, counted
	// from the end of provisioning. Default 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	RegisterNodeAfterSeconds int32 `json:"registerNodeAfterSeconds,omitempty"`

	// nodeName is the name of the host's Node. Default: the SimMachine's name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	NodeName string `json:"nodeName,omitempty"`

	// kubeletVersion is the version the simulated kubelet reports in the Node's
	// status.nodeInfo.kubeletVersion. Changing it simulates an in-place kubelet upgrade.
	// When empty, kwok reports its own version.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	KubeletVersion string `json:"kubeletVersion,omitempty"`
}

// SimMachineInitializationStatus reports the end of provisioning (Cluster API v1beta2 contract).
type SimMachineInitializationStatus struct {
	// provisioned is true once the host exists and spec.providerID is set.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// SimMachineStatus is the observed state of a simulated host.
type SimMachineStatus struct {
	// initialization reports the end of provisioning.
	// +optional
	Initialization *SimMachineInitializationStatus `json:"initialization,omitempty"`

	// conditions of the SimMachine; Ready is True once the host is provisioned.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureReason is a terminal failure, in CamelCase; the provider gives up on the host.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureReason string `json:"failureReason,omitempty"`

	// failureMessage says, for humans, what the terminal failure is.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	FailureMessage string `json:"failureMessage,omitempty"`
}

// SimMachine is a simulated host: after provisionAfterSeconds it is provisioned, then after
// registerNodeAfterSeconds its Node appears, and kwok plays the Node's kubelet.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"
// +kubebuilder:resource:path=simmachines,scope=Namespaced,categories=machinestatus-sim
// +kubebuilder:printcolumn:name="Provisioned",type=boolean,JSONPath=`.status.initialization.provisioned`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="ProviderID",type=string,JSONPath=`.spec.providerID`
// +kubebuilder:printcolumn:name="Kubelet",type=string,JSONPath=`.spec.kubeletVersion`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SimMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the host.
	// +optional
	Spec SimMachineSpec `json:"spec,omitempty"`

	// status is the observed state of the host, written by the provider.
	// +optional
	Status SimMachineStatus `json:"status,omitempty"`
}

// NodeName returns the name of the host's Node: spec.nodeName, else the SimMachine's name.
func (m *SimMachine) NodeName() string {
	if m.Spec.NodeName != "" {
		return m.Spec.NodeName
	}
	return m.Name
}

// IsProvisioned reports status.initialization.provisioned.
func (m *SimMachine) IsProvisioned() bool {
	return m.Status.Initialization != nil && m.Status.Initialization.Provisioned != nil &&
		*m.Status.Initialization.Provisioned
}

// SimMachineList is a list of SimMachines.
//
// +kubebuilder:object:root=true
type SimMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the SimMachines.
	Items []SimMachine `json:"items"`
}
