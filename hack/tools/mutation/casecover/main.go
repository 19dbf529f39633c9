// Command casecover stands in for the go command while gremlins runs (make mutation puts it
// first on gremlins' PATH as "go"). It runs the real go command (the absolute path in
// $MUTATION_GO) with the same arguments; after a successful `go test ... -coverprofile FILE`
// (gremlins' coverage step) it adds to FILE the code that the tests run but that Go's coverage
// has no block for, so that gremlins tests the mutants there instead of reporting them
// NOT COVERED:
//
//   - the expressions of a switch's case clauses ("case a < b:"): Go's cover tool counts a case
//     body from its colon on and the switch header with the statements before it, so the case
//     expressions belong to no block. They are covered when the switch statement is.
//   - package-level const and var declarations without function literals: they have no
//     statements, yet the compiler or the package's initialization evaluates them in every test
//     binary that has any covered block of the file.
//
// Every other invocation is handed to the real go command unchanged (exec, same process).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	goCmd := os.Getenv("MUTATION_GO")
	if !filepath.IsAbs(goCmd) {
		fmt.Fprintln(os.Stderr, "casecover: MUTATION_GO must be the absolute path of the go command")
		os.Exit(2)
	}
	profile := coverProfile(os.Args[1:])
	if profile == "" {
		err := syscall.Exec(goCmd, append([]string{goCmd}, os.Args[1:]...), os.Environ())
		fmt.Fprintln(os.Stderr, "casecover:", err)
		os.Exit(2)
	}
	cmd := exec.Command(goCmd, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "casecover:", err)
		os.Exit(2)
	}
	if err := widen(profile); err != nil {
		fmt.Fprintln(os.Stderr, "casecover:", err)
		os.Exit(2)
	}
}

// coverProfile returns the file of -coverprofile when args are a go test command, else "".
func coverProfile(args []string) string {
	if len(args) == 0 || args[0] != "test" {
		return ""
	}
	for i, a := range args {
		switch {
		case (a == "-coverprofile" || a == "--coverprofile") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "-coverprofile="):
			return strings.TrimPrefix(a, "-coverprofile=")
		}
	}
	return ""
}

// pos is a line and column, as in a coverage profile.
type pos struct{ line, col int }

func (p pos) before(q pos) bool { return p.line < q.line || p.line == q.line && p.col <= q.col }

// block is a covered range of a profile.
type block struct{ start, end pos }

func (b block) contains(p pos) bool { return b.start.before(p) && p.before(b.end) }

// widen appends to the profile, in its own format, one block per case clause list and
// package-level declaration that is run by the covered code (see the command's doc).
func widen(profile string) error {
	covered, order, err := readProfile(profile)
	if err != nil {
		return err
	}
	module, err := modulePath("go.mod")
	if err != nil {
		return err
	}
	var extra []string
	for _, name := range order {
		rel, ok := strings.CutPrefix(name, module+"/")
		if !ok {
			continue
		}
		blocks, err := runBlocks(rel, covered[name])
		if err != nil {
			return err
		}
		for _, b := range blocks {
			extra = append(extra, fmt.Sprintf("%s:%d.%d,%d.%d 0 1", name, b.start.line, b.start.col, b.end.line, b.end.col))
		}
	}
	if len(extra) == 0 {
		return nil
	}
	f, err := os.OpenFile(profile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(strings.Join(extra, "\n") + "\n"); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// readProfile returns the covered blocks (count > 0) of each file of a coverage profile and
// the files in their first order.
func readProfile(name string) (map[string][]block, []string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	covered := map[string][]block{}
	var order []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "mode:") {
			continue
		}
		file, b, count, err := parseBlock(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, seen := covered[file]; !seen {
			covered[file] = nil
			order = append(order, file)
		}
		if count > 0 {
			covered[file] = append(covered[file], b)
		}
	}
	return covered, order, s.Err()
}

// parseBlock parses "file:l.c,l.c stmts count".
func parseBlock(line string) (string, block, int, error) {
	colon := strings.LastIndex(line, ":")
	fields := strings.Fields(line[colon+1:])
	if colon < 0 || len(fields) != 3 {
		return "", block{}, 0, fmt.Errorf("bad profile line %q", line)
	}
	var b block
	if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &b.start.line, &b.start.col, &b.end.line, &b.end.col); err != nil {
		return "", block{}, 0, fmt.Errorf("bad profile line %q: %w", line, err)
	}
	count, err := strconv.Atoi(fields[2])
	if err != nil {
		return "", block{}, 0, fmt.Errorf("bad profile line %q: %w", line, err)
	}
	return line[:colon], b, count, nil
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// runBlocks returns the ranges of file that run although no coverage block holds them: the
// case lists of every switch whose switch keyword is covered and, when anything in the file
// is covered, its package-level declarations without function literals.
func runBlocks(file string, covered []block) ([]block, error) {
	if len(covered) == 0 {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	at := func(p token.Pos) pos {
		position := fset.Position(p)
		return pos{position.Line, position.Column}
	}
	isCovered := func(p token.Pos) bool {
		for _, b := range covered {
			if b.contains(at(p)) {
				return true
			}
		}
		return false
	}
	var out []block
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) && !hasFuncLit(g) {
			out = append(out, block{at(g.Pos()), at(g.End())})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch s := n.(type) {
		case *ast.SwitchStmt:
			if isCovered(s.Switch) {
				body = s.Body
			}
		case *ast.TypeSwitchStmt:
			if isCovered(s.Switch) {
				body = s.Body
			}
		}
		if body != nil {
			for _, c := range body.List {
				if cc, ok := c.(*ast.CaseClause); ok && len(cc.List) > 0 {
					out = append(out, block{at(cc.Case), at(cc.Colon + 1)})
				}
			}
		}
		return true
	})
	return out, nil
}

func hasFuncLit(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			found = true
		}
		return !found
	})
	return found
}
