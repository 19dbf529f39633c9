package fleet

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/config/clusterapi"
	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

const (
	// ManagerUser is the user the fleet's managers authenticate as (unless
	// Options.AdminManager): see grantManager.
	ManagerUser = harness.ManagerUser
	// ManagerNamespace is where the manager user may hold its leader election Lease; StartManager
	// passes it as --leader-election-namespace unless args name another.
	ManagerNamespace = harness.ManagerNamespace
	// SimMachineReaderRole is the ClusterRole granting read access to the simulated provider's
	// SimMachines, whose group the manager's ClusterRole does not cover: the grant a user adds
	// for a provider outside the Cluster API groups.
	SimMachineReaderRole = "machinestatus-simmachine-reader"
)

// ClusterAPIManagerRoles returns exactly the RBAC of the manager's Cluster API mode
// (--machine-apis=cluster.x-k8s.io): the ClusterRole of config/clusterapi and the leader
// election Role of config/rbac (not config/rbac's machinestatus ClusterRoles). It returns an
// error when the manifests cannot be decoded or do not hold those.
func ClusterAPIManagerRoles() (embedded.Roles, error) {
	ours, err := harness.ManagerRoles()
	if err != nil {
		return ours, err
	}
	capi, err := embedded.LoadRoles(clusterapi.Manifests)
	if err != nil {
		return capi, err
	}
	if len(capi.ClusterRoles) != 1 {
		return capi, fmt.Errorf("want one ClusterRole in config/clusterapi, got %d", len(capi.ClusterRoles))
	}
	return embedded.Roles{ClusterRoles: capi.ClusterRoles, Roles: ours.Roles}, nil
}

// grantManager provisions ManagerUser (harness.Env.GrantManager) and returns its kubeconfig's
// path. It binds the user to the RBAC of config/rbac plus SimMachineReaderRole or, with
// clusterAPI, to ClusterAPIManagerRoles; with both, to all of them.
func (e *Fleet) grantManager(ctx context.Context, clusterAPI, both bool) (string, error) {
	roles, err := harness.ManagerRoles()
	if err != nil {
		return "", err
	}
	if clusterAPI && !both {
		roles, err = ClusterAPIManagerRoles()
		if err != nil {
			return "", err
		}
	} else {
		roles.ClusterRoles = append(roles.ClusterRoles, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: SimMachineReaderRole},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{infrav1.GroupVersion.Group},
				Resources: []string{"simmachines"},
				Verbs:     []string{"get", "list", "watch"},
			}},
		})
	}
	if both {
		capi, err := ClusterAPIManagerRoles()
		if err != nil {
			return "", err
		}
		roles.ClusterRoles = append(roles.ClusterRoles, capi.ClusterRoles...)
	}
	_, path, err := e.GrantManager(ctx, roles)
	return path, err
}
