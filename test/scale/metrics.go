package scale

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// statusWrites reads the API server's own request counter (apiserver_request_total) and returns
// how many write requests (APPLY, PATCH, UPDATE, POST) it has served on machines/status.
func statusWrites(ctx context.Context, cfg *rest.Config) (float64, error) {
	return apiserverRequests(ctx, cfg, func(l map[string]string) bool {
		if l["group"] != "machinestatus.io" || l["resource"] != "machines" || l["subresource"] != "status" {
			return false
		}
		switch l["verb"] {
		case "APPLY", "PATCH", "UPDATE", "POST":
			return true
		}
		return false
	})
}

// apiserverRequests returns the sum of the API server's apiserver_request_total samples whose
// labels match.
func apiserverRequests(ctx context.Context, cfg *rest.Config, match func(labels map[string]string) bool) (float64, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("cannot read the API server's metrics: %w", err)
	}
	families, err := parser().TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		return 0, fmt.Errorf("cannot parse the API server's metrics: %w", err)
	}
	total := 0.0
	for _, m := range families["apiserver_request_total"].GetMetric() {
		l := map[string]string{}
		for _, p := range m.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		if match(l) {
			total += m.GetCounter().GetValue()
		}
	}
	return total, nil
}

// goHeap reads go_memstats_heap_inuse_bytes from a controller-runtime metrics endpoint.
func goHeap(ctx context.Context, url string) (float64, error) {
	families, err := scrape(ctx, url)
	if err != nil {
		return 0, err
	}
	ms := families["go_memstats_heap_inuse_bytes"].GetMetric()
	if len(ms) == 0 {
		return 0, fmt.Errorf("the manager's metrics have no go_memstats_heap_inuse_bytes")
	}
	return ms[0].GetGauge().GetValue(), nil
}

// scrape reads and parses the manager's metrics endpoint.
func scrape(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
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
	families, err := parser().TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("cannot parse the manager's metrics: %w", err)
	}
	return families, nil
}

// rss returns the resident set size of process pid in bytes (Linux /proc).
func rss(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("cannot read the manager's memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func parser() *expfmt.TextParser {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return &p
}
