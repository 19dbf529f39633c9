package monitoring

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// ParseRules parses and validates a Prometheus rule file as Prometheus does when it loads one.
func ParseRules(src []byte) (*rulefmt.RuleGroups, error) {
	groups, errs := rulefmt.Parse(src, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return groups, nil
}

// PrometheusRule returns the PrometheusRule holding the groups of the rule file src (RulesFile),
// as they are written there, comments included. It returns an error when src is not a valid
// rule file or does not start its groups with a top-level `groups:` line.
func PrometheusRule(src []byte) ([]byte, error) {
	if _, err := ParseRules(src); err != nil {
		return nil, fmt.Errorf("%s: %w", RulesFile, err)
	}
	_, groups, ok := bytes.Cut(src, []byte("\ngroups:\n"))
	if !ok {
		return nil, fmt.Errorf("%s: no line `groups:`", RulesFile)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# Generated from %s by make prometheus-generate: do not edit.
# The alerts, their thresholds and how to change them: docs/alerts.md.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: machinestatus
  namespace: machinestatus-system
  labels:
    app.kubernetes.io/name: machinestatus
spec:
  groups:
`, RulesFile)
	for _, line := range strings.SplitAfter(string(groups), "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	return []byte(b.String()), nil
}
