package status

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What the status computation reads of the objects it is given, so that caches keep nothing else.

// NodeFields returns the part of n the status computation reads: identity, providerID,
// unschedulable, conditions and the kubelet version.
func NodeFields(n *corev1.Node) *corev1.Node {
	kept := &corev1.Node{}
	kept.TypeMeta = n.TypeMeta
	kept.Name, kept.UID, kept.ResourceVersion, kept.Generation = n.Name, n.UID, n.ResourceVersion, n.Generation
	kept.CreationTimestamp, kept.DeletionTimestamp = n.CreationTimestamp, n.DeletionTimestamp
	kept.Spec.ProviderID, kept.Spec.Unschedulable = n.Spec.ProviderID, n.Spec.Unschedulable
	kept.Status.Conditions = n.Status.Conditions
	kept.Status.NodeInfo.KubeletVersion = n.Status.NodeInfo.KubeletVersion
	return kept
}

// contractStatusFields are the status fields ReadContract reads.
var contractStatusFields = []string{
	"initialization", "ready", "failureReason", "failureMessage", "deprecated", "dataSecretName", "conditions", "v1beta2",
}

// ContractFields returns the part of a referenced object ReadContract reads: its identity,
// spec.providerID and the contract's status fields. A status that is not an object is kept, so
// that it is reported as a contract violation.
func ContractFields(u *unstructured.Unstructured) *unstructured.Unstructured {
	kept := &unstructured.Unstructured{Object: map[string]any{}}
	kept.SetAPIVersion(u.GetAPIVersion())
	kept.SetKind(u.GetKind())
	kept.SetName(u.GetName())
	kept.SetNamespace(u.GetNamespace())
	kept.SetUID(u.GetUID())
	kept.SetResourceVersion(u.GetResourceVersion())
	kept.SetGeneration(u.GetGeneration())
	kept.SetCreationTimestamp(u.GetCreationTimestamp())
	kept.SetDeletionTimestamp(u.GetDeletionTimestamp())
	if spec, ok := u.Object["spec"].(map[string]any); ok {
		if id, ok := spec["providerID"]; ok {
			kept.Object["spec"] = map[string]any{"providerID": id}
		}
	}
	switch status := u.Object["status"].(type) {
	case map[string]any:
		s := map[string]any{}
		for _, f := range contractStatusFields {
			if v, ok := status[f]; ok {
				s[f] = v
			}
		}
		kept.Object["status"] = s
	case nil:
	default:
		kept.Object["status"] = status
	}
	return kept
}
