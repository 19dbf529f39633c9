package release

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// root is the repository's root, two levels up.
var root = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// Stamped into what the tests build; not the repository's, so that a test cannot pass on a
// build that make did not stamp.
const (
	testVersion  = "v0.1.0-test.1"
	testRevision = "0123456789ab"
)

// runMake runs `make -C root args...` with the test's version stamp and fails t with its output.
func runMake(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	args = append([]string{"-C", root, "--no-print-directory", "VERSION=" + testVersion, "REVISION=" + testRevision}, args...)
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Env = environWithout("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("make %s (%s):\n%s", strings.Join(args[4:], " "), time.Since(start).Round(time.Second), out.String())
}

// environWithout returns this process's environment without the named variables.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// binary returns the path of a tool: $env when set, else root/rel; it skips nothing and fails
// t when the file is missing.
func binary(t *testing.T, env, rel string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(root, rel)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not found (make runtime-tools, or the tests' make target, builds it): %v", p, err)
	}
	return p
}
