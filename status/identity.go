package status

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Node identity. A Node is a Machine's Node when its spec.providerID equals the Machine's
// providerID (ProviderID); its name never decides, as Node names are reused by other
// hosts (e.g. ip-10-0-0-1 on AWS) and a host may re-register under another name. This is
// Cluster API's rule (its Machine controller finds the Node by providerID only). status.nodeRef
// records the name of the Node found, so that a Node that disappears reads as deleted rather
// than never registered; it is updated when the host re-registers under another name.

// ProviderID returns the providerID of m's host: spec.providerID, else the
// infrastructure object's spec.providerID (when it was read), else the one recorded in
// status.providerID (so the Node is still found once the infrastructure object is gone or
// unreadable, e.g. during deletion). It returns "" when none is known yet.
func ProviderID(m *v1alpha1.Machine, infra Ref) string {
	switch {
	case m.Spec.ProviderID != "":
		return m.Spec.ProviderID
	case infra.Exists && infra.Unreadable == "" && infra.Contract.ProviderID != "":
		return infra.Contract.ProviderID
	}
	return m.Status.ProviderID
}

// MachineNode returns the Machine's Node among nodes (any Nodes; only those whose
// spec.providerID equals providerID can be it), or nil when there is none:
//   - no providerID known: nil, as no Node can be told to be this Machine's;
//   - one Node with the providerID: that Node, whatever its name;
//   - several (an old Node object not yet deleted beside the re-registered one): the one named
//     by recorded (status.nodeRef), else nil until only one is left.
//
// It also returns how many Nodes carry the providerID.
func MachineNode(providerID string, recorded *v1alpha1.MachineNodeReference, nodes []corev1.Node) (*corev1.Node, int) {
	if providerID == "" {
		return nil, 0
	}
	var found *corev1.Node
	n := 0
	for i := range nodes {
		if nodes[i].Spec.ProviderID != providerID {
			continue
		}
		n++
		if found == nil || (recorded != nil && nodes[i].Name == recorded.Name) {
			found = &nodes[i]
		}
	}
	if n > 1 && (recorded == nil || found.Name != recorded.Name) {
		return nil, n
	}
	return found, n
}
