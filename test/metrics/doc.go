// Package metrics tests the manager's Prometheus endpoint end to end: it runs bin/manager
// against a real kube-apiserver + etcd with kwok and the simulated provider
// (test/internal/fleet), drives Machines through phases, scrapes /metrics over HTTP and checks
// the values against the Machines the API server holds, and that docs/metrics.md lists only
// metrics the endpoint serves.
package metrics
