// Package clusterapi embeds the manager's ClusterRole for Cluster API Machines
// (--machine-apis=cluster.x-k8s.io) so that tests run the manager with exactly the permissions a
// deployment of config/clusterapi grants.
package clusterapi

import "embed"

// Manifests holds role.yaml, the ClusterRole of the Cluster API mode. Load it with
// embedded.LoadRoles; leader election needs the Role of config/rbac (rbac.Manifests) too.
//
//go:embed role.yaml
var Manifests embed.FS
