package prometheus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/machinestatus/machinestatus/test/prometheus/monitoring"
)

// TestGeneratedFilesUpToDate checks that the PrometheusRule and the dashboard in
// config/prometheus are what `make prometheus-generate` makes from their sources.
func TestGeneratedFilesUpToDate(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, monitoring.RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	rule, err := monitoring.PrometheusRule(src)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := monitoring.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{monitoring.PrometheusRuleFile: rule, monitoring.DashboardFile: dash} {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make prometheus-generate", path)
		}
	}
}
