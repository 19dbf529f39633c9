// Package managerlog reads a bin/manager log and returns its ERROR lines that are not explained
// by an allowlist, so that tests can check that the manager logs at ERROR only what an
// operator must act on (docs/operating.md, "Reliability").
package managerlog

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Allowed explains ERROR lines a test expects: those containing Contains, for the reason Why.
type Allowed struct {
	// Contains is a substring of the allowed lines (message or error text).
	Contains string
	// Why says why the line is expected and what it tells an operator.
	Why string
}

// Always are the ERROR lines expected in any run: none. An entry needs a reason that an
// operator would accept as "I must act on this" or "this is the situation the test creates".
var Always = []Allowed{}

// klogError matches a klog text error line ("E1130 21:50:00.123456 ..."), in case anything
// logs through klog's own output rather than the manager's logger.
var klogError = regexp.MustCompile(`^E\d{4} \d{2}:\d{2}:\d{2}\.\d+ `)

// IsError reports whether line is an ERROR entry of the manager's zap logger (console encoder:
// tab-separated "time LEVEL logger message fields", development or production) or of klog.
func IsError(line string) bool {
	return strings.Contains(line, "\tERROR\t") || strings.Contains(line, "\tDPANIC\t") ||
		strings.Contains(line, "\tPANIC\t") || strings.Contains(line, "\tFATAL\t") || klogError.MatchString(line)
}

// Unexpected returns the ERROR lines of the log at path that no entry of Always or allow
// explains (each cut to 300 bytes). It returns an error when the log cannot be read.
func Unexpected(path string, allow ...Allowed) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the manager log: %w", err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !IsError(line) || allowed(line, Always) || allowed(line, allow) {
			continue
		}
		if len(line) > 300 {
			line = line[:300] + "…"
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("cannot read the manager log %s: %w", path, err)
	}
	return out, nil
}

// Count returns how many ERROR lines of the log at path contain s.
func Count(path, s string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("cannot read the manager log: %w", err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if IsError(line) && strings.Contains(line, s) {
			n++
		}
	}
	return n, nil
}

func allowed(line string, allow []Allowed) bool {
	for _, a := range allow {
		if strings.Contains(line, a.Contains) {
			return true
		}
	}
	return false
}
