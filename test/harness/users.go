package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/test/embedded"
)

const (
	// ManagerUser is the identity managers run as in the tests: bound only to the roles
	// GrantManager is given, never a member of system:masters.
	ManagerUser = "machinestatus-manager"
	// ManagerNamespace is where ManagerUser may hold its leader election Lease (the Roles of
	// GrantManager are granted there).
	ManagerNamespace = "machinestatus-system"
)

// ManagerRoles returns the roles of config/rbac: the manager's and metrics-auth ClusterRoles
// and the leader election Role. It returns an error when the manifests cannot be decoded or do
// not hold exactly those.
func ManagerRoles() (embedded.Roles, error) {
	roles, err := embedded.LoadRoles(rbac.Manifests)
	if err != nil {
		return roles, err
	}
	if len(roles.ClusterRoles) != 2 || len(roles.Roles) != 1 {
		return roles, fmt.Errorf("config/rbac holds %d ClusterRoles and %d Roles, want 2 (manager, metrics-auth) and 1", len(roles.ClusterRoles), len(roles.Roles))
	}
	return roles, nil
}

// GrantManager provisions ManagerUser, binds it to roles (ClusterRoles cluster-wide, Roles in
// ManagerNamespace, which it creates) and writes its kubeconfig to Dir/manager-kubeconfig. It
// returns the user (Config authenticates as it) and the kubeconfig's path, or the first error.
func (e *Env) GrantManager(ctx context.Context, roles embedded.Roles) (*embedded.User, string, error) {
	u, err := e.CP.AddUser(ManagerUser)
	if err != nil {
		return nil, "", err
	}
	if err := e.CP.Grant(ctx, u.Name, ManagerNamespace, roles); err != nil {
		return nil, "", err
	}
	path := filepath.Join(e.Dir, "manager-kubeconfig")
	if err := os.WriteFile(path, u.Kubeconfig, 0o600); err != nil {
		return nil, "", fmt.Errorf("cannot write the manager's kubeconfig: %w", err)
	}
	return u, path, nil
}
