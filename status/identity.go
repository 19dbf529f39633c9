package status

import (
	"fmt"
	"slices"
	"strings"

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
// spec.providerID equals providerID can be it), or nil when there is none (or no providerID is
// known yet). When several carry the providerID (an old Node object not deleted beside the one
// the host registered again), the evidence decides, first match wins:
//   - a Node not being deleted before one that is;
//   - a Ready Node (the live kubelet) before one that is not, whatever status.nodeRef says;
//   - the Node recorded names (status.nodeRef);
//   - the newest (creationTimestamp), then by name.
//
// It also returns the other Nodes that carry the providerID, each as "name (Ready=status)".
func MachineNode(providerID string, recorded *v1alpha1.MachineNodeReference, nodes []corev1.Node) (*corev1.Node, []string) {
	if providerID == "" {
		return nil, nil
	}
	var candidates []*corev1.Node
	for i := range nodes {
		if nodes[i].Spec.ProviderID == providerID {
			candidates = append(candidates, &nodes[i])
		}
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	first := func(b bool) int {
		if b {
			return -1
		}
		return 1
	}
	isRecorded := func(n *corev1.Node) bool { return recorded != nil && n.Name == recorded.Name }
	isReady := func(n *corev1.Node) bool { return nodeReady(n) == corev1.ConditionTrue }
	slices.SortStableFunc(candidates, func(a, b *corev1.Node) int {
		switch {
		case (a.DeletionTimestamp == nil) != (b.DeletionTimestamp == nil):
			return first(a.DeletionTimestamp == nil)
		case isReady(a) != isReady(b):
			return first(isReady(a))
		case isRecorded(a) != isRecorded(b):
			return first(isRecorded(a))
		case !a.CreationTimestamp.Equal(&b.CreationTimestamp):
			return first(a.CreationTimestamp.After(b.CreationTimestamp.Time))
		}
		return strings.Compare(a.Name, b.Name)
	})
	var others []string
	for _, n := range candidates[1:] {
		others = append(others, fmt.Sprintf("%s (Ready=%s)", n.Name, nodeReady(n)))
	}
	return candidates[0], others
}

// nodeReady is the status of n's Ready condition, Unknown when it has none.
func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	if c := nodeCondition(n, corev1.NodeReady); c != nil {
		return c.Status
	}
	return corev1.ConditionUnknown
}
