package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/internal/describe"
	"github.com/machinestatus/machinestatus/test/embedded"
)

// table is one table of get's output: its rows, each a column → cell map.
type table []map[string]string

// parseTables splits kubectl-style tables (a header line, then rows; tables separated by a
// blank line) into cells by the header's column offsets, so that empty cells stay empty.
func parseTables(t *testing.T, text string) []table {
	t.Helper()
	var out []table
	for _, block := range strings.Split(strings.TrimRight(text, "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		header := lines[0]
		var names []string
		var starts []int
		for i := 0; i < len(header); {
			if header[i] == ' ' {
				i++
				continue
			}
			j := i
			for j < len(header) && header[j] != ' ' {
				j++
			}
			names, starts = append(names, header[i:j]), append(starts, i)
			i = j
		}
		var tb table
		for _, line := range lines[1:] {
			row := map[string]string{}
			for c, name := range names {
				end := len(line)
				if c+1 < len(starts) {
					end = min(starts[c+1], len(line))
				}
				if starts[c] < len(line) {
					row[name] = strings.TrimSpace(line[starts[c]:end])
				}
			}
			tb = append(tb, row)
		}
		out = append(out, tb)
	}
	return out
}

// project returns, per row, the given columns joined by "|".
func (tb table) project(cols ...string) []string {
	var out []string
	for _, row := range tb {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = row[c]
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// TestGetKubectlPlugin lists a namespace of both APIs' Machines with `kubectl machinestatus
// get` (the real kubectl running the plugin): one table per API, machinestatus's phase next to
// Cluster API's where they differ, lastOperations with the annotation's history or marked as
// derived without it, and the kubectl get flags.
func TestGetKubectlPlugin(t *testing.T) {
	ns := newNamespace(t, "get")
	createMachinestatusMachine(t, ns, "ms-running", nil, runningConditions()...)
	createMachinestatusMachine(t, ns, "ms-failed", nil, failedConditions()...)
	createCAPIMachine(t, runningCAPIMachine(t, ns, "capi-running"))
	createCAPIMachine(t, provisioningCAPIMachine(t, ns, "capi-provisioning"))
	createCAPIMachine(t, unhealthyCAPIMachine(t, ns, "capi-unhealthy"))

	r := runPlugin(t, "", "get", "-n", ns)
	if r.code != 0 {
		t.Fatalf("kubectl machinestatus get failed: %s", r)
	}
	tables := parseTables(t, r.stdout)
	if len(tables) != 2 {
		t.Fatalf("want a table per API, got %d:\n%s", len(tables), r.stdout)
	}
	ours := tables[0].project("NAME", "PHASE", "READY", "LAST-OP", "NODE")
	if diff := cmp.Diff([]string{
		"machine.machinestatus.io/ms-failed|Failed|False|HealthCheck Failed|ms-failed",
		"machine.machinestatus.io/ms-running|Running|True|Create Successful|ms-running",
	}, ours); diff != "" {
		t.Errorf("machinestatus Machines (-want +got):\n%s\n%s", diff, r.stdout)
	}
	capi := tables[1].project("NAME", "CLUSTER", "PHASE", "CAPI-PHASE", "READY", "LAST-OP", "NODE")
	node := "ip-10-0-12-34.eu-west-1.compute.internal"
	if diff := cmp.Diff([]string{
		"machine.cluster.x-k8s.io/capi-provisioning|prod-eu|Provisioning||False|Create Processing|",
		"machine.cluster.x-k8s.io/capi-running|prod-eu|Running||True|Create Successful*|" + node,
		"machine.cluster.x-k8s.io/capi-unhealthy|prod-eu|Failed|Running|False|HealthCheck Failed|" + node,
	}, capi); diff != "" {
		t.Errorf("Cluster API Machines (-want +got):\n%s\n%s", diff, r.stdout)
	}
	for _, row := range append(tables[0], tables[1]...) {
		if row["AGE"] == "" {
			t.Errorf("%s has no AGE", row["NAME"])
		}
	}
	if !strings.Contains(r.stderr, describe.NoHistoryFootnote) {
		t.Errorf("a lastOperation was derived without history, want the footnote on stderr:\n%s", r.stderr)
	}

	// One API, every namespace, a selector, wide: NAMESPACE first, plain names, the
	// lastOperation's description; a Machine with history needs no footnote.
	r = runPlugin(t, "", "get", "ma", "-A", "-l", "cluster.x-k8s.io/cluster-name=prod-eu", "-o", "wide")
	if r.code != 0 {
		t.Fatalf("get ma -A -o wide failed: %s", r)
	}
	tables = parseTables(t, r.stdout)
	if len(tables) != 1 {
		t.Fatalf("want one table:\n%s", r.stdout)
	}
	var unhealthy map[string]string
	for _, row := range tables[0] {
		if row["NAMESPACE"] == ns && row["NAME"] == "capi-unhealthy" {
			unhealthy = row
		}
	}
	if unhealthy == nil || !strings.HasPrefix(unhealthy["DESCRIPTION"], "Health check failed (UnhealthyNode): * Condition Ready on Node") {
		t.Errorf("get -A -o wide: want %s/capi-unhealthy with its lastOperation's description:\n%s", ns, r.stdout)
	}
	r = runPlugin(t, "", "get", "ma", "capi-unhealthy", "-n", ns, "--no-headers")
	if r.code != 0 || strings.Contains(r.stdout, "NAME") || !strings.HasPrefix(r.stdout, "capi-unhealthy ") || r.stderr != "" {
		t.Errorf("get ma capi-unhealthy --no-headers: want one row, no footnote: %s", r)
	}

	// -o name, json and yaml print the Machines as the API server returned them.
	r = runPlugin(t, "", "get", "machine/capi-running", "machine/ms-running", "-n", ns, "-o", "name")
	if diff := cmp.Diff("machine.cluster.x-k8s.io/capi-running\nmachine.machinestatus.io/ms-running\n", r.stdout); r.code != 0 || diff != "" {
		t.Errorf("get -o name (-want +got):\n%s\n%s", diff, r)
	}
	r = runPlugin(t, "", "get", "-n", ns, "-o", "json")
	list := &unstructured.UnstructuredList{}
	if err := json.Unmarshal([]byte(r.stdout), &list.Object); r.code != 0 || err != nil {
		t.Fatalf("get -o json: %v: %s", err, r)
	}
	items, _, _ := unstructured.NestedSlice(list.Object, "items")
	var kinds []string
	for _, it := range items {
		u := unstructured.Unstructured{Object: it.(map[string]any)}
		kinds = append(kinds, u.GetAPIVersion()+" "+u.GetName())
	}
	if diff := cmp.Diff([]string{
		"machinestatus.io/v1alpha1 ms-failed", "machinestatus.io/v1alpha1 ms-running",
		"cluster.x-k8s.io/v1beta2 capi-provisioning", "cluster.x-k8s.io/v1beta2 capi-running", "cluster.x-k8s.io/v1beta2 capi-unhealthy",
	}, kinds); list.GetKind() != "List" || diff != "" {
		t.Errorf("get -o json: kind %q (want List), items (-want +got):\n%s", list.GetKind(), diff)
	}
	r = runPlugin(t, "", "get", "ma/capi-unhealthy", "-n", ns, "-o", "yaml")
	one := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(r.stdout), &one.Object); r.code != 0 || err != nil {
		t.Fatalf("get -o yaml: %v: %s", err, r)
	}
	if one.GetKind() != "Machine" || one.GetAnnotations()[aggregate.LastOperationAnnotation] == "" {
		t.Errorf("get ma/NAME -o yaml: want the one Machine with its annotation, got kind %q annotations %v", one.GetKind(), one.GetAnnotations())
	}
}

// TestGetErrors: get's exit codes follow describe's.
func TestGetErrors(t *testing.T) {
	ns := newNamespace(t, "get-errors")
	for _, tt := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"get", "machine/nope", "-n", ns}, describe.ExitError, `machine "nope" not found`},
		{[]string{"get", "-n", ns, "-o", "table"}, describe.ExitUsage, `unknown output format "table"`},
		{[]string{"get", "machine/nope", "-A"}, describe.ExitUsage, "across all namespaces"},
		{[]string{"get", "pods"}, describe.ExitUsage, "not a Machine"},
		{[]string{"get", "-n", ns}, describe.ExitOK, "No Machines found in namespace " + ns},
	} {
		r := runPlugin(t, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.inStderr) {
			t.Errorf("%s: want exit %d and %q on stderr: %s", strings.Join(tt.args, " "), tt.code, tt.inStderr, r)
		}
	}
}

// TestGetWithoutWatchPermission: a user who may list Machines but not watch them gets the same
// tables: where the API server refuses the streamed list, get lists in pages of --chunk-size.
func TestGetWithoutWatchPermission(t *testing.T) {
	ns := newNamespace(t, "nowatch")
	createMachinestatusMachine(t, ns, "ms-b", nil, runningConditions()...)
	createMachinestatusMachine(t, ns, "ms-a", nil, failedConditions()...)
	createCAPIMachine(t, runningCAPIMachine(t, ns, "capi-a"))
	u, err := env.CP.AddUser("lister-" + ns)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "machine-lister"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"machinestatus.io", "cluster.x-k8s.io"}, Resources: []string{"machines"}, Verbs: []string{"get", "list"},
	}}}
	if err := env.CP.Grant(context.Background(), u.Name, ns, embedded.Roles{Roles: []*rbacv1.Role{role}}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, u.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	// The tables without AGE, which may tick between two runs.
	cells := func(r result) string {
		var out []string
		for _, tb := range parseTables(t, r.stdout) {
			out = append(out, strings.Join(tb.project("NAME", "CLUSTER", "PHASE", "READY", "LAST-OP", "NODE"), "\n"))
		}
		return strings.Join(out, "\n\n")
	}
	admin := runPlugin(t, "", "get", "-n", ns)
	want := "machine.machinestatus.io/ms-a||Failed|False|HealthCheck Failed|ms-a\n" +
		"machine.machinestatus.io/ms-b||Running|True|Create Successful|ms-b\n\n" +
		"machine.cluster.x-k8s.io/capi-a|prod-eu|Running|True|Create Successful*|ip-10-0-12-34.eu-west-1.compute.internal"
	if got := cells(admin); admin.code != 0 || got != want {
		t.Errorf("get as the admin: want\n%s\ngot %s", want, admin)
	}
	for _, args := range [][]string{{"get", "-n", ns}, {"get", "-n", ns, "--chunk-size=1"}} {
		if r := runPlugin(t, kubeconfig, args...); r.code != 0 || cells(r) != want {
			t.Errorf("%v as a user who may not watch: want the admin's tables\n%s\ngot %s", args, want, r)
		}
	}
	r := runPlugin(t, kubeconfig, "get", "-A")
	if r.code != describe.ExitError || !strings.Contains(r.stderr, "forbidden") {
		t.Errorf("get -A without the right to list every namespace: want the API server's refusal: %s", r)
	}
}
