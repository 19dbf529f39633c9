package describe

import (
	"errors"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Description is what describe prints for one Machine; --output json and yaml print it as it
// is (inside a DescriptionList).
type Description struct {
	// Machine names the described Machine.
	Machine ObjectReference `json:"machine"`
	// Cluster is a Cluster API Machine's spec.clusterName; empty for a machinestatus Machine.
	Cluster string `json:"cluster,omitempty"`
	// Node is status.nodeRef.name; empty when there is no Node yet.
	Node string `json:"node,omitempty"`
	// ProviderID is spec.providerID; empty when not set.
	ProviderID string `json:"providerID,omitempty"`
	// Version is spec.version, the Kubernetes version; empty when not set.
	Version string `json:"version,omitempty"`
	// CreationTimestamp is metadata.creationTimestamp.
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
	// DeletionTimestamp is metadata.deletionTimestamp; nil unless deletion was requested.
	DeletionTimestamp *metav1.Time `json:"deletionTimestamp,omitempty"`
	// Phase is the machinestatus phase: status.phase of a machinestatus Machine (empty until
	// its controller writes it), aggregate.ClusterAPIMachineStatus's for a Cluster API one.
	Phase v1alpha1.MachinePhase `json:"phase,omitempty"`
	// ClusterAPIPhase is a Cluster API Machine's own status.phase, which may differ from Phase
	// (docs/clusterapi.md says where and why); empty for a machinestatus Machine.
	ClusterAPIPhase string `json:"clusterAPIPhase,omitempty"`
	// LastOperation is the machinestatus lastOperation, from where LastOperationSource says;
	// nil when a machinestatus Machine's controller has not written it yet.
	LastOperation *v1alpha1.LastOperation `json:"lastOperation,omitempty"`
	// LastOperationSource says where LastOperation comes from.
	LastOperationSource LastOperationSource `json:"lastOperationSource"`
	// Problems counts the conditions that are not in their good state.
	Problems int `json:"problems"`
	// Conditions are the Machine's conditions, problems first (see Condition.Problem), each
	// group in the conditions package's order (Ready first, then by type).
	Conditions []Condition `json:"conditions"`
	// Warnings say what could not be read but did not stop the description, e.g. an
	// unreadable last-operation annotation.
	Warnings []string `json:"warnings,omitempty"`
}

// DescriptionList is the document --output json and yaml print.
type DescriptionList struct {
	// Items are the descriptions, in the order the Machines were read.
	Items []Description `json:"items"`
}

// ObjectReference names a Machine.
type ObjectReference struct {
	// APIVersion is e.g. "cluster.x-k8s.io/v1beta2" or "machinestatus.io/v1alpha1".
	APIVersion string `json:"apiVersion"`
	// Kind is "Machine".
	Kind string `json:"kind"`
	// Namespace and Name are the Machine's.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// LastOperationSource says where a Description's LastOperation comes from.
type LastOperationSource string

const (
	// LastOperationFromStatus is status.lastOperation of a machinestatus Machine, as its
	// controller wrote it.
	LastOperationFromStatus LastOperationSource = "Status"
	// LastOperationFromAnnotation is derived from a Cluster API Machine's conditions, with the
	// lastOperation a controller keeps in aggregate.LastOperationAnnotation as its history.
	LastOperationFromAnnotation LastOperationSource = "Annotation"
	// LastOperationFromConditions is derived from a Cluster API Machine's conditions alone (no
	// readable annotation): a registered Node counts as created (aggregate.LastOperation, rule 2).
	LastOperationFromConditions LastOperationSource = "Conditions"
	// LastOperationWhileCreating is the Create Processing of a Cluster API Machine without an
	// annotation: the same with or without history, which managers write only once creation
	// ends (aggregate.MustKeep).
	LastOperationWhileCreating LastOperationSource = "Creating"
)

// Condition is one condition of a Description.
type Condition struct {
	metav1.Condition `json:",inline"`
	// Polarity says whether True is the good state (Positive) or the bad one (Negative).
	Polarity v1alpha1.ConditionPolarity `json:"polarity"`
	// Problem is true when the condition is not in its good state: a Positive one not True, a
	// Negative one not False (Unknown is a problem either way).
	Problem bool `json:"problem"`
}

// Describe returns the description of m. It returns an error only when a Cluster API
// Machine's conditions cannot be read (a *conditions.AdapterError), or when m holds no
// Machine.
func Describe(m Machine) (Description, error) {
	switch {
	case m.ClusterAPI != nil:
		return describeClusterAPI(m.ClusterAPI)
	case m.Machinestatus != nil:
		return describeMachinestatus(m.Machinestatus), nil
	}
	return Description{}, fmt.Errorf("cannot describe an empty Machine")
}

// describeMachinestatus describes a machinestatus Machine from its status as written.
func describeMachinestatus(m *v1alpha1.Machine) Description {
	d := Description{
		Machine: ObjectReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Machine",
			Namespace: m.Namespace, Name: m.Name},
		ProviderID:          m.Spec.ProviderID,
		Version:             m.Spec.Version,
		CreationTimestamp:   m.CreationTimestamp,
		DeletionTimestamp:   m.DeletionTimestamp,
		Phase:               m.Status.Phase,
		LastOperation:       m.Status.LastOperation,
		LastOperationSource: LastOperationFromStatus,
	}
	if m.Status.NodeRef != nil {
		d.Node = m.Status.NodeRef.Name
	}
	d.Conditions, d.Problems = problemsFirst(m.Status.Conditions, m.Spec.ReadinessGates)
	return d
}

// describeClusterAPI describes a Cluster API Machine: conditions through
// conditions.FromClusterAPIMachine, phase and lastOperation through
// aggregate.ClusterAPIMachineStatus with the annotation's lastOperation as previous.
func describeClusterAPI(m *clusterv1.Machine) (Description, error) {
	// Entries another writer left invalid are skipped (conditions.SkippedError): the others are
	// still described.
	list, err := conditions.FromClusterAPIMachine(m)
	var skipped *conditions.SkippedError
	if err != nil && !errors.As(err, &skipped) {
		return Description{}, err
	}
	d := Description{
		Machine: ObjectReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
			Namespace: m.Namespace, Name: m.Name},
		Cluster:             m.Spec.ClusterName,
		Node:                m.Status.NodeRef.Name,
		ProviderID:          m.Spec.ProviderID,
		Version:             m.Spec.Version,
		CreationTimestamp:   m.CreationTimestamp,
		DeletionTimestamp:   m.DeletionTimestamp,
		ClusterAPIPhase:     m.Status.Phase,
		LastOperationSource: LastOperationFromConditions,
	}
	if skipped != nil {
		d.Warnings = append(d.Warnings, skipped.Error())
	}
	previous, err := aggregate.LastOperationFromAnnotations(m.GetAnnotations())
	switch {
	case err != nil:
		d.Warnings = append(d.Warnings, err.Error()+"; the lastOperation is derived from the conditions alone")
	case previous != nil:
		d.LastOperationSource = LastOperationFromAnnotation
	}
	d.Phase, d.LastOperation = aggregate.ClusterAPIMachineStatus(m, previous, false, time.Time{})
	if op := d.LastOperation; previous == nil && err == nil && op != nil &&
		op.Type == v1alpha1.MachineOperationCreate && op.State == v1alpha1.MachineOperationStateProcessing {
		d.LastOperationSource = LastOperationWhileCreating
	}

	gates := make([]v1alpha1.MachineReadinessGate, 0, len(m.Spec.ReadinessGates))
	for _, g := range m.Spec.ReadinessGates {
		gates = append(gates, aggregate.ReadinessGateFromClusterAPI(g))
	}
	d.Conditions, d.Problems = problemsFirst(list, gates)
	return d, nil
}

// problemsFirst returns cs with their polarity and problem flag, problems first, each group in
// conditions.Compare order, and the number of problems. A type's polarity is
// aggregate.ConditionPolarity's for the Machine's readiness gates, as Summarize reads it.
func problemsFirst(cs []metav1.Condition, gates []v1alpha1.MachineReadinessGate) ([]Condition, int) {
	out := make([]Condition, 0, len(cs))
	problems := 0
	for _, c := range cs {
		polarity := aggregate.ConditionPolarity(c.Type, gates)
		good := metav1.ConditionTrue
		if polarity == v1alpha1.NegativeConditionPolarity {
			good = metav1.ConditionFalse
		}
		problem := c.Status != good
		if problem {
			problems++
		}
		out = append(out, Condition{Condition: c, Polarity: polarity, Problem: problem})
	}
	slices.SortStableFunc(out, func(a, b Condition) int {
		switch {
		case a.Problem && !b.Problem:
			return -1
		case !a.Problem && b.Problem:
			return 1
		}
		return conditions.Compare(a.Type, b.Type)
	})
	return out, problems
}
