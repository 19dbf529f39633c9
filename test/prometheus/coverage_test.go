package prometheus

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"go.yaml.in/yaml/v3"

	"github.com/machinestatus/machinestatus/test/prometheus/monitoring"
)

// ruleTests is what this test reads of promtool's unit test files.
type ruleTests struct {
	RuleFiles      []string `yaml:"rule_files"`
	GroupEvalOrder []string `yaml:"group_eval_order"`
	Tests          []struct {
		Name          string `yaml:"name"`
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
		PromqlExprTest []struct {
			Expr       string `yaml:"expr"`
			ExpSamples []any  `yaml:"exp_samples"`
		} `yaml:"promql_expr_test"`
	} `yaml:"tests"`
}

func ruleGroups(t *testing.T) *rulefmt.RuleGroups {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, monitoring.RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	groups, err := monitoring.ParseRules(b)
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// TestEveryRuleHasPromtoolTests checks that the promtool unit tests (make prometheus-tests runs
// them) load the rule file, evaluate its groups in order, test every alert where it fires and
// where it stays quiet, and query every recorded series (thresholds included).
func TestEveryRuleHasPromtoolTests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, monitoring.RuleTestsDir, "*.test.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no promtool test files in %s (%v)", monitoring.RuleTestsDir, err)
	}
	fires, quiet, queried := map[string]bool{}, map[string]bool{}, map[string]bool{}
	name := regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rt ruleTests
		if err := yaml.Unmarshal(b, &rt); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(filepath.Dir(f), filepath.Join(root, monitoring.RulesFile))
		if !slices.Equal(rt.RuleFiles, []string{rel}) || !slices.Equal(rt.GroupEvalOrder, monitoring.GroupOrder) {
			t.Errorf("%s: rule_files %v, group_eval_order %v; want [%s], %v", f, rt.RuleFiles, rt.GroupEvalOrder, rel, monitoring.GroupOrder)
		}
		for _, test := range rt.Tests {
			for _, a := range test.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					fires[a.Alertname] = true
				} else {
					quiet[a.Alertname] = true
				}
			}
			for _, q := range test.PromqlExprTest {
				for _, n := range name.FindAllString(q.Expr, -1) {
					queried[n] = true
				}
			}
		}
	}
	for _, g := range ruleGroups(t).Groups {
		for _, r := range g.Rules {
			switch {
			case r.Alert != "" && (!fires[r.Alert] || !quiet[r.Alert]):
				t.Errorf("alert %s: promtool tests where it fires: %t, where it stays quiet: %t; want both", r.Alert, fires[r.Alert], quiet[r.Alert])
			case r.Record != "" && !queried[r.Record]:
				t.Errorf("recording rule %s: no promql_expr_test queries it", r.Record)
			}
		}
	}
}

// TestAlertsDocumented checks every alert's labels and annotations: a severity of warning
// (a ticket) or critical (a page); a summary and a description naming the Machine
// (namespace/name), its cluster and pool, or the pool or API; a runbook_url to its section of
// docs/alerts.md, whose heading is the alert's name.
func TestAlertsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings[strings.TrimSpace(h)] = true
		}
	}
	for _, g := range ruleGroups(t).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("alert %s: severity %q, want warning or critical", r.Alert, s)
			}
			want := "https://github.com/machinestatus/machinestatus/blob/main/docs/alerts.md#" + strings.ToLower(r.Alert)
			if got := r.Annotations["runbook_url"]; got != want {
				t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, got, want)
			}
			if !headings[r.Alert] {
				t.Errorf("alert %s: docs/alerts.md has no section `## %s`", r.Alert, r.Alert)
			}
			text := r.Annotations["summary"] + r.Annotations["description"]
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: no summary or no description", r.Alert)
			}
			if strings.Contains(r.Expr, "machine_last_operation_age_seconds") {
				for _, l := range []string{"{{ $labels.namespace }}/{{ $labels.name }}", "{{ $labels.cluster }}", "{{ $labels.pool }}"} {
					if !strings.Contains(text, l) {
						t.Errorf("alert %s: its annotations do not name %s", r.Alert, l)
					}
				}
			}
		}
	}
}

// TestThresholdsTable checks docs/alerts.md's table of thresholds (between
// `<!-- alerts:thresholds begin -->` and `<!-- alerts:thresholds end -->`) against the
// thresholds group of the rule file: the index a patch names, the series and the default.
// PROMETHEUS_WRITE_DOCS=1 writes it.
func TestThresholdsTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| index | threshold | default |\n|---|---|---|\n")
	for _, g := range ruleGroups(t).Groups {
		if g.Name != monitoring.ThresholdsGroup {
			continue
		}
		for i, r := range g.Rules {
			series := r.Record
			if len(r.Labels) > 0 {
				series += labels.FromMap(r.Labels).String()
			}
			fmt.Fprintf(&b, "| %d | `%s` | %s |\n", i, series, r.Expr)
		}
	}
	path := filepath.Join(root, "docs", "alerts.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- alerts:thresholds begin -->\n", "<!-- alerts:thresholds end -->"
	before, rest, ok1 := strings.Cut(string(doc), begin)
	_, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("docs/alerts.md has no %q … %q block", begin, end)
	}
	want := before + begin + b.String() + end + after
	if os.Getenv("PROMETHEUS_WRITE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(doc) != want {
		t.Errorf("docs/alerts.md's thresholds table is not the rule file's: run PROMETHEUS_WRITE_DOCS=1 make prometheus-tests; want\n%s", b.String())
	}
}
