// Package metricstest reads Prometheus text expositions for the tests: a manager's metrics
// endpoint (Fetch) and the API server's own /metrics (APIServer), parsed by
// github.com/prometheus/common/expfmt into metric families.
package metricstest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Families is one scrape: the metric families by name.
type Families map[string]*dto.MetricFamily

// Parse parses a Prometheus text exposition; it returns expfmt's error for malformed text.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the metrics: %w", err)
	}
	return fams, nil
}

// Fetch GETs url with c (http.DefaultClient when nil), sending token as a bearer token when not
// empty, and parses the body. A transport error, a status other than 200 (with the body) or
// a malformed body is an error.
func Fetch(ctx context.Context, c *http.Client, url, token string) (Families, error) {
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return Parse(strings.NewReader(string(body)))
}

// APIServer reads and parses the /metrics of the API server cfg points to (cfg's user must
// be allowed to get /metrics).
func APIServer(ctx context.Context, cfg *rest.Config) (Families, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot read the API server's metrics: %w", err)
	}
	return Parse(strings.NewReader(string(raw)))
}

// Lookup adds the values of family name's samples whose labels include every pair of match
// (Value of each) and reports whether any sample matched: found is false when no sample of
// name has those labels.
func (f Families) Lookup(name string, match map[string]string) (total float64, found bool) {
	for _, m := range f[name].GetMetric() {
		if !HasLabels(m, match) {
			continue
		}
		total += Value(m)
		found = true
	}
	return total, found
}

// Sum is Lookup's total: 0 when no sample matches.
func (f Families) Sum(name string, match map[string]string) float64 {
	total, _ := f.Lookup(name, match)
	return total
}

// Labels returns a sample's labels as a map.
func Labels(m *dto.Metric) map[string]string {
	l := make(map[string]string, len(m.GetLabel()))
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// HasLabels reports whether m's labels include every pair of match; as in Prometheus, a
// label m lacks has the value "".
func HasLabels(m *dto.Metric, match map[string]string) bool {
	l := Labels(m)
	for k, v := range match {
		if l[k] != v {
			return false
		}
	}
	return true
}

// Value returns the value of a counter, gauge or untyped sample (0 for a histogram or summary).
func Value(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	default:
		return m.GetUntyped().GetValue()
	}
}
