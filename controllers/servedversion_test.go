package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	noConditions := crd(nil, true, version{"v1beta1", true, true})
	noConditions.Status.Conditions = nil
	establishedLast := crd(nil, true, version{"v1beta1", true, true})
	establishedLast.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		{Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionFalse},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
	}
	establishedUnknown := crd(nil, true, version{"v1beta1", true, true})
	establishedUnknown.Status.Conditions[0].Status = apiextensionsv1.ConditionUnknown
	notEstablished := "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is not established"
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
		{"no conditions yet", noConditions, "", notEstablished},
		{"Established after other conditions", establishedLast, "v1beta1", ""},
		{"Established Unknown", establishedUnknown, "", notEstablished},
		{"only alphas: the newest", crd(nil, true, version{"v1alpha2", true, false}, version{"v1alpha1", true, true}, version{"v1alpha3", false, false}), "v1alpha2", ""},
		{"v2 over v1", crd(nil, true, version{"v2", true, false}, version{"v1", true, true}), "v2", ""},
		{"an empty contract label: the newest served", crd(map[string]string{"cluster.x-k8s.io/v1beta2": ""}, true,
			version{"v1beta1", true, true}, version{"v1beta2", true, false}), "v1beta2", ""},
		{"a label of another group is not a contract label", crd(map[string]string{"example.com/v1beta2": "v1beta1"}, true,
			version{"v1beta1", true, true}, version{"v1beta2", true, false}), "v1beta2", ""},
		{"contract label names an unserved version and a served one", crd(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha3_v1alpha4"}, true,
			version{"v1alpha3", true, false}, version{"v1alpha4", false, false}, version{"v1beta1", true, true}), "v1alpha3", ""},
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
