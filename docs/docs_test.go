package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository root, seen from this package's folder.
const root = ".."

// catalogBlock is one const block of api/v1alpha1/condition_consts.go: a condition type and its
// reasons.
type catalogBlock struct {
	constName string   // e.g. MachineNodeReadyCondition
	value     string   // e.g. NodeReady
	reasons   []string // reason values, sorted
}

// parseFile parses one Go file of the repository.
func parseFile(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, path), nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// constBlocks returns the string constants of each const block of a file, as name → value.
func constBlocks(f *ast.File) []map[string]string {
	var blocks []map[string]string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		block := map[string]string{}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, n := range v.Names {
				if i >= len(v.Values) {
					break // iota or an implicit repetition: not a string constant of the catalog
				}
				if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					block[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
		blocks = append(blocks, block)
	}
	return blocks
}

// catalog reads the condition catalog from api/v1alpha1/condition_consts.go: one block per
// condition type, its ...Condition constant and its ...Reason constants. Ready's reasons are the
// summary reasons of package aggregate (aggregate/reasons.go).
func catalog(t *testing.T) map[string]catalogBlock {
	t.Helper()
	var summaryReasons []string
	for _, b := range constBlocks(parseFile(t, "aggregate/reasons.go")) {
		for name, v := range b {
			if strings.HasSuffix(name, "Reason") {
				summaryReasons = append(summaryReasons, v)
			}
		}
	}
	out := map[string]catalogBlock{}
	for _, b := range constBlocks(parseFile(t, "api/v1alpha1/condition_consts.go")) {
		var blk catalogBlock
		for name, v := range b {
			switch {
			case strings.HasSuffix(name, "Condition"):
				blk.constName, blk.value = name, v
			case strings.HasSuffix(name, "Reason"):
				blk.reasons = append(blk.reasons, v)
			}
		}
		if blk.value == "" {
			continue
		}
		if blk.value == "Ready" {
			blk.reasons = append(blk.reasons, summaryReasons...)
		}
		slices.Sort(blk.reasons)
		out[blk.value] = blk
	}
	return out
}

// negativeTypes reads v1alpha1.NegativePolarityConditions: the constant names it lists.
func negativeTypes(t *testing.T) []string {
	t.Helper()
	f := parseFile(t, "api/v1alpha1/condition_consts.go")
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || len(v.Names) != 1 || v.Names[0].Name != "NegativePolarityConditions" {
			return true
		}
		for _, e := range v.Values[0].(*ast.CompositeLit).Elts {
			names = append(names, e.(*ast.Ident).Name)
		}
		return false
	})
	if len(names) == 0 {
		t.Fatal("v1alpha1.NegativePolarityConditions not found")
	}
	return names
}

// table returns the rows of the first Markdown table in path whose header starts with header,
// each a list of trimmed cells.
func table(t *testing.T, path, header string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.HasPrefix(line, header):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		case in:
			return rows
		}
	}
	if !in {
		t.Fatalf("%s: no table starting %q", path, header)
	}
	return rows
}

var backticked = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the `code` spans of a Markdown cell.
func codeSpans(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// setterRef is how the catalog's "set by" cell names the function: `funcName` (path/file.go).
var setterRef = regexp.MustCompile("^`([A-Za-z0-9_]+)` \\(([a-z0-9/_]+\\.go)\\)$")

// TestConditionCatalogDoc: docs/conditions.md's catalog table lists exactly the condition types
// of api/v1alpha1/condition_consts.go, each with its polarity (v1alpha1.NegativePolarityConditions),
// exactly its reason constants, and the function that sets it, which exists in the file named and
// names the type's constant (a check of the name, not of what the function does with it).
func TestConditionCatalogDoc(t *testing.T) {
	cat := catalog(t)
	negative := negativeTypes(t)
	rows := table(t, "docs/conditions.md", "| type | polarity | set by |")
	var documented []string
	for _, row := range rows {
		if len(row) != 6 {
			t.Fatalf("row %v: want 6 cells (type, polarity, set by, from, True means, reasons)", row)
		}
		types := codeSpans(row[0])
		if len(types) != 1 {
			t.Errorf("row %v: the type cell must be one `Type`", row)
			continue
		}
		typ := types[0]
		documented = append(documented, typ)
		blk, ok := cat[typ]
		if !ok {
			t.Errorf("%s: documented, but no const block of api/v1alpha1/condition_consts.go defines it", typ)
			continue
		}
		wantPolarity := "positive"
		if slices.Contains(negative, blk.constName) {
			wantPolarity = "negative"
		}
		if row[1] != wantPolarity {
			t.Errorf("%s: documented polarity %q, v1alpha1.NegativePolarityConditions says %q", typ, row[1], wantPolarity)
		}
		reasons := codeSpans(row[5])
		slices.Sort(reasons)
		if d := cmp.Diff(blk.reasons, reasons); d != "" {
			t.Errorf("%s: documented reasons differ from the code's (-code +doc):\n%s", typ, d)
		}
		m := setterRef.FindStringSubmatch(row[2])
		if m == nil {
			t.Errorf("%s: the set-by cell %q must read `function` (path/file.go)", typ, row[2])
			continue
		}
		checkSetter(t, typ, m[1], m[2], blk.constName)
	}
	var want []string
	for typ := range cat {
		want = append(want, typ)
	}
	slices.Sort(want)
	slices.Sort(documented)
	if d := cmp.Diff(want, documented); d != "" {
		t.Errorf("documented condition types differ from the catalog (-code +doc):\n%s", d)
	}
}

// checkSetter checks that file declares function fn and that its body names constName (the
// condition type the docs say it sets).
func checkSetter(t *testing.T, typ, fn, file, constName string) {
	t.Helper()
	f := parseFile(t, file)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		found := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == constName {
				found = true
			}
			return !found
		})
		if !found {
			t.Errorf("%s: %s in %s does not name v1alpha1.%s", typ, fn, file, constName)
		}
		return
	}
	t.Errorf("%s: no function %s in %s", typ, fn, file)
}

// TestPhaseTableDoc: the phase table of docs/phase-and-lastoperation.md and the numbered list of
// aggregate.Phase's doc comment list the phases in the order aggregate's phaseWith checks them
// (the code is the rule; the first matching row wins).
func TestPhaseTableDoc(t *testing.T) {
	f := parseFile(t, "aggregate/phase.go")
	var code, godoc []string
	listItem := regexp.MustCompile(`^\s*\d+\.\s+([A-Za-z]+):`)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		switch fd.Name.Name {
		case "phaseWith":
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					if sel, ok := r.Results[0].(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "MachinePhase") {
						code = append(code, strings.TrimPrefix(sel.Sel.Name, "MachinePhase"))
					}
				}
				return true
			})
		case "Phase":
			for _, line := range strings.Split(fd.Doc.Text(), "\n") {
				if m := listItem.FindStringSubmatch(line); m != nil {
					godoc = append(godoc, m[1])
				}
			}
		}
	}
	if len(code) < 10 {
		t.Fatalf("found %d phases in phaseWith: %v", len(code), code)
	}
	var doc []string
	for i, row := range table(t, "docs/phase-and-lastoperation.md", "| # | phase | when |") {
		if len(row) != 3 {
			t.Fatalf("docs phase row %v: want 3 cells (#, phase, when)", row)
		}
		if row[0] != strconv.Itoa(i+1) {
			t.Errorf("docs row %v: number %s, want %d", row, row[0], i+1)
		}
		doc = append(doc, strings.Trim(row[1], "`"))
	}
	if d := cmp.Diff(code, doc); d != "" {
		t.Errorf("docs/phase-and-lastoperation.md's phase table is not phaseWith's order (-code +doc):\n%s", d)
	}
	if d := cmp.Diff(code, godoc); d != "" {
		t.Errorf("aggregate.Phase's doc comment is not phaseWith's order (-code +godoc):\n%s", d)
	}
}

// citedTest is a Go test, fuzz target or benchmark named in the docs.
var citedTest = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)

// TestCitedTestsExist: every test, fuzz target or benchmark the README or docs/ cite exists in
// the repository (in any of its Go modules), so a doc never points at a test that was renamed or
// removed. A name right after "Cluster API's " is Cluster API's own.
func TestCitedTestsExist(t *testing.T) {
	defined := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil {
				defined[fd.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, name := range citedTest.FindAllString(line, -1) {
				if !defined[name] && !strings.Contains(line, "Cluster API's "+name) && !strings.Contains(line, "Cluster API's `"+name) {
					t.Errorf("%s:%d cites %s, which no _test.go file defines", filepath.Base(path), i+1, name)
				}
			}
		}
	}
}

// documentedTarget matches a make target a help line documents: "name: prerequisites ## text".
var documentedTarget = regexp.MustCompile(`(?m)^([a-z][a-z-]*):[^#\n]*## `)

// TestMakeTargetsDocumented: every target `make help` lists is named in docs/development.md's
// target table or in the README (`make demo`, `make test`), so the table cannot fall behind the
// Makefile.
func TestMakeTargetsDocumented(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, path := range []string{filepath.Join(root, "docs", "development.md"), filepath.Join(root, "README.md")} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	targets := documentedTarget.FindAllStringSubmatch(string(makefile), -1)
	if len(targets) < 20 {
		t.Fatalf("found %d documented targets in the Makefile, want the 20 or more `make help` lists", len(targets))
	}
	for _, m := range targets {
		name := m[1]
		if name == "help" {
			continue
		}
		if !regexp.MustCompile("`make ([a-z-]+ )*" + regexp.QuoteMeta(name) + "[` ]").MatchString(docs.String()) {
			t.Errorf("make %s (in make help) is not named in docs/development.md or the README", name)
		}
	}
}
