package fleet

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// SetClusterAPIRunning sets in s what Cluster API's Machine controller writes once the
// Machine's Node (named node) is Ready: both initialization flags, the nodeRef, and the
// BootstrapConfigReady, InfrastructureReady, NodeReady and NodeHealthy conditions True since at
// (other conditions are kept).
func SetClusterAPIRunning(s *clusterv1.MachineStatus, node string, at metav1.Time) {
	s.Phase = string(clusterv1.MachinePhaseRunning)
	s.Initialization.BootstrapDataSecretCreated = ptr.To(true)
	s.Initialization.InfrastructureProvisioned = ptr.To(true)
	s.NodeRef = clusterv1.MachineNodeReference{Name: node}
	for _, c := range []metav1.Condition{
		{Type: clusterv1.MachineBootstrapConfigReadyCondition, Reason: clusterv1.MachineBootstrapDataSecretProvidedReason},
		{Type: clusterv1.MachineInfrastructureReadyCondition, Reason: clusterv1.MachineInfrastructureReadyReason},
		{Type: clusterv1.MachineNodeReadyCondition, Reason: clusterv1.MachineNodeReadyReason},
		{Type: clusterv1.MachineNodeHealthyCondition, Reason: clusterv1.MachineNodeHealthyReason},
	} {
		c.Status, c.LastTransitionTime = metav1.ConditionTrue, at
		meta.SetStatusCondition(&s.Conditions, c)
	}
}
