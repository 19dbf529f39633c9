// Package rbac embeds the manager's RBAC manifests so that tests and the demo run the manager
// with exactly the permissions a deployment grants, without reading the source tree at run time.
package rbac

import "embed"

// Manifests holds role.yaml (the manager's ClusterRole, generated from the controllers'
// +kubebuilder:rbac markers by `make manifests`) and leader_election_role.yaml (the Role the
// manager needs in its own namespace for leader election). Load them with embedded.LoadRoles.
//
//go:embed role.yaml leader_election_role.yaml
var Manifests embed.FS
