package metrics

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// metricRow matches a docs/operating.md table row naming one metric in its first cell.
var metricRow = regexp.MustCompile("^\\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \\|")

// documentedMetrics returns the metric names docs/operating.md lists in its tables.
func documentedMetrics() ([]string, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "operating.md"))
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

// metricsTable is the table of the machinestatus metrics the manager serves, from one scrape:
// name, type, label names (of every sample; a histogram's le left out) and HELP text.
func metricsTable(fams metricstest.Families) string {
	var b strings.Builder
	b.WriteString("| metric | type | labels | meaning |\n|---|---|---|---|\n")
	for _, name := range slices.Sorted(maps.Keys(fams)) {
		f := fams[name]
		if !strings.HasPrefix(name, "machinestatus_") {
			continue
		}
		labels := map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		var names []string
		for _, l := range slices.Sorted(maps.Keys(labels)) {
			names = append(names, "`"+l+"`")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, strings.ToLower(f.GetType().String()),
			strings.Join(names, ", "), strings.ReplaceAll(f.GetHelp(), "|", "\\|"))
	}
	return b.String()
}
