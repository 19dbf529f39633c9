// Package monitoring makes what config/prometheus ships from its sources: the PrometheusRule
// from the Prometheus rule file, and the Grafana dashboard (built here with the Grafana
// Foundation SDK). cmd/generate writes them; the tests of this module check that the files in
// the repository are what this package makes.
package monitoring

// Paths relative to the repository root.
const (
	// RulesFile is the source of every alerting and recording rule: a Prometheus rule file.
	RulesFile = "config/prometheus/rules/machinestatus.rules.yaml"
	// PrometheusRuleFile is the PrometheusRule made from RulesFile.
	PrometheusRuleFile = "config/prometheus/prometheusrule.yaml"
	// DashboardFile is the Grafana dashboard, made by Dashboard.
	DashboardFile = "config/prometheus/dashboards/machinestatus.json"
	// RuleTestsDir holds the rules' unit tests, in promtool's format (promtool test rules).
	RuleTestsDir = "config/prometheus/tests"
	// SeriesFile holds the series the rules and the dashboard are evaluated against: promtool's
	// input_series format (interval and input_series).
	SeriesFile = "test/prometheus/testdata/fleet-series.yaml"
)

// Rule group names, in the order they are evaluated: thresholds, records, alerts.
const (
	ThresholdsGroup = "machinestatus.thresholds"
	RecordsGroup    = "machinestatus.records"
	AlertsGroup     = "machinestatus.alerts"
)

// GroupOrder is the order the rule groups are evaluated in (promtool's group_eval_order).
var GroupOrder = []string{ThresholdsGroup, RecordsGroup, AlertsGroup}
