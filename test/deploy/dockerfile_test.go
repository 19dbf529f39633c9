package deploy

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDockerfileCopiesManagerSources checks, without docker, that the Dockerfile's build stage
// copies every package (and embedded file) ./cmd/manager is built from, plus go.mod and go.sum,
// and that .dockerignore leaves them in the build context: a new package imported by the
// manager fails here rather than in `make docker-build`.
func TestDockerfileCopiesManagerSources(t *testing.T) {
	copied := dockerfileCopySources(t, filepath.Join(root, "Dockerfile"))
	ignored := dockerignorePatterns(t, filepath.Join(root, ".dockerignore"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{if and .Module .Module.Main}}{{.Dir}}{{end}}", "./cmd/manager")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/manager: %v", err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		needed = append(needed, filepath.ToSlash(rel))
	}
	for _, path := range needed {
		if !under(path, copied) {
			t.Errorf("the Dockerfile does not copy %s, which ./cmd/manager is built from (copies %q)", path, copied)
		}
		if under(path, ignored) {
			t.Errorf(".dockerignore leaves %s out of the build context", path)
		}
	}
}

// under reports whether path is one of dirs or inside one of them (slash-separated, relative).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." || path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// dockerfileCopySources returns the sources of the COPY instructions that copy from the build
// context (not --from another stage), cleaned: "api/" becomes "api".
func dockerfileCopySources(t *testing.T, path string) []string {
	t.Helper()
	var sources []string
	for _, line := range lines(t, path) {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.EqualFold(f[0], "COPY") || strings.HasPrefix(f[1], "--from") {
			continue
		}
		for _, src := range f[1 : len(f)-1] {
			if !strings.HasPrefix(src, "--") {
				sources = append(sources, filepath.ToSlash(filepath.Clean(src)))
			}
		}
	}
	if len(sources) == 0 {
		t.Fatalf("%s copies nothing from the build context", path)
	}
	return sources
}

// dockerignorePatterns returns the plain path patterns of a .dockerignore, cleaned; wildcard
// patterns (which never name a source directory here) and exceptions are left out.
func dockerignorePatterns(t *testing.T, path string) []string {
	t.Helper()
	var patterns []string
	for _, line := range lines(t, path) {
		if strings.HasPrefix(line, "!") || strings.ContainsAny(line, "*?[") {
			continue
		}
		patterns = append(patterns, filepath.ToSlash(filepath.Clean(strings.TrimPrefix(line, "/"))))
	}
	return patterns
}

// lines returns the non-empty, non-comment lines of a file, trimmed.
func lines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
