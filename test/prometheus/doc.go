// Package prometheus holds the tests of what config/prometheus ships, run by make test
// (make prometheus-tests): the generated files are up to date, every PromQL expression of the
// rules and of the dashboard is parsed and evaluated by Prometheus's own engine against the
// series of a Machine fleet (monitoring.SeriesFile) and refers only to metrics and labels those
// series have, the alerts fire on that fleet where and when they should, every rule has a
// promtool unit test (config/prometheus/tests, run by bin/promtool) and every alert a runbook
// section in docs/alerts.md. It is a module of its own: Prometheus's dependencies never move the
// main module's.
//
// The series file is promtool's input_series format with a start_timestamp: the manager's
// machinestatus_* series, recorded while a fleet of both Machine APIs runs through it.
// test/metrics's TestFleetSeries, which says what happens minute by minute, writes it with
// METRICS_WRITE_SERIES=1 and, in make test, checks that it holds the series a run gives.
package prometheus
