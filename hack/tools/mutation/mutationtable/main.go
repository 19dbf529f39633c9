// Command mutationtable prints the table of make mutation from gremlins' JSON results
// (gremlins unleash -o FILE), one file per package named PACKAGE.json: a Markdown row per
// package (killed, lived, timed out, not covered, efficacy, mutator coverage), then every
// mutant that lived, as file:line:column and mutator, for the list of
// equivalent mutants in docs/development.md.
//
// Efficacy is killed / (killed + lived); mutator coverage is (killed + lived) / (killed +
// lived + not covered), both as gremlins computes them.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

type result struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mutationtable PACKAGE.json...")
		os.Exit(2)
	}
	var lived []string
	fmt.Println("| package | killed | lived | timed out | not covered | efficacy | mutator coverage |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, name := range os.Args[1:] {
		pkg := strings.TrimSuffix(filepath.Base(name), ".json")
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var r result
		if err := json.Unmarshal(data, &r); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		count := map[string]int{}
		for _, f := range r.Files {
			for _, m := range f.Mutations {
				count[m.Status]++
				if m.Status == "LIVED" {
					lived = append(lived, fmt.Sprintf("%s/%s:%d:%d %s", pkg, f.Name, m.Line, m.Column, m.Type))
				}
			}
		}
		killed, alive, notCovered := count["KILLED"], count["LIVED"], count["NOT COVERED"]
		fmt.Printf("| %s | %d | %d | %d | %d | %s | %s |\n", pkg, killed, alive, count["TIMED OUT"], notCovered,
			percent(killed, killed+alive), percent(killed+alive, killed+alive+notCovered))
	}
	slices.SortFunc(lived, compareMutants)
	if len(lived) > 0 {
		fmt.Println()
		fmt.Println("Lived:")
		for _, l := range lived {
			fmt.Println("- " + l)
		}
	}
}

func percent(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", float64(n)*100/float64(of))
}

// compareMutants orders "pkg/file:line:col type" by file, then line and column as numbers.
func compareMutants(a, b string) int {
	var fa, fb string
	var la, ca, lb, cb int
	sa, sb := strings.SplitN(a, ":", 2), strings.SplitN(b, ":", 2)
	fa, fb = sa[0], sb[0]
	if c := strings.Compare(fa, fb); c != 0 {
		return c
	}
	_, _ = fmt.Sscanf(sa[1], "%d:%d", &la, &ca)
	_, _ = fmt.Sscanf(sb[1], "%d:%d", &lb, &cb)
	if la != lb {
		return la - lb
	}
	if ca != cb {
		return ca - cb
	}
	return strings.Compare(a, b)
}
