package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PausedAnnotation is the annotation that, when present on a Machine (any value), pauses
// reconciliation: the controller sets Paused=True and rewrites nothing else.
const PausedAnnotation = "machinestatus.io/paused"

// Defaults of the health check, used when the Machine leaves the fields empty.
const (
	// DefaultNodeStartupTimeoutSeconds is how long a Node may take to register after
	// InfrastructureReady became True: 10 minutes.
	DefaultNodeStartupTimeoutSeconds int32 = 600

	// DefaultUnhealthyTimeoutSeconds is how long the Node Ready condition may stay Unknown or
	// False before HealthCheckSucceeded turns False: 5 minutes.
	DefaultUnhealthyTimeoutSeconds int32 = 300
)

// MaxConditions is the most conditions status.conditions may hold (the CRD's maxItems): room for
// the machinestatus controller's own (at most 12, one per type it owns) and at least 52 of other
// writers. When other writers leave too little room, the controller omits its least important
// conditions and says so (docs/rules.md, "Conditions": the catalog's priority).
const MaxConditions = 64

// MachineSpec is what the Machine should be. The machinestatus controller never writes it.
type MachineSpec struct {
	// providerID is the identifier of the Machine's host in its infrastructure provider, as the
	// Node reports it in spec.providerID. When empty, the infrastructure object's
	// spec.providerID is used.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// infrastructureRef references the object that provisions the host. It may be of any kind
	// that follows the Cluster API infrastructure contract: v1beta2
	// status.initialization.provisioned or v1beta1 status.ready, spec.providerID, and the
	// terminal status.failureReason / status.failureMessage.
	// +required
	InfrastructureRef ContractVersionedObjectReference `json:"infrastructureRef"`

	// bootstrap says where the Machine's bootstrap data comes from. When omitted the Machine
	// needs no bootstrap data and BootstrapConfigReady is not part of Ready.
	// +optional
	Bootstrap *Bootstrap `json:"bootstrap,omitempty"`

	// version is the kubelet version the Machine should run, e.g. "v1.36.3". When the Node
	// reports another kubelet version, Updating is True.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^v?[0-9]+[.][0-9]+[.][0-9]+([-+][0-9A-Za-z.+-]*)?$')",message="must be a kubelet version: an optional 'v', then major.minor.patch and an optional '-' or '+' suffix (e.g. v1.36.3)"
	Version string `json:"version,omitempty"`

	// standby parks a provisioned Machine on purpose (e.g. a powered-off bare-metal host):
	// Standby is True and the phase is Standby.
	// +optional
	Standby bool `json:"standby,omitempty"`

	// readinessGates lists extra conditions, written by other controllers on this Machine,
	// that must be good for Ready to be True.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`

	// healthCheck sets the timers behind HealthCheckSucceeded. Omitted fields take the defaults.
	// +optional
	HealthCheck *MachineHealthCheck `json:"healthCheck,omitempty"`
}

// ContractVersionedObjectReference names an object in the Machine's namespace by API group,
// kind and name; the version is discovered from the API server (Cluster API v1beta2 style).
type ContractVersionedObjectReference struct {
	// apiGroup is the API group of the referenced object, e.g. infrastructure.cluster.x-k8s.io.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="must be an API group: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. infrastructure.cluster.x-k8s.io)"
	APIGroup string `json:"apiGroup"`

	// kind of the referenced object, in CamelCase.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$')",message="must be a kind: letters, digits and '-', starting with a letter (e.g. DockerMachine)"
	Kind string `json:"kind"`

	// name of the referenced object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="must be an object name: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. worker-0)"
	Name string `json:"name"`
}

// Bootstrap says where a Machine's bootstrap data comes from: a bootstrap config object or a
// Secret that already holds the data. Exactly one must be set.
// +kubebuilder:validation:XValidation:rule="has(self.configRef) != has(self.dataSecretName)",message="exactly one of configRef and dataSecretName must be set"
type Bootstrap struct {
	// configRef references a bootstrap config object following the Cluster API bootstrap
	// contract: v1beta2 status.initialization.dataSecretCreated or v1beta1 status.ready, and
	// status.dataSecretName.
	// +optional
	ConfigRef *ContractVersionedObjectReference `json:"configRef,omitempty"`

	// dataSecretName is the name of a Secret holding ready-made bootstrap data.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="must be a Secret name: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. worker-0-bootstrap)"
	DataSecretName string `json:"dataSecretName,omitempty"`
}

// ConditionPolarity says whether True is the good state of a condition.
// +kubebuilder:validation:Enum=Positive;Negative
type ConditionPolarity string

const (
	// PositiveConditionPolarity means True is good (e.g. Ready).
	PositiveConditionPolarity ConditionPolarity = "Positive"
	// NegativeConditionPolarity means False is good (e.g. Deleting).
	NegativeConditionPolarity ConditionPolarity = "Negative"
)

// MachineReadinessGate is an extra condition, set on the Machine by another controller, that
// Ready takes into account.
type MachineReadinessGate struct {
	// conditionType is the type of the condition in status.conditions: an optional DNS
	// subdomain prefix of at most 253 characters and '/', then a name of at most 63
	// characters. It cannot be Ready or Stalled, which are derived from the other conditions.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')",message="must be a condition type: an optional DNS subdomain prefix and '/', then a name of letters, digits, '-', '_' and '.' that starts and ends with a letter or digit (e.g. example.com/NetworkReady)"
	// +kubebuilder:validation:XValidation:rule="self.indexOf('/') <= 253",message="a condition type's prefix must be at most 253 characters"
	// +kubebuilder:validation:XValidation:rule="size(self) - self.indexOf('/') - 1 <= 63",message="a condition type's name part must be at most 63 characters"
	// +kubebuilder:validation:XValidation:rule="!(self in ['Ready', 'Stalled'])",message="a readiness gate cannot be Ready or Stalled, which are derived from the other conditions"
	ConditionType string `json:"conditionType"`

	// polarity of the condition: Positive (True is good, the default) or Negative.
	// +optional
	// +kubebuilder:default=Positive
	Polarity ConditionPolarity `json:"polarity,omitempty"`
}

// MachineHealthCheck sets the timers behind the HealthCheckSucceeded condition. Elapsed time is
// measured on the controller's clock, from when it first saw the Node condition
// (status.healthCheck).
type MachineHealthCheck struct {
	// nodeStartupTimeoutSeconds is how long, in seconds, a Node may take to register after
	// InfrastructureReady became True. Default 600.
	// +optional
	// +kubebuilder:validation:Minimum=1
	NodeStartupTimeoutSeconds *int32 `json:"nodeStartupTimeoutSeconds,omitempty"`

	// unhealthyNodeConditions lists Node conditions that fail the health check once they have
	// lasted longer than their timeout. When empty, Ready=Unknown and Ready=False for 300
	// seconds are used.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	UnhealthyNodeConditions []UnhealthyNodeCondition `json:"unhealthyNodeConditions,omitempty"`
}

// UnhealthyNodeCondition is a Node condition in a given status that fails the health check once
// it has lasted timeoutSeconds.
type UnhealthyNodeCondition struct {
	// type of the Node condition, e.g. Ready or DiskPressure.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type corev1.NodeConditionType `json:"type"`

	// status of the Node condition that counts as unhealthy: True, False or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status corev1.ConditionStatus `json:"status"`

	// timeoutSeconds is how long, in seconds, the condition may last before the check fails.
	// +required
	// +kubebuilder:validation:Minimum=1
	TimeoutSeconds int32 `json:"timeoutSeconds"`
}

// MachineStatus is observed or derived state, written only by controllers.
type MachineStatus struct {
	// conditions are the granular, typed observations of the Machine and the only source of
	// truth; Ready, phase and lastOperation are derived from them. Several controllers may each
	// own some condition types (list-map semantics keep each other's entries).
	//
	// Beyond metav1.Condition's own schema, the API server applies the rules the conditions
	// library validates with (those of built-in types): a type's name part has at most 63
	// characters and its prefix at most 253, and a message has at most 32768 bytes. At most
	// MaxConditions (64) conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.type.indexOf('/') <= 253)",message="a condition type's prefix must be at most 253 characters"
	// +kubebuilder:validation:XValidation:rule="self.all(c, size(c.type) - c.type.indexOf('/') - 1 <= 63)",message="a condition type's name part must be at most 63 characters"
	// +kubebuilder:validation:XValidation:rule="self.all(c, !has(c.message) || size(bytes(c.message)) <= 32768)",message="a condition message must be at most 32768 bytes"
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase is a one-word summary of the Machine for humans, derived from the conditions.
	// Controllers should decide from conditions, not from the phase.
	// +optional
	Phase MachinePhase `json:"phase,omitempty"`

	// lastOperation is the most recent operation on the Machine (Create, Update, DrainNode,
	// HealthCheck, Delete) and its state, derived from the conditions and its own previous
	// value.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`

	// providerID is the providerID the controller matches Nodes by: spec.providerID, else the
	// infrastructure object's spec.providerID.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// nodeRef names the Node of this Machine once one has been found: the Node whose
	// spec.providerID is the Machine's providerID, whatever its name. It is kept after the Node
	// is deleted, to tell a deleted Node from one that never registered, and follows the host
	// when it registers again under another name.
	// +optional
	NodeRef *MachineNodeReference `json:"nodeRef,omitempty"`

	// healthCheck is what the health check remembers between reconciles, so that its timers
	// count on the controller's own clock and survive a restart of the controller.
	// +optional
	HealthCheck *MachineHealthCheckStatus `json:"healthCheck,omitempty"`

	// observedGeneration is the metadata.generation the status was computed from; 0 until a
	// controller has computed it. kubectl wait and kstatus compare it with metadata.generation.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MachineNodeReference names the Node of a Machine (Nodes are cluster-scoped).
type MachineNodeReference struct {
	// name of the Node.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// MachineHealthCheckStatus is what the health check remembers between reconciles.
type MachineHealthCheckStatus struct {
	// unhealthyNodeConditions are the Node conditions that now match an entry of
	// spec.healthCheck.unhealthyNodeConditions (or the defaults), each with the time the
	// controller first saw it so. Timeouts count from that time, on the controller's clock, while
	// the controller sees the condition stay in that status: the Node condition's own
	// lastTransitionTime was written by another clock (the kubelet's, the node lifecycle
	// controller's, an agent's that rewrites it) and is not read.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	UnhealthyNodeConditions []ObservedNodeCondition `json:"unhealthyNodeConditions,omitempty"`
}

// ObservedNodeCondition is an unhealthy Node condition as the controller first saw it.
type ObservedNodeCondition struct {
	// type of the Node condition, e.g. Ready.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type corev1.NodeConditionType `json:"type"`

	// status of the Node condition: True, False or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status corev1.ConditionStatus `json:"status"`

	// nodeLastTransitionTime is the Node condition's lastTransitionTime when the controller
	// first saw it in this status, on the Node's clock: information only, since some node
	// agents rewrite it on every sync without a change. Only a status change the controller
	// sees starts the timeout again.
	// +optional
	NodeLastTransitionTime *metav1.Time `json:"nodeLastTransitionTime,omitempty"`

	// since is when the controller first saw the Node condition in this status, on the
	// controller's clock.
	// +required
	Since metav1.Time `json:"since"`
}

// Machine is a VM or bare-metal host that becomes a Node. Its status holds typed conditions and
// a phase and lastOperation derived from them.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=machines,scope=Namespaced,categories=machinestatus,shortName=msm
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Last-Op",type=string,JSONPath=`.status.lastOperation.type`
// +kubebuilder:printcolumn:name="Op-State",type=string,JSONPath=`.status.lastOperation.state`
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.status.nodeRef.name`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.spec.version`,priority=1
// +kubebuilder:printcolumn:name="ProviderID",type=string,JSONPath=`.status.providerID`,priority=1
type Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the Machine should be.
	// +required
	Spec MachineSpec `json:"spec"`

	// status is what the controllers observed and derived. It defaults to
	// {observedGeneration: 0}, so a Machine no controller has seen yet reads as not observed
	// (kstatus: InProgress) rather than as having nothing to report.
	// +optional
	// +kubebuilder:default={}
	Status MachineStatus `json:"status,omitempty"`
}

// GetConditions returns the Machine's conditions; it implements conditions.Getter.
func (m *Machine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions replaces the Machine's conditions; it implements conditions.Setter.
func (m *Machine) SetConditions(c []metav1.Condition) { m.Status.Conditions = c }

// MachineList is a list of Machines.
//
// +kubebuilder:object:root=true
type MachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Machines.
	Items []Machine `json:"items"`
}
