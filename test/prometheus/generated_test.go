package prometheus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/machinestatus/machinestatus/test/prometheus/internal/fleetsim"
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

// TestSeriesFileUpToDate checks that the series file is what internal/fleetsim plays;
// PROMETHEUS_WRITE_SERIES=1 writes it.
func TestSeriesFileUpToDate(t *testing.T) {
	path := filepath.Join(root, monitoring.SeriesFile)
	want := fleetsim.Series()
	if os.Getenv("PROMETHEUS_WRITE_SERIES") == "1" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what internal/fleetsim plays: run PROMETHEUS_WRITE_SERIES=1 make prometheus-tests", monitoring.SeriesFile)
	}
}
