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

// needMake skips a test that runs make image or make release unless RELEASE_TEST_MAKE is set
// (make test-dist sets it): they cross-compile the manager and the plugin, about 12
// CPU-minutes from a cold build cache, more than make test may add.
func needMake(t *testing.T) {
	t.Helper()
	if os.Getenv("RELEASE_TEST_MAKE") == "" {
		t.Skip("make test-dist runs it (RELEASE_TEST_MAKE=1)")
	}
}

// standins builds testdata/standin, a static binary, for each platform into
// DIR/OS_ARCH/name (name.exe on Windows) and returns DIR.
func standins(t *testing.T, platforms []string, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range platforms {
		osName, arch, _ := strings.Cut(p, "/")
		out := filepath.Join(dir, osName+"_"+arch, name)
		if osName == "windows" {
			out += ".exe"
		}
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./testdata/standin")
		cmd.Env = append(environWithout("GOOS", "GOARCH", "CGO_ENABLED"), "GOOS="+osName, "GOARCH="+arch, "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build the stand-in for %s: %v\n%s", p, err, b)
		}
	}
	return dir
}

// runRelease runs cmd/release with args and fails t with its output.
func runRelease(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "./cmd/release"}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}
