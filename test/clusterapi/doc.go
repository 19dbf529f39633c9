// Package clusterapi checks machinestatus against Cluster API's real controllers. It runs
// Cluster API v1.14's Cluster, Machine, MachineSet, MachineDeployment and MachineHealthCheck
// reconcilers (with a ClusterCache whose workload cluster is the same API server), each writing
// with a user agent of its own, on the embedded kube-apiserver + etcd with an audit log, kwok
// Nodes and the simulated infrastructure provider, beside our manager (bin/manager) in its
// Cluster API mode as its own process under the RBAC of config/clusterapi.
//
// TestClusterAPI drives, side by side, a standalone Machine through its lifecycle (lifecycle.go),
// MachineDeployments through scale, rollout, remediation, deletion hooks, Nodes that never
// register and deletions with no finalizer to hold them (flows.go), and two troubled pools the
// CLI must name (cli.go). At every settled step it compares Cluster API's phase with the
// lastOperation our manager keeps in the machinestatus.io/last-operation annotation and the
// phase derived with it; over the run it checks our manager's log, its events, and, from the
// audit log, each writer's writes (audit.go, writes.go). Its tables are docs/clusterapi.md's
// generated blocks (CLUSTERAPI_WRITE_DOCS=1 writes them).
//
// RunScale (make bench-clusterapi-scale) runs the same controllers as a process of their own with
// N Machines and records docs/benchmarks.md's block clusterapi-scale.
//
// It is a Go module of its own, so that the main module never requires sigs.k8s.io/cluster-api.
// Run it with `make test-clusterapi`.
package clusterapi
