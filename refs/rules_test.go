package refs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
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

// TestRecentAnswers: an answer is fresh from the instant it was given for one interval, not
// before (a clock that went back), per question (resource and namespace of an access review, kind
// or version of a RESTMapper lookup); a new answer replaces the old.
func TestRecentAnswers(t *testing.T) {
	r := &Reader{}
	gr := schema.GroupResource{Group: "example.com", Resource: "examplemachines"}
	everywhere, inA := scopeKey{gr: gr}, scopeKey{gr: gr, namespace: "a"}
	other := scopeKey{gr: schema.GroupResource{Group: "example.com", Resource: "exampleconfigs"}}
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ExampleMachine"}
	if _, ok := r.recentAnswer(everywhere, t0, time.Minute); ok {
		t.Fatal("the zero value has an answer")
	}
	r.record(everywhere, answer{denied: "list and watch", at: t0})
	r.record(gvk, answer{at: t0})
	type got struct {
		Denied string
		Fresh  bool
	}
	cases := []struct {
		name     string
		k        any
		now      time.Time
		interval time.Duration
		want     got
	}{
		{"at once", everywhere, t0, time.Minute, got{"list and watch", true}},
		{"inside the interval", everywhere, t0.Add(59 * time.Second), time.Minute, got{"list and watch", true}},
		{"at the end of the interval", everywhere, t0.Add(time.Minute), time.Minute, got{"list and watch", false}},
		{"before it was given (clock went back)", everywhere, t0.Add(-time.Second), time.Minute, got{"list and watch", false}},
		{"another namespace", inA, t0, time.Minute, got{"", false}},
		{"another resource", other, t0, time.Minute, got{"", false}},
		{"a version not mapped, inside its step", gvk, t0.Add(1999 * time.Millisecond), 2 * time.Second, got{"", true}},
		{"a version not mapped, after its step", gvk, t0.Add(2 * time.Second), 2 * time.Second, got{"", false}},
		{"another version", gvk.GroupKind().WithVersion("v2"), t0, 2 * time.Second, got{"", false}},
	}
	for _, tc := range cases {
		a, ok := r.recentAnswer(tc.k, tc.now, tc.interval)
		if d := cmp.Diff(tc.want, got{a.denied, ok}); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	r.record(everywhere, answer{at: t0.Add(time.Second)})
	if a, ok := r.recentAnswer(everywhere, t0.Add(2*time.Second), time.Minute); !ok || a.denied != "" {
		t.Fatalf("after access was found allowed: %+v, %v", a, ok)
	}
}

// TestNotInDiscoveryState: a version discovery does not list yet is KindNotServed, retried after
// the given wait, with a message that names the discovery step (not what is left of it, so that
// it stays the same from one read to the next).
func TestNotInDiscoveryState(t *testing.T) {
	st := status.Ref{Kind: "UpMachine", Name: "up-2"}
	want := status.Ref{
		Kind: "UpMachine", Name: "up-2", Problem: status.ProblemKindNotServed, RetryAfter: 8 * time.Second,
		Unreadable: "cannot read UpMachine up-2: version v1beta2 of UpMachine (group infrastructure.cluster.x-k8s.io) is not in discovery yet; checking again every 2s",
	}
	if diff := cmp.Diff(want, notInDiscovery(st, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, 2*time.Second), cmp.AllowUnexported(status.Ref{})); diff != "" {
		t.Errorf("notInDiscovery (-want +got):\n%s", diff)
	}
	if got := notInDiscovery(st, "g", "v1", 2*time.Second, 2*time.Second).Unreadable; got != notInDiscovery(st, "g", "v1", time.Millisecond, 2*time.Second).Unreadable {
		t.Errorf("the message changes with the time left: %q", got)
	}
}

// TestForbiddenState: the Forbidden problem picks the …Forbidden reasons and names the resource,
// the denied verbs, where they were denied, the RBAC objects that can grant them there and the
// retry interval. A cluster-scoped kind is never advised a RoleBinding (one cannot grant it).
func TestForbiddenState(t *testing.T) {
	cases := []struct {
		name  string
		gr    schema.GroupResource
		scope readScope
		verbs string
		want  string
	}{
		{"cluster-scoped kind", schema.GroupResource{Group: "example.com", Resource: "exampleclusters"}, readScope{clusterScoped: true}, "list and watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to list and watch exampleclusters.example.com (cluster-scoped); grant it get, list and watch on them with a ClusterRole and a ClusterRoleBinding (a RoleBinding cannot grant a cluster-scoped kind); checking again every 1m0s"},
		{"namespaced kind denied in its namespace", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a"}, "list and watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to list and watch examplemachines.example.com in namespace team-a nor in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
		{"namespaced kind asked only in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{}, "watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to watch examplemachines.example.com in all namespaces; grant it get, list and watch on them with a ClusterRole and a ClusterRoleBinding; checking again every 1m0s"},
		{"namespaced kind denied other verbs in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a", deniedEverywhere: "list and watch"}, "watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to watch examplemachines.example.com in namespace team-a, and to list and watch it in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
		{"namespaced kind denied the same verbs in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a", deniedEverywhere: "watch"}, "watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to watch examplemachines.example.com in namespace team-a nor in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
	}
	for _, tc := range cases {
		st := forbidden(status.Ref{Kind: "ExampleMachine", Name: "m1"}, tc.gr, tc.scope, tc.verbs, time.Minute)
		if st.Problem != status.ProblemForbidden {
			t.Errorf("%s: problem %v, want %v", tc.name, st.Problem, status.ProblemForbidden)
		}
		if d := cmp.Diff(tc.want, st.Unreadable); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
		if tc.scope.clusterScoped && (strings.Contains(st.Unreadable, "a Role and") || strings.Contains(st.Unreadable, "bound by a RoleBinding")) {
			t.Errorf("%s: a cluster-scoped kind is advised a namespaced grant: %s", tc.name, st.Unreadable)
		}
	}
}

// TestKindRetryDeadline: a reference to an unserved, forbidden or unreadable kind requeues after
// the interval, or at an earlier health-check deadline; a contract violation does not (a change
// to the object is watched).
func TestKindRetryDeadline(t *testing.T) {
	r := &Reader{RetryInterval: time.Minute}
	notServed := status.Ref{Unreadable: "no kind", Problem: status.ProblemKindNotServed}
	forbidden := status.Ref{Unreadable: "forbidden", Problem: status.ProblemForbidden}
	timedOut := status.Ref{Unreadable: "cache timed out", Problem: status.ProblemUnreadable}
	violation := status.Ref{Exists: true, Unreadable: "status.ready: must be a boolean", Problem: status.ProblemContractViolation}
	lagging := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 2*time.Second, 2*time.Second)
	lagging8 := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, 2*time.Second)
	laggingLong := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", time.Hour, 2*time.Second)
	// Read at the version read before while discovery does not list the new one yet.
	readBefore := provisioned()
	readBefore.RetryAfter = 4 * time.Second
	readBeforeLong := provisioned()
	readBeforeLong.RetryAfter = time.Hour
	violationBefore := violation
	violationBefore.RetryAfter = 2 * time.Second
	missingBefore := status.Ref{Kind: "UpMachine", Name: "up-2", RetryAfter: 8 * time.Second}
	cases := []struct {
		name string
		in   status.Inputs
		next time.Time
		want time.Time
	}{
		{"served", status.Inputs{Infra: provisioned()}, time.Time{}, time.Time{}},
		{"served, health-check deadline kept", status.Inputs{Infra: provisioned()}, at(300), at(300)},
		{"a contract violation is not retried", status.Inputs{Infra: violation}, time.Time{}, time.Time{}},
		{"infrastructure kind forbidden", status.Inputs{Infra: forbidden}, time.Time{}, at(60)},
		{"bootstrap kind forbidden", status.Inputs{Infra: provisioned(), Bootstrap: &forbidden}, time.Time{}, at(60)},
		{"cache timed out", status.Inputs{Infra: timedOut}, at(300), at(60)},
		{"infrastructure kind not served", status.Inputs{Infra: notServed}, time.Time{}, at(60)},
		{"bootstrap kind not served", status.Inputs{Infra: provisioned(), Bootstrap: &notServed}, at(300), at(60)},
		{"an earlier deadline wins", status.Inputs{Infra: notServed}, at(10), at(10)},
		{"infrastructure version not in discovery yet", status.Inputs{Infra: lagging}, time.Time{}, at(2)},
		{"bootstrap version not in discovery yet", status.Inputs{Infra: provisioned(), Bootstrap: &lagging8}, at(300), at(8)},
		{"not in discovery, infrastructure kind forbidden", status.Inputs{Infra: forbidden, Bootstrap: &lagging}, time.Time{}, at(2)},
		{"not in discovery, an earlier deadline wins", status.Inputs{Infra: lagging8}, at(5), at(5)},
		{"not in discovery: never later than the interval", status.Inputs{Infra: laggingLong}, time.Time{}, at(60)},
		{"read at the version read before: discovery asked again", status.Inputs{Infra: readBefore}, time.Time{}, at(4)},
		{"bootstrap read at the version read before", status.Inputs{Infra: provisioned(), Bootstrap: &readBefore}, at(300), at(4)},
		{"read at the version read before, an earlier deadline wins", status.Inputs{Infra: readBefore}, at(3), at(3)},
		{"read at the version read before: never later than the interval", status.Inputs{Infra: readBeforeLong}, time.Time{}, at(60)},
		{"a contract violation read at the version read before", status.Inputs{Infra: violationBefore}, time.Time{}, at(2)},
		{"not found at the version read before", status.Inputs{Infra: missingBefore}, time.Time{}, at(8)},
	}
	for _, tc := range cases {
		refs := []status.Ref{tc.in.Infra}
		if tc.in.Bootstrap != nil {
			refs = append(refs, *tc.in.Bootstrap)
		}
		if got := r.RetryDeadline(t0, tc.next, refs...); !got.Equal(tc.want) {
			t.Errorf("%s: RetryDeadline() = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (&Reader{}).RetryDeadline(t0, time.Time{}, notServed); !got.Equal(t0.Add(DefaultKindRetryInterval)) {
		t.Errorf("zero RetryInterval: deadline %v, want the default", got)
	}
}

// TestStripCRD: the cache keeps of a CRD what versionOf reads, and round-trips through crdOf.
func TestStripCRD(t *testing.T) {
	u := NewCRD()
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
