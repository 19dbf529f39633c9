package scale

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/machinestatus/machinestatus/test/internal/metricstest"
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
	fams, err := metricstest.APIServer(ctx, cfg)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, m := range fams["apiserver_request_total"].GetMetric() {
		if match(metricstest.Labels(m)) {
			total += metricstest.Value(m)
		}
	}
	return total, nil
}

// goHeap reads go_memstats_heap_inuse_bytes from a controller-runtime metrics endpoint.
func goHeap(ctx context.Context, url string) (float64, error) {
	fams, err := metricstest.Fetch(ctx, nil, url, "")
	if err != nil {
		return 0, err
	}
	v, found := fams.Lookup("go_memstats_heap_inuse_bytes", nil)
	if !found {
		return 0, fmt.Errorf("the manager's metrics have no go_memstats_heap_inuse_bytes")
	}
	return v, nil
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
