package prometheus

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/promql/promqltest"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"go.yaml.in/yaml/v3"

	"github.com/machinestatus/machinestatus/test/prometheus/monitoring"
)

// root is the repository root, seen from this module's folder.
const root = "../.."

// seriesFile is monitoring.SeriesFile: promtool's input_series, with the time of its first
// sample.
type seriesFile struct {
	StartTimestamp int64          `yaml:"start_timestamp"`
	Interval       model.Duration `yaml:"interval"`
	InputSeries    []struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	} `yaml:"input_series"`
}

// evaluation is the series file loaded into a Prometheus storage, with every rule of
// monitoring.RulesFile evaluated at every scrape, as Prometheus's rule manager does (the
// recorded series are in the storage too) and the alerts that fired.
type evaluation struct {
	loader     *promqltest.LazyLoader
	start, end time.Time
	interval   time.Duration
	groups     []*rules.Group
	// firing is, by alert name and then by the alert's labels (less alertname and severity),
	// the times the alert was firing.
	firing map[string]map[string][]time.Time
}

// parserOptions are those of a Prometheus started without feature flags.
var promqlParser = parser.NewParser(parser.Options{})

// evaluate loads the series file and evaluates the rules over it.
func evaluate(t *testing.T) *evaluation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, monitoring.SeriesFile))
	if err != nil {
		t.Fatal(err)
	}
	var f seriesFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", monitoring.SeriesFile, err)
	}
	if f.Interval == 0 || len(f.InputSeries) == 0 {
		t.Fatalf("%s: no interval or no input_series", monitoring.SeriesFile)
	}
	e := &evaluation{
		start:    time.Unix(f.StartTimestamp, 0).UTC(),
		interval: time.Duration(f.Interval),
		firing:   map[string]map[string][]time.Time{},
	}
	var load strings.Builder
	fmt.Fprintf(&load, "load %s\n", model.Duration(e.interval))
	samples := 0
	for _, s := range f.InputSeries {
		fmt.Fprintf(&load, "  %s %s\n", s.Series, s.Values)
		_, values, err := promqlParser.ParseSeriesDesc(s.Series + " " + s.Values)
		if err != nil {
			t.Fatalf("%s: series %s: %v", monitoring.SeriesFile, s.Series, err)
		}
		samples = max(samples, len(values))
	}
	e.end = e.start.Add(time.Duration(samples-1) * e.interval)
	e.loader, err = promqltest.NewLazyLoader(load.String(), promqltest.LazyLoaderOpts{
		EnableAtModifier: true, EnableNegativeOffset: true, StartTime: e.start, Parser: promqlParser,
	})
	if err != nil {
		t.Fatalf("%s: %v", monitoring.SeriesFile, err)
	}
	t.Cleanup(func() { _ = e.loader.Close() })

	m := rules.NewManager(&rules.ManagerOptions{
		QueryFunc:    rules.EngineQueryFunc(e.loader.QueryEngine(), e.loader.Storage()),
		AppendableV2: e.loader.Storage(),
		Context:      context.Background(),
		NotifyFunc:   func(context.Context, string, ...*rules.Alert) {},
		Logger:       slog.New(slog.DiscardHandler),
		Parser:       promqlParser,
	})
	groups, errs := m.LoadGroups(e.interval, labels.EmptyLabels(), "", nil, false, filepath.Join(root, monitoring.RulesFile))
	if len(errs) > 0 {
		t.Fatalf("%s: %v", monitoring.RulesFile, errs)
	}
	for _, name := range monitoring.GroupOrder {
		for _, g := range groups {
			if g.Name() == name {
				e.groups = append(e.groups, g)
			}
		}
	}
	if len(e.groups) != len(groups) {
		t.Fatalf("%s has %d groups; the evaluation knows only %v", monitoring.RulesFile, len(groups), monitoring.GroupOrder)
	}
	for _, g := range e.groups {
		for _, r := range g.Rules() {
			if a, ok := r.(*rules.AlertingRule); ok {
				a.SetRestored(true) // as promtool does: no restoring from a previous Prometheus
			}
		}
	}

	for ts := e.start; !ts.After(e.end); ts = ts.Add(e.interval) {
		e.loader.WithSamplesTill(ts, func(err error) {
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range e.groups {
				g.Eval(e.loader.Context(), ts)
				for _, r := range g.Rules() {
					if err := r.LastError(); err != nil {
						t.Fatalf("rule %s at %s: %v", r.Name(), ts, err)
					}
				}
			}
		})
		for _, g := range e.groups {
			for _, r := range g.Rules() {
				a, ok := r.(*rules.AlertingRule)
				if !ok {
					continue
				}
				for _, alert := range a.ActiveAlerts() {
					if alert.State != rules.StateFiring {
						continue
					}
					key := alert.Labels.MatchLabels(false, model.MetricNameLabel, labels.AlertName, "severity").String()
					if e.firing[a.Name()] == nil {
						e.firing[a.Name()] = map[string][]time.Time{}
					}
					e.firing[a.Name()][key] = append(e.firing[a.Name()][key], ts)
				}
			}
		}
	}
	return e
}

// minute is how many minutes after the first sample ts is.
func (e *evaluation) minute(ts time.Time) int { return int(ts.Sub(e.start) / time.Minute) }

// rangeQuery evaluates expr at every scrape of the series file.
func (e *evaluation) rangeQuery(t *testing.T, expr string) promql.Matrix {
	t.Helper()
	ctx := context.Background()
	q, err := e.loader.QueryEngine().NewRangeQuery(ctx, e.loader.Queryable(), nil, expr, e.start, e.end, e.interval)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		t.Fatalf("%s: %v", expr, res.Err)
	}
	m, err := res.Matrix()
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return m
}

// inventory returns, by metric name, the label names and values of every series in the
// storage: the series file's and those the recording rules and alerts wrote.
func (e *evaluation) inventory(t *testing.T) map[string]map[string][]string {
	t.Helper()
	ctx := context.Background()
	q, err := e.loader.Queryable().Querier(e.start.UnixMilli(), e.end.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = q.Close() }()
	set := q.Select(ctx, false, &storage.SelectHints{Start: e.start.UnixMilli(), End: e.end.UnixMilli()},
		labels.MustNewMatcher(labels.MatchRegexp, model.MetricNameLabel, ".+"))
	inv := map[string]map[string][]string{}
	for set.Next() {
		ls := set.At().Labels()
		name := ls.Get(model.MetricNameLabel)
		if inv[name] == nil {
			inv[name] = map[string][]string{}
		}
		ls.Range(func(l labels.Label) {
			if l.Name != model.MetricNameLabel && !slices.Contains(inv[name][l.Name], l.Value) {
				inv[name][l.Name] = append(inv[name][l.Name], l.Value)
			}
		})
	}
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	return inv
}
