package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// root is the repository root.
func root(t *testing.T) string {
	t.Helper()
	r, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// budgets are the pages and their hand-written budgets in KB (1024 bytes), generated blocks
// excluded. A new page needs a budget here; the pages together may not exceed totalBudget.
var budgets = map[string]float64{
	"README.md":      4.5,
	"rules.md":       11,
	"cli.md":         6.5,
	"operating.md":   8,
	"alerts.md":      4.5,
	"library.md":     4.5,
	"clusterapi.md":  7,
	"install.md":     4.5,
	"benchmarks.md":  2,
	"development.md": 4,
}

const totalBudget = 60 * 1024

// elsewhere are pages another branch is rewriting now: their size and links are logged, not
// enforced, until it lands. The test fails once such a page is within its budget and its links
// resolve, so that its entry goes.
var elsewhere = map[string]string{}

// pages returns the README and every page of docs/, by name.
func pages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root(t), "README.md"))
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// block is a generated block, its marker lines included.
var block = regexp.MustCompile(`(?ms)^<!-- (\S+) begin[^\n]*-->\n.*?^<!-- (\S+) end -->\n?`)

// handWritten returns doc without its generated blocks.
func handWritten(t *testing.T, name, doc string) string {
	t.Helper()
	for _, m := range block.FindAllStringSubmatch(doc, -1) {
		if m[1] != m[2] {
			t.Errorf("%s: block %s ends with the marker of %s", name, m[1], m[2])
		}
	}
	return block.ReplaceAllString(doc, "")
}

// TestBudget: the hand-written part of each page is within its budget, and of all pages within
// totalBudget.
func TestBudget(t *testing.T) {
	total := 0
	for name, doc := range pages(t) {
		kb, ok := budgets[name]
		if !ok {
			t.Errorf("%s has no budget: add it to budgets (the pages together may not exceed %d bytes)", name, totalBudget)
			continue
		}
		size, limit := len(handWritten(t, name, doc)), int(kb*1024)
		t.Logf("%-15s %6d bytes hand-written, budget %6d", name, size, limit)
		if who, ok := elsewhere[name]; ok {
			if size > limit {
				t.Logf("%s: %d bytes, over its budget of %d; %s is rewriting it", name, size, limit, who)
				size = limit
			}
		} else if size > limit {
			t.Errorf("%s: %d hand-written bytes, over its budget of %d (%.1f KB)", name, size, limit, kb)
		}
		total += size
	}
	t.Logf("total: %d bytes hand-written, budget %d", total, totalBudget)
	if total > totalBudget {
		t.Errorf("the pages hold %d hand-written bytes, over the budget of %d", total, totalBudget)
	}
}

var (
	fence    = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	notSlug  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors returns the anchors GitHub gives the headings of doc.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(doc, ""), -1) {
		a := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinks: every relative link of the README and docs/ names a file of the repository, and its
// #anchor a heading of that page.
func TestLinks(t *testing.T) {
	docs := pages(t)
	for name, doc := range docs {
		dir := filepath.Join(root(t), "docs")
		if name == "README.md" {
			dir = root(t)
		}
		var broken []string
		text := codeSpan.ReplaceAllString(fence.ReplaceAllString(doc, ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			page := doc
			if file != "" {
				path := filepath.Join(dir, file)
				info, err := os.Stat(path)
				if err != nil {
					broken = append(broken, target+" (no such file)")
					continue
				}
				page = ""
				if !info.IsDir() {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					page = string(b)
				}
			}
			if anchor != "" && !anchors(page)[anchor] {
				broken = append(broken, target+" (no such heading)")
			}
		}
		if who, ok := elsewhere[name]; ok {
			if len(broken) > 0 {
				t.Logf("%s: broken links %v; %s is rewriting it", name, broken, who)
			} else if len(handWritten(t, name, doc)) <= int(budgets[name]*1024) {
				t.Errorf("%s is within its budget and its links resolve: remove it from elsewhere", name)
			}
			continue
		}
		for _, b := range broken {
			t.Errorf("%s: link %s", name, b)
		}
	}
}

// walk calls fn on every file of the repository (all its modules) whose name matches keep,
// skipping .git, bin and testdata.
func walk(t *testing.T, keep func(name string) bool, fn func(path string, b []byte)) {
	t.Helper()
	err := filepath.WalkDir(root(t), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root(t) || d.Name() == "bin" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !keep(d.Name()) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(path, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	// citedTest is a Go test, fuzz target, benchmark or example named in the docs.
	citedTest = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark|Example)[A-Z][A-Za-z0-9_]*`)
	// definedTest is the declaration of one in a _test.go file.
	definedTest = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]*)\(`)
)

// TestCitedTestsExist: every test, fuzz target, benchmark or example the README or docs/ name is
// declared in a _test.go file of the repository (any of its modules), so that the docs never
// point at one that was renamed or removed. A name right after "Cluster API's " is Cluster API's.
func TestCitedTestsExist(t *testing.T) {
	defined := map[string]bool{}
	walk(t, func(name string) bool { return strings.HasSuffix(name, "_test.go") }, func(_ string, b []byte) {
		for _, m := range definedTest.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
	})
	for name, doc := range pages(t) {
		for i, line := range strings.Split(doc, "\n") {
			for _, test := range citedTest.FindAllString(line, -1) {
				if !defined[test] && !strings.Contains(line, "Cluster API's "+test) && !strings.Contains(line, "Cluster API's `"+test) {
					t.Errorf("%s:%d cites %s, which no _test.go file declares", name, i+1, test)
				}
			}
		}
	}
}

// madeTarget is a make target named in the docs: `make NAME`.
var madeTarget = regexp.MustCompile("`make ([a-z][a-z0-9-]*)")

// TestMakeTargetsExist: every `make NAME` the README and docs/ give is a target the Makefile
// defines (`make help` lists them with what each does).
func TestMakeTargetsExist(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range pages(t) {
		for _, m := range madeTarget.FindAllStringSubmatch(doc, -1) {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).Match(makefile) {
				t.Errorf("%s names make %s, which the Makefile does not define", name, m[1])
			}
		}
	}
}

// docRef is a page named in code, a Makefile or a manifest: docs/NAME.md, maybe followed by a
// quoted section title.
var docRef = regexp.MustCompile(`docs/([a-z0-9-]+\.md)(?:,? "([^"\n]+)")?`)

// TestDocReferencesResolve: every docs/NAME.md that Go files, Makefiles, manifests and scripts
// name exists, and a section named after it ("docs/rules.md, \"Without history\"") is a heading
// of that page (or the start of one).
func TestDocReferencesResolve(t *testing.T) {
	docs := pages(t)
	keep := func(name string) bool {
		return strings.HasSuffix(name, ".go") || name == "Makefile" || strings.HasSuffix(name, ".yaml") ||
			strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".sh")
	}
	walk(t, keep, func(path string, b []byte) {
		rel, _ := filepath.Rel(root(t), path)
		for _, m := range docRef.FindAllStringSubmatch(string(b), -1) {
			doc, ok := docs[m[1]]
			if !ok {
				t.Errorf("%s names docs/%s, which does not exist", rel, m[1])
				continue
			}
			if m[2] == "" {
				continue
			}
			var titles []string
			for _, h := range heading.FindAllStringSubmatch(doc, -1) {
				titles = append(titles, h[1])
			}
			if !slices.ContainsFunc(titles, func(h string) bool { return strings.HasPrefix(h, m[2]) }) {
				t.Errorf("%s names section %q of docs/%s, which has no such heading", rel, m[2], m[1])
			}
		}
	})
}
