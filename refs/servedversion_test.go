package refs

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crdVersion is a version of a test CRD.
type crdVersion struct {
	name            string
	served, storage bool
}

// upCRD returns the UpMachine CRD with labels and versions vs, Established or not.
func upCRD(labels map[string]string, established bool, vs ...crdVersion) *apiextensionsv1.CustomResourceDefinition {
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

// TestVersionOf: which version of a provider's kind is read, from real shapes of provider CRDs
// (served and storage versions, Cluster API contract labels, deletion, establishment).
func TestVersionOf(t *testing.T) {
	deleting := upCRD(nil, true, crdVersion{"v1beta1", true, true})
	deleting.DeletionTimestamp = &metav1.Time{}
	noConditions := upCRD(nil, true, crdVersion{"v1beta1", true, true})
	noConditions.Status.Conditions = nil
	establishedLast := upCRD(nil, true, crdVersion{"v1beta1", true, true})
	establishedLast.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		{Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionFalse},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
	}
	establishedUnknown := upCRD(nil, true, crdVersion{"v1beta1", true, true})
	establishedUnknown.Status.Conditions[0].Status = apiextensionsv1.ConditionUnknown
	notEstablished := "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is not established"
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want string
		why  string
	}{
		{"only v1beta1", upCRD(nil, true, crdVersion{"v1beta1", true, true}), "v1beta1", ""},
		{"upgraded: v1beta1 not served", upCRD(nil, true, crdVersion{"v1beta1", false, false}, crdVersion{"v1beta2", true, true}), "v1beta2", ""},
		{"both served, storage v1beta1: the newest", upCRD(nil, true, crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, false}), "v1beta2", ""},
		{"GA over beta", upCRD(nil, true, crdVersion{"v1beta2", true, false}, crdVersion{"v1", true, true}, crdVersion{"v1alpha3", true, false}), "v1", ""},
		{"contract v1beta2 label names the older version", upCRD(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1"}, true,
			crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, false}), "v1beta1", ""},
		{"contract label lists several: the newest served", upCRD(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2_v1beta3"}, true,
			crdVersion{"v1beta1", true, false}, crdVersion{"v1beta2", true, true}, crdVersion{"v1beta3", false, false}), "v1beta2", ""},
		{"newest contract wins", upCRD(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4", "cluster.x-k8s.io/v1beta2": "v1beta1"}, true,
			crdVersion{"v1alpha4", true, false}, crdVersion{"v1beta1", true, true}), "v1beta1", ""},
		{"only the v1beta1 contract", upCRD(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4"}, true,
			crdVersion{"v1alpha4", true, false}, crdVersion{"v1beta1", true, true}), "v1alpha4", ""},
		{"contract label names no served version", upCRD(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta3"}, true,
			crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, false}), "v1beta2", ""},
		{"nothing served", upCRD(nil, true, crdVersion{"v1beta1", false, true}), "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io serves no version"},
		{"not established", upCRD(nil, false, crdVersion{"v1beta1", true, true}), "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is not established"},
		{"being deleted", deleting, "", "its CustomResourceDefinition upmachines.infrastructure.cluster.x-k8s.io is being deleted"},
		{"no conditions yet", noConditions, "", notEstablished},
		{"Established after other conditions", establishedLast, "v1beta1", ""},
		{"Established Unknown", establishedUnknown, "", notEstablished},
		{"only alphas: the newest", upCRD(nil, true, crdVersion{"v1alpha2", true, false}, crdVersion{"v1alpha1", true, true}, crdVersion{"v1alpha3", false, false}), "v1alpha2", ""},
		{"v2 over v1", upCRD(nil, true, crdVersion{"v2", true, false}, crdVersion{"v1", true, true}), "v2", ""},
		{"an empty contract label: the newest served", upCRD(map[string]string{"cluster.x-k8s.io/v1beta2": ""}, true,
			crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, false}), "v1beta2", ""},
		{"a label of another group is not a contract label", upCRD(map[string]string{"example.com/v1beta2": "v1beta1"}, true,
			crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, false}), "v1beta2", ""},
		{"contract label names an unserved version and a served one", upCRD(map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha3_v1alpha4"}, true,
			crdVersion{"v1alpha3", true, false}, crdVersion{"v1alpha4", false, false}, crdVersion{"v1beta1", true, true}), "v1alpha3", ""},
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

// TestVersionToRead: which version of a provider's kind is read while discovery catches up with
// its CRD, from real shapes of provider upgrades: the version picked once discovery lists it;
// until then the version read before while the CRD still serves it and discovery lists it;
// else nothing (the version picked, waiting). Discovery is asked about the version read before
// only when the one picked is not listed.
func TestVersionToRead(t *testing.T) {
	v1beta1, v1beta2 := crdVersion{"v1beta1", true, true}, crdVersion{"v1beta2", true, true}
	v1beta1Served := crdVersion{"v1beta1", true, false} // served, no longer stored
	v1beta1Dropped := crdVersion{"v1beta1", false, false}
	v1beta2Served := crdVersion{"v1beta2", true, false}
	label := func(versions string) map[string]string {
		return map[string]string{"cluster.x-k8s.io/v1beta2": versions}
	}
	deleting := upCRD(nil, true, v1beta1Served, v1beta2)
	deleting.DeletionTimestamp = &metav1.Time{}
	const name = "upmachines.infrastructure.cluster.x-k8s.io"
	tests := []struct {
		name     string
		crd      *apiextensionsv1.CustomResourceDefinition
		previous string
		listed   []string // the versions discovery lists
		want     versionRead
		asked    []string // the versions discovery is asked about, in order
	}{
		{"first read, listed", upCRD(nil, true, v1beta1), "", []string{"v1beta1"},
			versionRead{Version: "v1beta1"}, []string{"v1beta1"}},
		{"first read of a CRD just installed, not listed yet", upCRD(nil, true, v1beta1), "", nil,
			versionRead{Version: "v1beta1", Waiting: "v1beta1"}, []string{"v1beta1"}},
		{"v1beta2 added, v1beta1 still served: discovery lags", upCRD(nil, true, v1beta1Served, v1beta2), "v1beta1", []string{"v1beta1"},
			versionRead{Version: "v1beta1", Waiting: "v1beta2"}, []string{"v1beta2", "v1beta1"}},
		{"v1beta2 added, v1beta1 still served: discovery caught up", upCRD(nil, true, v1beta1Served, v1beta2), "v1beta1", []string{"v1beta1", "v1beta2"},
			versionRead{Version: "v1beta2"}, []string{"v1beta2"}},
		{"v1beta2 added as served only (storage stays v1beta1): discovery lags", upCRD(nil, true, v1beta1, v1beta2Served), "v1beta1", []string{"v1beta1"},
			versionRead{Version: "v1beta1", Waiting: "v1beta2"}, []string{"v1beta2", "v1beta1"}},
		{"contract label moves to v1beta2, both listed", upCRD(label("v1beta2"), true, v1beta1, v1beta2Served), "v1beta1", []string{"v1beta1", "v1beta2"},
			versionRead{Version: "v1beta2"}, []string{"v1beta2"}},
		{"contract label moves to v1beta2 added with it: discovery lags", upCRD(label("v1beta2"), true, v1beta1, v1beta2Served), "v1beta1", []string{"v1beta1"},
			versionRead{Version: "v1beta1", Waiting: "v1beta2"}, []string{"v1beta2", "v1beta1"}},
		{"contract label moves back to v1beta1", upCRD(label("v1beta1"), true, v1beta1, v1beta2Served), "v1beta2", []string{"v1beta1", "v1beta2"},
			versionRead{Version: "v1beta1"}, []string{"v1beta1"}},
		{"v1beta1 dropped as v1beta2 is added: nothing to read until listed", upCRD(nil, true, v1beta1Dropped, v1beta2), "v1beta1", []string{"v1beta1"},
			versionRead{Version: "v1beta2", Waiting: "v1beta2"}, []string{"v1beta2"}},
		{"v1beta1 removed from the CRD as v1beta2 is added", upCRD(nil, true, v1beta2), "v1beta1", []string{"v1beta1"},
			versionRead{Version: "v1beta2", Waiting: "v1beta2"}, []string{"v1beta2"}},
		{"v1beta1 dropped, v1beta2 listed", upCRD(nil, true, v1beta1Dropped, v1beta2), "v1beta1", []string{"v1beta1", "v1beta2"},
			versionRead{Version: "v1beta2"}, []string{"v1beta2"}},
		{"discovery lists neither", upCRD(nil, true, v1beta1Served, v1beta2), "v1beta1", nil,
			versionRead{Version: "v1beta2", Waiting: "v1beta2"}, []string{"v1beta2", "v1beta1"}},
		{"the version read before is the one picked, not listed", upCRD(nil, true, v1beta2), "v1beta2", nil,
			versionRead{Version: "v1beta2", Waiting: "v1beta2"}, []string{"v1beta2"}},
		{"GA v1 added beside v1beta2: discovery lags", upCRD(nil, true, v1beta2Served, crdVersion{"v1", true, true}), "v1beta2", []string{"v1beta2"},
			versionRead{Version: "v1beta2", Waiting: "v1"}, []string{"v1", "v1beta2"}},
		{"CRD deleted", nil, "v1beta2", []string{"v1beta1", "v1beta2"},
			versionRead{Why: "its CustomResourceDefinition was deleted"}, nil},
		{"CRD being deleted", deleting, "v1beta1", []string{"v1beta1", "v1beta2"},
			versionRead{Why: "its CustomResourceDefinition " + name + " is being deleted"}, nil},
		{"CRD re-created, not established yet", upCRD(nil, false, v1beta2), "", []string{"v1beta2"},
			versionRead{Why: "its CustomResourceDefinition " + name + " is not established"}, nil},
		{"no version served any more", upCRD(nil, true, v1beta1Dropped), "v1beta1", []string{"v1beta1"},
			versionRead{Why: "its CustomResourceDefinition " + name + " serves no version"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			got := versionToRead(tt.crd, tt.previous, func(v string) bool {
				asked = append(asked, v)
				return slices.Contains(tt.listed, v)
			})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("versionToRead (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.asked, asked); d != "" {
				t.Errorf("versions asked about (-want +got):\n%s", d)
			}
		})
	}
}
