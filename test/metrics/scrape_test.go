package metrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"

	dto "github.com/prometheus/client_model/go"

	"github.com/machinestatus/machinestatus/test/internal/metricstest"
)

// endpoint is the manager's metrics endpoint as a scraper sees it: its HTTPS URL, a client
// trusting its serving certificate and the scraper's bearer token.
type endpoint struct {
	url    string
	client *http.Client
	token  string
}

// scrape GETs the endpoint with its token and parses the Prometheus text format.
func scrape(ctx context.Context, ep *endpoint) (metricstest.Families, error) {
	return metricstest.Fetch(ctx, ep.client, ep.url, ep.token)
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

// labelNames returns the sorted label names of a sample.
func labelNames(m *dto.Metric) []string {
	var names []string
	for _, p := range m.GetLabel() {
		names = append(names, p.GetName())
	}
	sort.Strings(names)
	return names
}
