//go:build faults

package faults

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// metricSet holds the counter and gauge samples of a Prometheus text exposition, by family.
type metricSet map[string][]sample

type sample struct {
	labels map[string]string
	value  float64
}

// parseMetrics parses a Prometheus text exposition.
func parseMetrics(text string) (metricSet, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("cannot parse metrics: %w", err)
	}
	set := metricSet{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			s := sample{labels: map[string]string{}, value: m.GetCounter().GetValue() + m.GetGauge().GetValue()}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			set[name] = append(set[name], s)
		}
	}
	return set, nil
}

// sum adds up the values of family name whose labels include want.
func (set metricSet) sum(name string, want map[string]string) float64 {
	total := 0.0
	for _, s := range set[name] {
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			total += s.value
		}
	}
	return total
}

// apiStatusWrites reads the API server's own request counter (apiserver_request_total) and
// returns how many writes (APPLY, PATCH, UPDATE, POST) of machines/status it has served, with
// any response code, since it started (the counter restarts with the API server).
func apiStatusWrites(ctx context.Context) (int, error) {
	cs, err := kubernetes.NewForConfig(env.CP.Config)
	if err != nil {
		return 0, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("cannot read the API server's metrics: %w", err)
	}
	set, err := parseMetrics(string(raw))
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, verb := range []string{"APPLY", "PATCH", "UPDATE", "POST"} {
		total += set.sum("apiserver_request_total", map[string]string{
			"group": "machinestatus.io", "resource": "machines", "subresource": "status", "verb": verb,
		})
	}
	return int(total), nil
}

// scrape reads a manager's metrics endpoint.
func scrape(ctx context.Context, url string) (metricSet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot read the manager's metrics: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the manager's metrics answered %s", resp.Status)
	}
	return parseMetrics(string(body))
}
