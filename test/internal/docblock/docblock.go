package docblock

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Replace returns doc with the content of block name replaced by content (which should end
// with a newline), keeping the marker lines. It returns an error when doc has no such block.
func Replace(doc, name, content string) (string, error) {
	re := regexp.MustCompile(`(?s)(<!-- ` + regexp.QuoteMeta(name) + ` begin[^\n]*-->\n).*?(<!-- ` + regexp.QuoteMeta(name) + ` end -->)`)
	loc := re.FindStringSubmatchIndex(doc)
	if loc == nil {
		return "", fmt.Errorf("no block %s (a line <!-- %s begin … --> and a line <!-- %s end -->)", name, name, name)
	}
	return doc[:loc[3]] + content + doc[loc[4]:], nil
}

// Get returns the content of block name in doc.
func Get(doc, name string) (string, error) {
	re := regexp.MustCompile(`(?s)<!-- ` + regexp.QuoteMeta(name) + ` begin[^\n]*-->\n(.*?)<!-- ` + regexp.QuoteMeta(name) + ` end -->`)
	m := re.FindStringSubmatch(doc)
	if m == nil {
		return "", fmt.Errorf("no block %s", name)
	}
	return m[1], nil
}

// Sync writes content into block name of the file at path when the environment variable
// writeVar is 1, else fails t when the block differs from content (after normalize, when not
// nil, is applied to both), naming the command that updates it.
func Sync(t *testing.T, path, name, content, writeVar string, normalize func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(writeVar) == "1" {
		out, err := Replace(string(b), name, content)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := Get(string(b), name)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if normalize == nil {
		normalize = func(s string) string { return s }
	}
	if normalize(got) != normalize(content) {
		t.Errorf("%s: block %s differs from this run; if the change is right, run the test again with %s=1\n--- committed:\n%s--- now:\n%s",
			path, name, writeVar, strings.TrimRight(got, "\n")+"\n", content)
	}
}
