package repo

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Module is the module path of the repository's main module.
const Module = "github.com/machinestatus/machinestatus"

// Root returns the directory of the repository: the nearest parent of the working directory
// whose go.mod declares Module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot find the repository root: %w", err)
	}
	for {
		if isRoot(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cannot find the repository root: no go.mod of %s above the working directory", Module)
		}
		dir = parent
	}
}

func isRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == Module
		}
	}
	return false
}

// Binary returns the path of a tool: the value of env when set (the Makefile exports KWOK_BIN
// and KUBECTL_BIN), else root/rel. It fails when the file does not exist.
func Binary(root, env, rel string) (string, error) {
	path := os.Getenv(env)
	if path == "" {
		path = filepath.Join(root, rel)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("cannot resolve %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("%s not found: run `make tools build` first: %w", abs, err)
	}
	return abs, nil
}

// ModuleDir returns the module-cache directory of module as required by hack/tools (the module
// that pins every tool), e.g. sigs.k8s.io/kwok, by asking `go list -m`.
func ModuleDir(root, module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = filepath.Join(root, "hack", "tools")
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("cannot locate %s: go list -m: %s", module, strings.TrimSpace(string(exit.Stderr)))
		}
		return "", fmt.Errorf("cannot locate %s: go list -m: %w", module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("cannot locate %s: not in the module cache (run `make tools`)", module)
	}
	return dir, nil
}
