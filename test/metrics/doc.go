// Package metrics tests the manager's Prometheus endpoint end to end: it runs bin/manager
// against a real kube-apiserver + etcd with kwok and the simulated provider
// (test/internal/fleet), checks who may scrape /metrics (HTTPS, the default: a token bound to
// config/rbac's metrics-reader may), drives Machines through phases, scrapes /metrics with that
// token and checks the values against the Machines the API server holds, and that
// docs/operating.md lists only metrics the endpoint serves. With both Machine APIs, it checks that
// operation durations are observed exactly once across a restart of the manager
// (TestDurationsAcrossRestart), and records test/prometheus's series file from a fleet driven
// through the manager (TestFleetSeries; in make test, it checks the file has this run's series).
package metrics
