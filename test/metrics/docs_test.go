package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// metricRow matches a docs/metrics.md table row naming one metric in its first cell.
var metricRow = regexp.MustCompile("^\\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \\|")

// documentedMetrics returns the metric names docs/metrics.md lists in its tables.
func documentedMetrics() ([]string, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "metrics.md"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if m := metricRow.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names, nil
}
