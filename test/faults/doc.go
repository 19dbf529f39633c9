// Package faults holds the fault tests of the machinestatus manager, run as its own process
// (bin/manager) against a real kube-apiserver + etcd with kwok and the simulated provider
// (test/internal/fleet): an API server outage, SIGKILL and restart, leader election takeover,
// injected write conflicts (409) and deletion under every manager state. The tests are behind
// the build tag "faults" (`make test` runs them: `go test -tags faults ./test/faults/`), and
// docs/operating.md ("Reliability") records the figures of a run.
package faults
