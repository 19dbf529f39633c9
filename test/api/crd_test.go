package api

import (
	"strings"
	"testing"

	"github.com/machinestatus/machinestatus/config/crd"
)

// TestCRDConditionsAreAListMap checks the generated schema keys status.conditions by type, so
// several writers' conditions merge (TestCRDRejectsBadStatus checks what the schema refuses).
func TestCRDConditionsAreAListMap(t *testing.T) {
	if !strings.Contains(crdYAML(t), "x-kubernetes-list-map-keys:\n                - type\n                x-kubernetes-list-type: map") {
		t.Fatal("status.conditions lacks the list-map markers")
	}
}

func crdYAML(t *testing.T) string {
	t.Helper()
	b, err := crd.Bases.ReadFile("bases/machinestatus.io_machines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
