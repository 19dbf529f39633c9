// Package clusterapi checks machinestatus against Cluster API's real controllers. Its tests run
// Cluster API v1.14's Cluster, Machine and MachineHealthCheck reconcilers (with a ClusterCache
// whose workload cluster is the same API server) on the embedded kube-apiserver + etcd, with kwok
// Nodes and the simulated infrastructure provider, and our manager (bin/manager) in its Cluster
// API mode as its own process under the RBAC of config/clusterapi; they drive a Machine through a
// real lifecycle and compare, at every settled step, Cluster API's phase with the lastOperation
// our manager wrote (the machinestatus.io/last-operation annotation) and the phase derived with
// it. Every difference must be one docs/clusterapi.md justifies; the recorded
// table is written there (CLUSTERAPI_WRITE_DOCS=1) or checked against it.
//
// It is a Go module of its own, so that the main module never requires sigs.k8s.io/cluster-api.
// Run it with `make test-clusterapi`.
package clusterapi
