package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestVersionOf: which version of a provider's kind is read, from real shapes of provider CRDs
// (served and storage versions, Cluster API contract labels, deletion, establishment).
func TestVersionOf(t *testing.T) {
	type version struct {
		name            string
		served, storage bool
	}
	crd := func(labels map[string]string, established bool, vs ...version) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "upmachines.infrastructure.cluster.x-k8s.io", Labels: labels}}
		for _, v := range vs {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v.name, Served: v.served, Storage: v.storage})
		}
		status := apiextensionsv1.ConditionFalse
		if established {
			status = apiextensionsv1.ConditionTrue
		}
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: status}}
		return c
	}
	deleting := crd(nil, true, version{"v1beta1", true, true})
	deleting.DeletionTimestamp = &metav1.Time{}
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want string
		why  string
	}{
		{"only v1beta1", crd(nil, true, version{"v1beta1", true, true}), "v1beta1", ""},
		{"upgraded: v1beta1 not served", crd(nil, true, version{"v1beta1", false, false}, version{"v1beta2", true, true}), "v1beta2", ""},
		{"both served, storage v1beta1: the newest", crd(nil, true, version{"v1beta1", true, true}, version{"v1beta2", true, false}), "v1beta2", ""},
		{"GA over beta", crd(nil, true, version{"v1beta2", true, false}, version{"v1", true, true}, version{"v1alpha3", true, false}), "v1", ""},
		{"contract v1beta2 label names the older version", crd(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1"}, true,
			version{"v1beta1", true, true}, version{"v1beta2", true, false}), "v1beta1", ""},
		{"contract label lists several: the newest served", crd(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2_v1beta3"}, true,
			version{"v1beta1", true, false}, version{"v1beta2", true, true}, version{"v1beta3", false, false}), "v1beta2", ""},
		{"newest contract wins", crd(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4", "cluster.x-k8s.io/v1beta2": "v1beta1"}, true,
			version{"v1alpha4", true, false}, version{"v1beta1", true, true}), "v1beta1", ""},
		{"only the v1beta1 contract", crd(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4"}, true,
			version{"v1alpha4", true, false}, version{"v1beta1", true, true}), "v1alpha4", ""},
		{"contract label names no served version", crd(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta3"}, true,
			version{"v1beta1", true, true}, version{"v1beta2", true, false}), "v1beta2", ""},
		{"nothing served", crd(nil, true, version{"v1beta1", false, true}), "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io serves no version"},
		{"not established", crd(nil, false, version{"v1beta1", true, true}), "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is not established"},
		{"being deleted", deleting, "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is being deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := versionOf(tt.crd)
			if diff := cmp.Diff([]string{tt.want, tt.why}, []string{got, why}); diff != "" {
				t.Errorf("versionOf (-want +got):\n%s", diff)
			}
		})
	}
}

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
