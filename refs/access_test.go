package refs

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
)

// TestAccessAnswersFreshness: an answer is reused for one retry interval after it was asked,
// per resource and namespace, and for as long as its scope is watched (the recheck keeps it up
// to date); a new answer replaces the old.
func TestAccessAnswersFreshness(t *testing.T) {
	r := &Reader{RetryInterval: time.Minute}
	a := &r.access
	gr := schema.GroupResource{Group: "example.com", Resource: "examplemachines"}
	everywhere, inA, inB := scopeKey{gr: gr}, scopeKey{gr: gr, namespace: "a"}, scopeKey{gr: gr, namespace: "b"}
	other := scopeKey{gr: schema.GroupResource{Group: "example.com", Resource: "exampleconfigs"}}
	if _, ok := r.recentAnswer(everywhere, t0); ok {
		t.Fatal("the zero value has an answer")
	}
	a.answers.record(everywhere, "list and watch", t0)
	a.answers.record(inA, "", t0)
	r.watches = map[watchKey]watch{
		{gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ExampleMachine"}, namespace: "a"}: {gvr: gr.WithVersion("v1")},
	}
	type got struct {
		Denied string
		Fresh  bool
	}
	cases := []struct {
		name string
		k    scopeKey
		now  time.Time
		want got
	}{
		{"at once", everywhere, t0, got{"list and watch", true}},
		{"inside the interval", everywhere, t0.Add(59 * time.Second), got{"list and watch", true}},
		{"at the end of the interval", everywhere, t0.Add(time.Minute), got{"list and watch", false}},
		{"before it was asked (clock went back)", everywhere, t0.Add(-time.Second), got{"list and watch", false}},
		{"a watched scope, long after", inA, t0.Add(time.Hour), got{"", true}},
		{"another namespace", inB, t0, got{"", false}},
		{"another resource", other, t0, got{"", false}},
	}
	for _, tc := range cases {
		x, ok := r.recentAnswer(tc.k, tc.now)
		if d := cmp.Diff(tc.want, got{x, ok}); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	a.answers.record(everywhere, "", t0.Add(time.Second))
	if x, ok := r.recentAnswer(everywhere, t0.Add(2*time.Second)); !ok || x != "" {
		t.Fatalf("after access was found allowed: %+v, %v", x, ok)
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
		{"a read refused in the namespace's cache", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a"}, "read",
			"cannot read ExampleMachine m1: RBAC forbids the manager to read examplemachines.example.com in namespace team-a nor in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
		{"namespaced kind denied other verbs in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a", deniedEverywhere: "list and watch"}, "watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to watch examplemachines.example.com in namespace team-a, and to list and watch it in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
		{"namespaced kind denied the same verbs in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a", deniedEverywhere: "watch"}, "watch",
			"cannot read ExampleMachine m1: RBAC forbids the manager to watch examplemachines.example.com in namespace team-a nor in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
		{"a read refused in the namespace's cache, list denied in all namespaces", schema.GroupResource{Group: "example.com", Resource: "examplemachines"}, readScope{namespace: "team-a", deniedEverywhere: "list"}, "read",
			"cannot read ExampleMachine m1: RBAC forbids the manager to read examplemachines.example.com in namespace team-a, and to list it in all namespaces; grant it get, list and watch on them in team-a (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 1m0s"},
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
