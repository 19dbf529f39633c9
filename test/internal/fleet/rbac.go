package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/internal/embedded"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

const (
	// ManagerUser is the user the fleet's managers authenticate as (unless
	// Options.AdminManager): it is bound to the manager's ClusterRole of config/rbac and to the
	// leader election Role in ManagerNamespace, nothing else but SimMachineReaderRole.
	ManagerUser = "machinestatus-manager"
	// ManagerNamespace is where the manager user may hold its leader election Lease; StartManager
	// passes it as --leader-election-namespace unless args name another.
	ManagerNamespace = "machinestatus-system"
	// SimMachineReaderRole is the ClusterRole granting read access to the simulated provider's
	// SimMachines, whose group the manager's ClusterRole does not cover: the grant a user adds
	// for a provider outside the Cluster API groups.
	SimMachineReaderRole = "machinestatus-simmachine-reader"
)

// grantManager provisions ManagerUser with the RBAC of config/rbac (the generated ClusterRole
// and the leader election Role in ManagerNamespace) plus SimMachineReaderRole, and writes its
// kubeconfig to StateDir/manager-kubeconfig, which it returns.
func (e *Fleet) grantManager(ctx context.Context) (string, error) {
	roles, err := embedded.LoadRoles(rbac.Manifests)
	if err != nil {
		return "", err
	}
	roles.ClusterRoles = append(roles.ClusterRoles, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SimMachineReaderRole},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{infrav1.GroupVersion.Group},
			Resources: []string{"simmachines"},
			Verbs:     []string{"get", "list", "watch"},
		}},
	})
	u, err := e.CP.AddUser(ManagerUser)
	if err != nil {
		return "", err
	}
	if err := e.CP.Grant(ctx, u.Name, ManagerNamespace, roles); err != nil {
		return "", err
	}
	path := filepath.Join(e.StateDir, "manager-kubeconfig")
	if err := os.WriteFile(path, u.Kubeconfig, 0o600); err != nil {
		return "", fmt.Errorf("cannot write the manager's kubeconfig: %w", err)
	}
	return path, nil
}
