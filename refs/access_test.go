package refs

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
)

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
