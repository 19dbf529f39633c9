package controllers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// With the build tag nocontrolplane (nocontrolplane_test.go), TestMain starts no control plane
// and skips the envtest suite, so that the package's pure rules (status computation, health
// check, contract reading) are tested alone: make mutation runs them that way. The rule: the
// tests of package controllers (the internal test files) never need a control plane; the tests
// of package controllers_test (this file's package) are the envtest suite.
var noControlPlane = false

// envtestSuitePattern returns a -test.skip pattern matching every top-level test, fuzz target
// and example declared in the package controllers_test files of dir (the envtest suite).
func envtestSuitePattern(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		if !strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv == nil && isTestFunc(fn.Name.Name) {
				names = append(names, regexp.QuoteMeta(fn.Name.Name))
			}
		}
	}
	slices.Sort(names)
	return "^(" + strings.Join(names, "|") + ")$", nil
}

// isTestFunc reports whether name is run by go test (TestMain is not: it runs them).
func isTestFunc(name string) bool {
	if name == "TestMain" {
		return false
	}
	for _, prefix := range []string{"Test", "Fuzz", "Example"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
