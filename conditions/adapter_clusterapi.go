package conditions

import (
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// A Cluster API v1beta2 Machine is a Setter as it is.
var _ Setter = &clusterv1.Machine{}

// FromClusterAPIMachine reads the conditions of a Cluster API v1beta2 Machine
// (sigs.k8s.io/cluster-api/api/core/v1beta2), whose status.conditions are already
// metav1.Conditions: it checks and normalises them with the rules shared by every adapter (see
// List) and returns them. The deprecated v1beta1 conditions (status.deprecated.v1beta1) are not
// read; a Cluster API v1beta1 Machine, or any other Cluster API object, is read with
// FromUnstructured. It returns nil, nil for a nil Machine.
//
// A *clusterv1.Machine is itself a Setter (its GetConditions and SetConditions read and write
// status.conditions), so Get, IsTrue, Set and the others work on it directly; use
// FromClusterAPIMachine for a List checked and normalised like every adapter's.
//
// A condition that breaks the rules is skipped: it returns the others and a *SkippedError naming
// the Machine and each skipped field, e.g. "status.conditions[0].lastTransitionTime".
func FromClusterAPIMachine(m *clusterv1.Machine) (List, error) {
	if m == nil {
		return nil, nil
	}
	col := newCollector("Machine", m.Namespace, m.Name)
	for i, c := range m.Status.Conditions {
		col.add(fmt.Sprintf("status.conditions[%d]", i), c)
	}
	return col.result()
}
