package clusterapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsTableRoundTrip: writeDocsTable replaces only what is between the markers, and
// readDocsTable reads back what was written.
func TestDocsTableRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	before, after := "# Title\n\nintro\n\n", "\n\nafter the table, longer than the old one was\n"
	if err := os.WriteFile(path, []byte(before+tableBegin+"\n| old |\n"+tableEnd+after), 0o600); err != nil {
		t.Fatal(err)
	}
	table := "| a | b |\n|---|---|\n| 1 | 2 |\n"
	if err := writeDocsTable(path, table); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before+tableBegin+"\n"+table+tableEnd+after, string(got)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	read, err := readDocsTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(table, read); diff != "" {
		t.Errorf("table read back (-want +got):\n%s", diff)
	}
}
