// Package rbac embeds the manager's RBAC manifests so that tests and the demo run the manager
// with exactly the permissions a deployment grants, without reading the source tree at run time.
package rbac

import "embed"

// Manifests holds the roles config/default binds to the manager: role.yaml (its ClusterRole,
// generated from the controllers' +kubebuilder:rbac markers by `make manifests`),
// metrics_auth_role.yaml (token and access reviews for its authenticated metrics) and
// leader_election_role.yaml (the Role it needs in its own namespace for leader election). Load
// them with embedded.LoadRoles.
//
//go:embed role.yaml metrics_auth_role.yaml leader_election_role.yaml
var Manifests embed.FS

// MetricsReader holds metrics_reader_role.yaml, the ClusterRole a metrics scraper is bound to
// (get on /metrics). Load it with embedded.LoadRoles.
//
//go:embed metrics_reader_role.yaml
var MetricsReader embed.FS
