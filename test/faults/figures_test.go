//go:build faults

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/host"
)

// figureBook collects the figures each test logs, by section of docs/reliability.md, so that a
// run with FAULTS_WRITE_DOCS=1 records them there.
type figureBook struct {
	mu sync.Mutex
	// setupTook is the time to start the shared fleet, suiteTook that of the whole run.
	setupTook, suiteTook time.Duration
	rows                 map[string][][2]string
	took                 map[string]time.Duration
}

var figures = &figureBook{rows: map[string][][2]string{}, took: map[string]time.Duration{}}

// section starts the figures of one test: it returns a function that logs a figure (name and
// value) and records it under section; the test's duration is recorded when it ends.
func (b *figureBook) section(t *testing.T, section string) func(name, format string, args ...any) {
	start := time.Now()
	b.mu.Lock()
	b.rows[section] = nil
	b.mu.Unlock()
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.took[section] = time.Since(start)
	})
	return func(name, format string, args ...any) {
		t.Helper()
		v := fmt.Sprintf(format, args...)
		t.Logf("figure: %s = %s", name, v)
		b.mu.Lock()
		defer b.mu.Unlock()
		b.rows[section] = append(b.rows[section], [2]string{name, v})
	}
}

// writeDocs replaces, in root/docs/reliability.md, the text between the markers
// <!-- faults:SECTION begin --> and <!-- faults:SECTION end --> of every section with its
// figures. It returns an error naming a section whose markers are missing.
func (b *figureBook) writeDocs(root string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	path := filepath.Join(root, "docs", "reliability.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot record the figures: %w", err)
	}
	text := string(doc)
	for _, section := range sortedKeys(b.rows) {
		begin, end := "<!-- faults:"+section+" begin -->", "<!-- faults:"+section+" end -->"
		re := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(begin) + `.*?` + regexp.QuoteMeta(end))
		if !re.MatchString(text) {
			return fmt.Errorf("cannot record the figures of %q: %s has no %s … %s", section, path, begin, end)
		}
		var s strings.Builder
		fmt.Fprintf(&s, "%s\n| figure | value |\n|---|---|\n", begin)
		for _, r := range b.rows[section] {
			fmt.Fprintf(&s, "| %s | %s |\n", r[0], r[1])
		}
		fmt.Fprintf(&s, "| test duration | %.0f s |\n%s", b.took[section].Seconds(), end)
		text = re.ReplaceAllLiteralString(text, s.String())
	}
	begin, end := "<!-- faults:run begin -->", "<!-- faults:run end -->"
	run := fmt.Sprintf("%s\nRecorded by `FAULTS_WRITE_DOCS=1 make test-faults` on %s (%d cores, %s), %s: the whole run took %.0f s,\nof which %.0f s to start the control plane, kwok and the provider.\n%s",
		begin, host.CPUModel(), runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02"), b.suiteTook.Seconds(), b.setupTook.Seconds(), end)
	re := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(begin) + `.*?` + regexp.QuoteMeta(end))
	text = re.ReplaceAllLiteralString(text, run)
	return os.WriteFile(path, []byte(text), 0o644)
}
