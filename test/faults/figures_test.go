//go:build faults

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/docblock"
	"github.com/machinestatus/machinestatus/test/internal/host"
)

// figureBook collects the figures each test logs, by section, so that a run with
// FAULTS_WRITE_DOCS=1 records them in docs/operating.md.
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

// writeDocs writes, in root/docs/operating.md, every section's figures into its generated block
// faults:SECTION, and the run's host and duration into faults:run (docblock's markers). It
// returns an error naming a block that is missing.
func (b *figureBook) writeDocs(root string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	path := filepath.Join(root, "docs", "operating.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot record the figures: %w", err)
	}
	text := string(doc)
	for _, section := range sortedKeys(b.rows) {
		var s strings.Builder
		s.WriteString("| figure | value |\n|---|---|\n")
		for _, r := range b.rows[section] {
			fmt.Fprintf(&s, "| %s | %s |\n", r[0], r[1])
		}
		fmt.Fprintf(&s, "| test duration | %.0f s |\n", b.took[section].Seconds())
		if text, err = docblock.Replace(text, "faults:"+section, s.String()); err != nil {
			return fmt.Errorf("cannot record the figures of %q in %s: %w", section, path, err)
		}
	}
	run := fmt.Sprintf("Recorded by `FAULTS_WRITE_DOCS=1 make test-faults` on %s (%d cores, %s): the whole run took %.0f s,\nof which %.0f s to start the control plane, kwok and the provider.\n",
		host.CPUModel(), runtime.NumCPU(), runtime.Version(), b.suiteTook.Seconds(), b.setupTook.Seconds())
	if text, err = docblock.Replace(text, "faults:run", run); err != nil {
		return fmt.Errorf("cannot record the run in %s: %w", path, err)
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
