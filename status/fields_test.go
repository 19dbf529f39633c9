package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestContractFields: the cache keeps exactly what ReadContract reads, so the result of
// reading a stripped object equals the result of reading the whole one.
func TestContractFields(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachine",
		"metadata": map[string]any{"name": "m", "namespace": "ns", "annotations": map[string]any{"big": "x"}, "labels": map[string]any{"a": "b"}},
		"spec":     map[string]any{"providerID": "docker:////m", "customImage": "kindest/node", "extraMounts": []any{"a", "b"}},
		"status": map[string]any{
			"initialization": map[string]any{"provisioned": true}, "failureReason": "X", "failureMessage": "y",
			"addresses":  []any{map[string]any{"type": "InternalIP", "address": "10.0.0.1"}},
			"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "R", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		},
	}}
	stripped := ContractFields(u.DeepCopy())
	if _, ok := stripped.Object["status"].(map[string]any)["addresses"]; ok {
		t.Error("status.addresses kept")
	}
	if stripped.GetAnnotations() != nil || stripped.GetLabels() != nil {
		t.Error("annotations or labels kept")
	}
	want, err1 := ReadContract(u, "provisioned")
	got, err2 := ReadContract(stripped, "provisioned")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadContract differs after stripping (-whole +stripped):\n%s", diff)
	}
}
