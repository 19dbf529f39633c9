package prometheus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/machinestatus/machinestatus/test/prometheus/monitoring"
)

// expression is one PromQL expression shipped in config/prometheus.
type expression struct {
	where string // e.g. "alert MachineFailed" or `dashboard panel "Stuck Machines"`
	expr  string // as shipped (a dashboard's with its variables)
	// labelValues, for a dashboard variable's label_values(selector, label): the label.
	labelValues string
}

// dashboardVariables are the values the dashboard's variables take when an expression is
// checked: every api_group, cluster and pool, the default duration window.
var dashboardVariables = strings.NewReplacer(
	"$api_group", ".*", "$cluster", ".*", "$pool", ".*", "$window", "1h",
)

// ruleExpressions returns the expression of every rule of monitoring.RulesFile.
func ruleExpressions(t *testing.T) []expression {
	t.Helper()
	groups := ruleGroups(t)
	var out []expression
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			where := "alert " + r.Alert
			if r.Record != "" {
				where = fmt.Sprintf("record %s%v", r.Record, labels.FromMap(r.Labels))
			}
			out = append(out, expression{where: where, expr: r.Expr})
		}
	}
	return out
}

// labelValuesQuery is Grafana's label_values(selector, label) variable query.
var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// dashboardExpressions returns every query of monitoring.DashboardFile: each panel target's
// expr and each query variable's query.
func dashboardExpressions(t *testing.T) []expression {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, monitoring.DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", monitoring.DashboardFile, err)
	}
	var out []expression
	for _, p := range d.Panels {
		for _, target := range p.Targets {
			out = append(out, expression{where: fmt.Sprintf("dashboard panel %q", p.Title), expr: target.Expr})
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("%s: variable %s: %v", monitoring.DashboardFile, v.Name, err)
		}
		m := labelValuesQuery.FindStringSubmatch(q.Query)
		if m == nil {
			t.Fatalf("%s: variable %s: query %q is not label_values(selector, label)", monitoring.DashboardFile, v.Name, q.Query)
		}
		out = append(out, expression{where: "dashboard variable " + v.Name, expr: m[1], labelValues: m[2]})
	}
	for _, e := range out {
		if e.expr == "" {
			t.Fatalf("%s: %s has no expression", monitoring.DashboardFile, e.where)
		}
	}
	return out
}

// TestExpressionsAgainstSeries parses every PromQL expression of the rules and of the dashboard
// with Prometheus's parser, checks that each refers only to metrics, labels and label values
// the series file (with the recording rules evaluated over it) has, and evaluates each with
// Prometheus's engine over the series file: each returns data at some time of the scenario.
func TestExpressionsAgainstSeries(t *testing.T) {
	e := evaluate(t)
	inv := e.inventory(t)
	exprs := append(ruleExpressions(t), dashboardExpressions(t)...)
	for _, x := range exprs {
		t.Run(x.where, func(t *testing.T) {
			query := dashboardVariables.Replace(x.expr)
			parsed, err := promqlParser.ParseExpr(query)
			if err != nil {
				t.Fatalf("%s does not parse: %v", x.expr, err)
			}
			for _, problem := range unknownReferences(parsed, inv) {
				t.Errorf("%s: %s", x.expr, problem)
			}
			if x.labelValues != "" {
				if _, ok := parsed.(*parser.VectorSelector); !ok {
					t.Fatalf("label_values of %s: not a series selector", x.expr)
				}
				if problems := unknownLabels(parsed, []string{x.labelValues}, inv); len(problems) > 0 {
					t.Errorf("label_values(%s, %s): %v", x.expr, x.labelValues, problems)
				}
			}
			if m := e.rangeQuery(t, query); samples(m) == 0 {
				t.Errorf("%s returns no data over the series file", x.expr)
			}
		})
	}
}

func samples(m promql.Matrix) int {
	n := 0
	for _, s := range m {
		n += len(s.Floats) + len(s.Histograms)
	}
	return n
}

// literalAlternatives matches a regular expression that only lists literal values (a|b|c).
var literalAlternatives = regexp.MustCompile(`^[A-Za-z0-9_.:/+-]+(\|[A-Za-z0-9_.:/+-]+)*$`)

// unknownReferences walks expr and reports, in the inventory of metric name → label → values:
// a series selector of a metric that no series has, a matcher on a label that metric's series
// lack or on a value they never take (for = and, when they list literal values, =~ and !~), and
// a grouping or vector matching label (by, without, on, ignoring, group_left/right) that no
// series selected below it has.
func unknownReferences(expr parser.Expr, inv map[string]map[string][]string) []string {
	var problems []string
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			problems = append(problems, unknownSelector(n, inv)...)
		case *parser.AggregateExpr:
			problems = append(problems, unknownLabels(n.Expr, n.Grouping, inv)...)
		case *parser.BinaryExpr:
			if n.VectorMatching != nil {
				lbls := append(slices.Clone(n.VectorMatching.MatchingLabels), n.VectorMatching.Include...)
				problems = append(problems, unknownLabels(n.LHS, lbls, inv)...)
				problems = append(problems, unknownLabels(n.RHS, n.VectorMatching.MatchingLabels, inv)...)
			}
		}
		return nil
	})
	return problems
}

func unknownSelector(vs *parser.VectorSelector, inv map[string]map[string][]string) []string {
	name := vs.Name
	for _, m := range vs.LabelMatchers {
		if m.Name == model.MetricNameLabel && m.Type == labels.MatchEqual {
			name = m.Value
		}
	}
	series, ok := inv[name]
	if !ok {
		return []string{fmt.Sprintf("no series of metric %s", name)}
	}
	var problems []string
	for _, m := range vs.LabelMatchers {
		if m.Name == model.MetricNameLabel {
			continue
		}
		values, ok := series[m.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no label %s", name, m.Name))
			continue
		}
		var want []string
		switch {
		case m.Value == "":
		case m.Type == labels.MatchEqual || m.Type == labels.MatchNotEqual:
			want = []string{m.Value}
		case literalAlternatives.MatchString(m.Value):
			want = strings.Split(m.Value, "|")
		}
		for _, v := range want {
			if !slices.Contains(values, v) {
				problems = append(problems, fmt.Sprintf("%s never has %s=%q (it has %q)", name, m.Name, v, values))
			}
		}
	}
	return problems
}

// unknownLabels reports the labels of want that no series selected in expr has.
func unknownLabels(expr parser.Expr, want []string, inv map[string]map[string][]string) []string {
	have := map[string]bool{}
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			for l := range inv[vs.Name] {
				have[l] = true
			}
		}
		return nil
	})
	var problems []string
	for _, l := range want {
		if !have[l] {
			problems = append(problems, fmt.Sprintf("label %s is on no series %s selects", l, expr))
		}
	}
	return problems
}
