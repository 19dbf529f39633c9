package fleet

import (
	"context"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/config/clusterapi"
	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/internal/embedded"
)

// GrantClusterAPIManager provisions ManagerUser on cp with exactly the RBAC of the manager's
// Cluster API mode (--machine-apis=cluster.x-k8s.io): the ClusterRole of config/clusterapi and
// the leader election Role of config/rbac in ManagerNamespace (not config/rbac's machinestatus
// ClusterRole), and writes the user's kubeconfig to path.
func GrantClusterAPIManager(ctx context.Context, cp *embedded.ControlPlane, path string) error {
	capiRoles, err := embedded.LoadRoles(clusterapi.Manifests)
	if err != nil {
		return err
	}
	ours, err := embedded.LoadRoles(rbac.Manifests)
	if err != nil {
		return err
	}
	if len(capiRoles.ClusterRoles) != 1 || len(ours.Roles) != 1 {
		return fmt.Errorf("want one ClusterRole in config/clusterapi and one Role in config/rbac, got %d and %d",
			len(capiRoles.ClusterRoles), len(ours.Roles))
	}
	u, err := cp.AddUser(ManagerUser)
	if err != nil {
		return err
	}
	roles := embedded.Roles{ClusterRoles: capiRoles.ClusterRoles, Roles: ours.Roles}
	if err := cp.Grant(ctx, u.Name, ManagerNamespace, roles); err != nil {
		return err
	}
	if err := os.WriteFile(path, u.Kubeconfig, 0o600); err != nil {
		return fmt.Errorf("cannot write the manager's kubeconfig: %w", err)
	}
	return nil
}

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
