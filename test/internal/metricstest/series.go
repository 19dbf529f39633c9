package metricstest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
)

// InputSeries returns scrapes, taken every interval from start, in promtool's input_series
// format with the time of the first scrape, the format of test/prometheus's series file
// (test/prometheus/testdata/fleet-series.yaml, which test/metrics's TestFleetSeries records):
//
//	start_timestamp: <Unix seconds>
//	interval: <interval>
//	input_series:
//	- series: '<name>{<labels>}'
//	  values: '<values>'
//
// Every sample of a scrape is a series, with target's labels added as Prometheus adds a
// target's (a sample's own label wins, as with honor_labels); a histogram is its _bucket (le),
// _sum and _count series, a summary its quantile, _sum and _count series. Values are in
// promtool's expanding notation: "vxN" N+1 samples of v, "_xN" N missing samples, and "stale"
// where a series first misses from a scrape, as Prometheus marks it.
func InputSeries(start time.Time, interval time.Duration, target map[string]string, scrapes []Families) []byte {
	values := map[string][]float64{}
	for i, fams := range scrapes {
		for name, fam := range fams {
			for _, m := range fam.GetMetric() {
				for _, s := range samples(name, fam.GetType(), m) {
					lbls := map[string]string{}
					for k, v := range target {
						lbls[k] = v
					}
					for k, v := range s.labels {
						lbls[k] = v
					}
					key := seriesNotation(s.name, lbls)
					if values[key] == nil {
						values[key] = make([]float64, len(scrapes))
						for j := range values[key] {
							values[key][j] = math.NaN()
						}
					}
					values[key][i] = s.value
				}
			}
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "start_timestamp: %d\ninterval: %s\ninput_series:\n", start.Unix(), model.Duration(interval))
	for _, k := range keys {
		fmt.Fprintf(&b, "- series: '%s'\n  values: '%s'\n", k, ExpandingNotation(values[k]))
	}
	return []byte(b.String())
}

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// samples returns the series samples of one metric of family name, as Prometheus stores them.
func samples(name string, typ dto.MetricType, m *dto.Metric) []sample {
	base := Labels(m)
	with := func(k, v string) map[string]string {
		l := map[string]string{k: v}
		for bk, bv := range base {
			l[bk] = bv
		}
		return l
	}
	switch typ {
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		h := m.GetHistogram()
		out := []sample{{name + "_sum", base, h.GetSampleSum()}, {name + "_count", base, float64(h.GetSampleCount())}}
		infinite := false
		for _, b := range h.GetBucket() {
			infinite = infinite || math.IsInf(b.GetUpperBound(), 1)
			out = append(out, sample{name + "_bucket", with("le", formatFloat(b.GetUpperBound())), float64(b.GetCumulativeCount())})
		}
		if !infinite {
			out = append(out, sample{name + "_bucket", with("le", "+Inf"), float64(h.GetSampleCount())})
		}
		return out
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		out := []sample{{name + "_sum", base, s.GetSampleSum()}, {name + "_count", base, float64(s.GetSampleCount())}}
		for _, q := range s.GetQuantile() {
			out = append(out, sample{name, with("quantile", formatFloat(q.GetQuantile())), q.GetValue()})
		}
		return out
	default:
		return []sample{{name, base, Value(m)}}
	}
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// seriesNotation is a series in PromQL notation, its labels sorted.
func seriesNotation(name string, lbls map[string]string) string {
	names := make([]string, 0, len(lbls))
	for k, v := range lbls {
		if v != "" { // an empty label is no label
			names = append(names, k)
		}
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%q", k, lbls[k])
	}
	return name + "{" + strings.Join(parts, ", ") + "}"
}

// ExpandingNotation encodes one series' samples (NaN: not scraped) in promtool's expanding
// notation; trailing missing samples are left out.
func ExpandingNotation(vs []float64) string {
	tokens := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case !math.IsNaN(v):
			tokens[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case i > 0 && !math.IsNaN(vs[i-1]):
			tokens[i] = "stale"
		default:
			tokens[i] = "_"
		}
	}
	for len(tokens) > 0 && tokens[len(tokens)-1] == "_" {
		tokens = tokens[:len(tokens)-1]
	}
	var out []string
	for i := 0; i < len(tokens); {
		j := i
		for j+1 < len(tokens) && tokens[j+1] == tokens[i] && tokens[i] != "stale" {
			j++
		}
		switch {
		case j == i:
			out = append(out, tokens[i])
		case tokens[i] == "_":
			out = append(out, fmt.Sprintf("_x%d", j-i+1))
		default:
			out = append(out, fmt.Sprintf("%sx%d", tokens[i], j-i))
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}
