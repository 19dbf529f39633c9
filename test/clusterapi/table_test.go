package clusterapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsBlockRoundTrip: writeDocsBlock replaces only what is between a block's lines, and
// readDocsBlock reads back what was written; another block is left alone.
func TestDocsBlockRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	begin := blockBegin("a") + " (" + docsGenerator + ") -->\n"
	other := blockBegin("b") + " (x) -->\n| b |\n" + blockEnd("b") + "\n"
	before, after := "# Title\n\nintro\n\n", "\n\nafter the table, longer than the old one was\n"
	if err := os.WriteFile(path, []byte(before+begin+"| old |\n"+blockEnd("a")+after+other), 0o600); err != nil {
		t.Fatal(err)
	}
	table := "| a | b |\n|---|---|\n| 1 | 2 |\n"
	if err := writeDocsBlock(path, "a", table); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before+begin+table+blockEnd("a")+after+other, string(got)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	read, err := readDocsBlock(path, "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(table, read); diff != "" {
		t.Errorf("block read back (-want +got):\n%s", diff)
	}
	if _, err := readDocsBlock(path, "c"); err == nil {
		t.Error("a block that is not there was read")
	}
}
