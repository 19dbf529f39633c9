package clusterapi

import (
	"os"
	"strings"
	"testing"
)

// TestAllowedDifferencesAreDocumented checks that every allowed difference names a section of
// docs/clusterapi.md.
func TestAllowedDifferencesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range allowedDifferences {
		if !strings.Contains(string(doc), "\n### "+d.section+"\n") {
			t.Errorf("Cluster API %s, ours %s: docs/clusterapi.md has no section %q", d.clusterAPI, d.ours, "### "+d.section)
		}
	}
}
