package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestStripCRD: the cache keeps of a CRD what versionOf reads, and round-trips through crdOf.
func TestStripCRD(t *testing.T) {
	u := newCRD()
	u.SetName("upmachines.infrastructure.cluster.x-k8s.io")
	u.SetLabels(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"})
	u.Object["spec"] = map[string]any{
		"group": "infrastructure.cluster.x-k8s.io", "scope": "Namespaced",
		"names": map[string]any{"kind": "UpMachine", "plural": "upmachines", "listKind": "UpMachineList"},
		"versions": []any{map[string]any{"name": "v1beta2", "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "description": "big"}}}},
	}
	u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Established", "status": "True", "lastTransitionTime": nil}}}
	out, err := stripCRD(u)
	if err != nil {
		t.Fatal(err)
	}
	crd := crdOf(out)
	if crd == nil {
		t.Fatal("crdOf(stripCRD(crd)) = nil")
	}
	if crd.Spec.Versions[0].Schema != nil {
		t.Error("the schema is kept")
	}
	if v, why := versionOf(crd); v != "v1beta2" || why != "" {
		t.Errorf("versionOf = %q, %q; want v1beta2", v, why)
	}
	if diff := cmp.Diff([]string{"infrastructure.cluster.x-k8s.io/UpMachine"}, crdIndex(out.(*unstructured.Unstructured))); diff != "" {
		t.Errorf("crdIndex (-want +got):\n%s", diff)
	}
}
