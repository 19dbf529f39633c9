package metrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// families is one scrape: metric families by name.
type families map[string]*dto.MetricFamily

// endpoint is the manager's metrics endpoint as a scraper sees it: its HTTPS URL, a client
// trusting its serving certificate and the scraper's bearer token.
type endpoint struct {
	url    string
	client *http.Client
	token  string
}

// scrape GETs the endpoint with its token and parses the Prometheus text format.
func scrape(ctx context.Context, ep *endpoint) (families, error) {
	code, body, err := request(ctx, ep.client, ep.url, ep.token)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d: %s", ep.url, code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s: %w", ep.url, err)
	}
	return fams, nil
}

// get returns the body of a 200 response to GET url (plain HTTP, no credentials).
func get(ctx context.Context, url string) (string, error) {
	code, body, err := request(ctx, http.DefaultClient, url, "")
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d: %s", url, code, body)
	}
	return body, nil
}

// request GETs url with c, sending token as a bearer token when not empty, and returns the
// status code and body.
func request(ctx context.Context, c *http.Client, url, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(b), nil
}

// labels returns a sample's labels as a map.
func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// labelNames returns the sorted label names of a sample.
func labelNames(m *dto.Metric) []string {
	var names []string
	for _, p := range m.GetLabel() {
		names = append(names, p.GetName())
	}
	sort.Strings(names)
	return names
}

// value returns a gauge's or counter's value.
func value(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetCounter().GetValue()
}

// sum adds the values of family name's samples whose labels include match; 0 when absent.
func (f families) sum(name string, match map[string]string) float64 {
	total := 0.0
	for _, m := range f[name].GetMetric() {
		l := labels(m)
		ok := true
		for k, v := range match {
			ok = ok && l[k] == v
		}
		if ok {
			total += value(m)
		}
	}
	return total
}
