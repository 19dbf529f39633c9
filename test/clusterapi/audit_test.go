package clusterapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// auditLine is an audit event as the API server logs it (ResponseComplete).
func auditLine(t *testing.T, at int, user, agent, verb, sub string, code int, rv string, body any) string {
	t.Helper()
	e := map[string]any{
		"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "stage": "ResponseComplete",
		"verb": verb, "user": map[string]any{"username": user}, "userAgent": agent,
		"objectRef":                map[string]any{"resource": "machines", "namespace": "default", "name": "m1", "apiGroup": "cluster.x-k8s.io", "subresource": sub},
		"responseStatus":           map[string]any{"code": code},
		"requestReceivedTimestamp": time.Date(2026, 1, 1, 0, 0, at, 0, time.UTC).Format(metav1.RFC3339Micro),
		"stageTimestamp":           time.Date(2026, 1, 1, 0, 0, at, 500, time.UTC).Format(metav1.RFC3339Micro),
	}
	if body != nil {
		e["requestObject"] = body
	}
	if rv != "" {
		e["responseObject"] = map[string]any{"kind": "Machine", "apiVersion": "cluster.x-k8s.io/v1beta2",
			"metadata": map[string]any{"name": "m1", "namespace": "default", "resourceVersion": rv}}
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ourBody(typ, state, description string) map[string]any {
	v := fmt.Sprintf(`{"type":%q,"state":%q,"lastUpdated":"2026-01-01T00:00:00Z"`, typ, state)
	if description != "" {
		v += fmt.Sprintf(`,"description":%q`, description)
	}
	return map[string]any{"metadata": map[string]any{"annotations": map[string]any{"machinestatus.io/last-operation": v + "}"}}}
}

// TestAuditAccount: effective writes are those whose response version is new; our patches are
// counted against the (type, state) changes they set, and an identical one is found.
func TestAuditAccount(t *testing.T) {
	capi := "cluster-api/machine-controller"
	lines := []string{
		auditLine(t, 1, "admin", "cluster-api/machineset-controller", "patch", "", 201, "10", nil),
		auditLine(t, 2, fleet.ManagerUser, "manager/v0", "patch", "", 200, "11", ourBody("Create", "Processing", "Waiting")),
		auditLine(t, 3, "admin", capi, "patch", "status", 200, "12", nil),
		// A no-op: the version it returns was produced before.
		auditLine(t, 4, "admin", capi, "patch", "status", 200, "12", nil),
		// A description-only change: a write for no (type, state) change.
		auditLine(t, 5, fleet.ManagerUser, "manager/v0", "patch", "", 200, "13", ourBody("Create", "Processing", "Waiting more")),
		// Identical to the previous one: a no-op.
		auditLine(t, 6, fleet.ManagerUser, "manager/v0", "patch", "", 200, "13", ourBody("Create", "Processing", "Waiting more")),
		auditLine(t, 7, "admin", suiteAgent, "delete", "", 200, "14", nil),
		auditLine(t, 8, fleet.ManagerUser, "manager/v0", "patch", "", 200, "15", ourBody("Delete", "Processing", "")),
		auditLine(t, 9, fleet.ManagerUser, "manager/v0", "patch", "", 404, "", ourBody("Delete", "Successful", "")),
		// Not a Machine: ignored.
		strings.Replace(auditLine(t, 10, "admin", capi, "patch", "", 200, "16", nil), `"resource":"machines"`, `"resource":"nodes"`, 1),
	}
	a, err := parseAuditLog(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := types.NamespacedName{Namespace: "default", Name: "m1"}
	got := account(m, a.Machines[m])
	want := machineWrites{
		Machine: m,
		By: map[string]writeCounts{
			"machineset-controller": {Requests: 1, Effective: 1},
			"machine-controller":    {Requests: 2, Effective: 1, NoOps: 1},
			writerOurs:              {Requests: 5, Effective: 3, NoOps: 1, Failed: 1},
			writerSuite:             {Requests: 1, Effective: 1},
		},
		Changes: 3, Extra: 2, Identical: 1,
		Results:  []typeState{deleteSucceeded},
		Sequence: []string{"Create Processing", "Create Processing", "Create Processing", "Delete Processing", "Delete Successful"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("account (-want +got):\n%s", diff)
	}
	if n := got.clusterAPIEffective(); n != 2 {
		t.Errorf("Cluster API's effective writes: %d, want 2", n)
	}
}

// TestWriterOf: our manager by its user, Cluster API's reconcilers and the suite by their user
// agents.
func TestWriterOf(t *testing.T) {
	for _, tc := range []struct{ user, agent, want string }{
		{fleet.ManagerUser, "manager/v0.0.0 (linux/amd64) kubernetes/$Format", writerOurs},
		{"admin", machineSetAgent, "machineset-controller"},
		{"admin", suiteAgent, writerSuite},
		{"admin", "kwok/v0.7 (linux/amd64)", "kwok/v0.7"},
	} {
		if got := writerOf(tc.user, tc.agent); got != tc.want {
			t.Errorf("writerOf(%q, %q) = %q, want %q", tc.user, tc.agent, got, tc.want)
		}
	}
}

// TestWritesTableShape: a run with other numbers has the same shape.
func TestWritesTableShape(t *testing.T) {
	a := "| scale #1 | 3 (2) | 2 | 0 | 17 (25) | 15% |\n"
	b := "| scale #1 | 4 (4) | 3 | 1 | 19 (31) | 21% |\n"
	if writesTableShape(a) != writesTableShape(b) {
		t.Errorf("shapes differ: %q, %q", writesTableShape(a), writesTableShape(b))
	}
	if c := "| scale #2 | 3 (2) | 2 | 0 | 17 (25) | 15% |\n"; writesTableShape(a) == writesTableShape(c) {
		t.Error("another Machine has the same shape")
	}
}
