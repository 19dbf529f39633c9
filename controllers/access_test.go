package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestDeniedResourcesRemembersForOneInterval: a denial is answered from memory for one retry
// interval after it was found, per resource, and is forgotten when access is found allowed.
func TestDeniedResourcesRemembersForOneInterval(t *testing.T) {
	var d deniedResources
	gr := schema.GroupResource{Group: "example.com", Resource: "examplemachines"}
	other := schema.GroupResource{Group: "example.com", Resource: "exampleconfigs"}
	if _, ok := d.recent(gr, t0, time.Minute); ok {
		t.Fatal("zero value remembers a denial")
	}
	d.record(gr, "list and watch", t0)
	cases := []struct {
		name string
		gr   schema.GroupResource
		now  time.Time
		want bool
	}{
		{"at once", gr, t0, true},
		{"inside the interval", gr, t0.Add(59 * time.Second), true},
		{"at the end of the interval", gr, t0.Add(time.Minute), false},
		{"after it", gr, t0.Add(2 * time.Minute), false},
		{"before it was found (clock went back)", gr, t0.Add(-time.Second), false},
		{"another resource", other, t0, false},
	}
	for _, tc := range cases {
		verbs, ok := d.recent(tc.gr, tc.now, time.Minute)
		if ok != tc.want || (ok && verbs != "list and watch") {
			t.Errorf("%s: recent() = %q, %v; want %v", tc.name, verbs, ok, tc.want)
		}
	}
	d.record(gr, "", t0.Add(time.Second))
	if _, ok := d.recent(gr, t0.Add(2*time.Second), time.Minute); ok {
		t.Fatal("an allowed resource is still remembered as denied")
	}
}

// TestForbiddenState: the Forbidden problem picks the …Forbidden reasons and names the resource,
// the denied verbs, the grant and the retry interval.
func TestForbiddenState(t *testing.T) {
	st := forbidden(refState{Kind: "ExampleMachine", Name: "m1"}, schema.GroupResource{Group: "example.com", Resource: "examplemachines"},
		"list and watch", time.Minute)
	want := "cannot read ExampleMachine m1: RBAC forbids the manager to list and watch examplemachines.example.com in all namespaces; grant it get, list and watch on them; checking again every 1m0s"
	if st.Problem != refForbidden || st.Unreadable != want {
		t.Fatalf("forbidden() = %v %q, want %v %q", st.Problem, st.Unreadable, refForbidden, want)
	}
	if infraProblemReasons[refForbidden] != "InfrastructureForbidden" || bootstrapProblemReasons[refForbidden] != "BootstrapConfigForbidden" {
		t.Fatalf("reasons %q, %q", infraProblemReasons[refForbidden], bootstrapProblemReasons[refForbidden])
	}
}
