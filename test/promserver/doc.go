// Package promserver runs a real Prometheus server (bin/prometheus, built from the module proxy
// by make) against the manager, as a cluster's Prometheus would scrape it: HTTPS with a
// metrics-reader ServiceAccount's token, the manager's default self-signed certificate not
// verified, the Machines' labels honored, and the rules of config/prometheus loaded; the demo's
// Failed Machine must raise MachineFailed, read back through Prometheus's HTTP API. Its test
// has the build tag "promserver": `make test-prometheus` runs it, `make test` does not
// (docs/development.md gives the build cost that keeps it out).
package promserver
