// Command generate writes what config/prometheus ships from its sources (package monitoring):
// the PrometheusRule from the rule file and the Grafana dashboard. Run from this module's
// folder by `make prometheus-generate`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/machinestatus/machinestatus/test/prometheus/monitoring"
)

func main() {
	root := flag.String("root", "../..", "the repository root")
	flag.Parse()
	if err := generate(*root); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func generate(root string) error {
	src, err := os.ReadFile(filepath.Join(root, monitoring.RulesFile))
	if err != nil {
		return err
	}
	rule, err := monitoring.PrometheusRule(src)
	if err != nil {
		return err
	}
	dash, err := monitoring.Dashboard()
	if err != nil {
		return err
	}
	for path, content := range map[string][]byte{monitoring.PrometheusRuleFile: rule, monitoring.DashboardFile: dash} {
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
