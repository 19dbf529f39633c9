package embedded

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// User is an identity the API server authenticates by client certificate and authorizes with
// RBAC only (envtest runs kube-apiserver with --authorization-mode=RBAC). Without a grant it may
// do no more than every authenticated user: discovery and reviewing its own access.
type User struct {
	// Name is the user name RBAC subjects refer to (kind User).
	Name string
	// Config is a REST config authenticating as Name.
	Config *rest.Config
	// Kubeconfig is a kubeconfig authenticating as Name.
	Kubeconfig []byte
}

// AddUser provisions a user named name, member of groups, and returns its credentials. It
// returns an error when name is empty or group is a privileged one (system:masters), or
// envtest's error.
func (c *ControlPlane) AddUser(name string, groups ...string) (*User, error) {
	if name == "" {
		return nil, errors.New("embedded: a user needs a name")
	}
	for _, g := range groups {
		if g == "system:masters" {
			return nil, fmt.Errorf("embedded: user %s would bypass RBAC as a member of %s", name, g)
		}
	}
	u, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot provision user %s: %w", name, err)
	}
	kubeconfig, err := u.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot write a kubeconfig for user %s: %w", name, err)
	}
	return &User{Name: name, Config: rest.CopyConfig(u.Config()), Kubeconfig: kubeconfig}, nil
}
