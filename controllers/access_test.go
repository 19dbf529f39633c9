package controllers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestAccessAnswersFreshness: an answer is reused for one retry interval after it was asked,
// per resource and namespace, and for as long as its scope is watched (the recheck keeps it up
// to date); a new answer replaces the old.
func TestAccessAnswersFreshness(t *testing.T) {
	r := &MachineReconciler{KindRetryInterval: time.Minute}
	a := &r.access
	gr := schema.GroupResource{Group: "example.com", Resource: "examplemachines"}
	everywhere, inA, inB := scopeKey{gr: gr}, scopeKey{gr: gr, namespace: "a"}, scopeKey{gr: gr, namespace: "b"}
	other := scopeKey{gr: schema.GroupResource{Group: "example.com", Resource: "exampleconfigs"}}
	if _, ok := r.recentAnswer(everywhere, t0); ok {
		t.Fatal("the zero value has an answer")
	}
	a.answers.record(everywhere, "list and watch", t0)
	a.answers.record(inA, "", t0)
	r.watches.watched = map[watchKey]schema.GroupVersionResource{
		{gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ExampleMachine"}, namespace: "a"}: gr.WithVersion("v1"),
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
// the denied verbs, where they were denied, the grant and the retry interval.
func TestForbiddenState(t *testing.T) {
	gr := schema.GroupResource{Group: "example.com", Resource: "examplemachines"}
	cases := []struct {
		name, ns, want string
	}{
		{"cluster-scoped kind", "", "cannot read ExampleMachine m1: RBAC forbids the manager to list and watch examplemachines.example.com in all namespaces; grant it get, list and watch on them; checking again every 1m0s"},
		{"namespaced kind", "team-a", "cannot read ExampleMachine m1: RBAC forbids the manager to list and watch examplemachines.example.com in namespace team-a nor in all namespaces; grant it get, list and watch on them in team-a (a RoleBinding) or in all namespaces; checking again every 1m0s"},
	}
	for _, tc := range cases {
		st := forbidden(refState{Kind: "ExampleMachine", Name: "m1"}, gr, tc.ns, "list and watch", time.Minute)
		if st.Problem != refForbidden {
			t.Errorf("%s: problem %v, want %v", tc.name, st.Problem, refForbidden)
		}
		if d := cmp.Diff(tc.want, st.Unreadable); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if infraProblemReasons[refForbidden] != "InfrastructureForbidden" || bootstrapProblemReasons[refForbidden] != "BootstrapConfigForbidden" {
		t.Fatalf("reasons %q, %q", infraProblemReasons[refForbidden], bootstrapProblemReasons[refForbidden])
	}
}
