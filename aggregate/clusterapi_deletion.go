package aggregate

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// DeletionCause says why Cluster API deletes m, from what m carries when its deletion starts
// (and whether its Cluster is being deleted); first match wins:
//   - its Cluster is being deleted: ClusterDeleted;
//   - it is remediated: its health check failed (HealthCheckSucceeded False: the check's reason
//     names the cause), its owner remediates it (OwnerRemediated False), or remediation was
//     requested (the cluster.x-k8s.io/remediate-machine annotation);
//   - it carries the cluster.x-k8s.io/delete-machine annotation: MarkedForDeletion;
//   - it is not up to date (UpToDate False): Rollout;
//   - otherwise DeletionRequested.
func DeletionCause(m *clusterv1.Machine, clusterDeleting bool) v1alpha1.MachineOperationReason {
	get := func(t string) *metav1.Condition { return meta.FindStatusCondition(m.Status.Conditions, t) }
	hc := get(clusterv1.MachineHealthCheckSucceededCondition)
	_, remediate := m.Annotations[clusterv1.RemediateMachineAnnotation]
	_, marked := m.Annotations[clusterv1.DeleteMachineAnnotation]
	switch {
	case clusterDeleting:
		return v1alpha1.ClusterDeletedReason
	case hasStatus(hc, metav1.ConditionFalse):
		switch hc.Reason {
		case clusterv1.MachineHealthCheckNodeStartupTimeoutReason:
			return v1alpha1.RemediationNodeStartupTimeoutReason
		case clusterv1.MachineHealthCheckUnhealthyNodeReason:
			return v1alpha1.RemediationUnhealthyNodeReason
		case clusterv1.MachineHealthCheckUnhealthyMachineReason:
			return v1alpha1.RemediationUnhealthyMachineReason
		case clusterv1.MachineHealthCheckNodeDeletedReason:
			return v1alpha1.RemediationNodeDeletedReason
		case clusterv1.MachineHealthCheckHasRemediateAnnotationReason:
			return v1alpha1.RemediationRequestedReason
		}
		return v1alpha1.RemediationReason
	case remediate:
		return v1alpha1.RemediationRequestedReason
	case hasStatus(get(clusterv1.MachineOwnerRemediatedCondition), metav1.ConditionFalse):
		return v1alpha1.RemediationReason
	case marked:
		return v1alpha1.MarkedForDeletionReason
	case hasStatus(get(clusterv1.MachineUpToDateCondition), metav1.ConditionFalse):
		return v1alpha1.RolloutReason
	}
	return v1alpha1.DeletionRequestedReason
}

// ReasonText is how a description or an event names reason r: "" for none.
func ReasonText(r v1alpha1.MachineOperationReason) string {
	return map[v1alpha1.MachineOperationReason]string{
		v1alpha1.DeletionRequestedReason:             "requested",
		v1alpha1.RolloutReason:                       "replaced by a rollout",
		v1alpha1.MarkedForDeletionReason:             "marked for deletion",
		v1alpha1.ClusterDeletedReason:                "cluster deleted",
		v1alpha1.RemediationReason:                   "remediation",
		v1alpha1.RemediationNodeStartupTimeoutReason: "remediation after NodeStartupTimeout",
		v1alpha1.RemediationUnhealthyNodeReason:      "remediation after UnhealthyNode",
		v1alpha1.RemediationUnhealthyMachineReason:   "remediation after UnhealthyMachine",
		v1alpha1.RemediationNodeDeletedReason:        "remediation after NodeDeleted",
		v1alpha1.RemediationRequestedReason:          "remediation requested",
	}[r]
}
