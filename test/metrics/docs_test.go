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

// documentedMetrics returns the metric names the tables of docs/metrics.md and docs/install.md
// (machinestatus_build_info, with the version commands) list.
func documentedMetrics() ([]string, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, doc := range []string{"metrics.md", "install.md"} {
		b, err := os.ReadFile(filepath.Join(root, "docs", doc))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if m := metricRow.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	return names, nil
}
