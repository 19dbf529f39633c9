package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// hostile is a provider's condition message that tries to clear the screen, move the cursor,
// colour, set the window title, reverse the text and pass a Failed Machine off as Running; it
// ends with backslashes typed as text.
const hostile = "\x1b[2J\x1b[H\x1b[32m\x1b]0;owned\x07Phase: Running\u202e gninnuR\x00\x7f C:\\tmp\\x1b"

// hostileEscaped is hostile as every reader prints it, and as the manager quotes it.
const hostileEscaped = `\x1b[2J\x1b[H\x1b[32m\x1b]0;owned\x07Phase: Running\u202e gninnuR\x00\x7f C:\tmp\x1b`

// rawControl reports the first raw control character of out other than a line feed.
func rawControl(out string) (rune, bool) {
	for _, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
			return r, true
		}
	}
	return 0, false
}

// TestHostileTextIsCleaned: a provider's message with terminal escapes reaches the Machines'
// conditions; -o json prints it exactly, and what the manager derives from it (Ready's summary)
// holds it escaped; describe, get -o wide, the pool view and custom-columns print both escaped
// once: the provider's message escaped, the manager's summary as it is (never \\x1b).
func TestHostileTextIsCleaned(t *testing.T) {
	ns := newNamespace(t, "hostile")
	conds := failedConditions()
	conds[1].Message = hostile
	createMachinestatusMachine(t, ns, "ms-hostile", map[string]string{"machinestatus.io/pool": "a"}, conds...)
	m := runningCAPIMachine(t, ns, "capi-hostile")
	setCAPICondition(m, cond("InfrastructureReady", "False", "NotReady", hostile, time.Minute))
	createCAPIMachine(t, m)

	// -o json stays exact: the other writer's message as written; the manager's summary
	// quotes it escaped.
	r := runPlugin(t, "", "get", "msm/ms-hostile", "-n", ns, "-o", "json")
	var got v1alpha1.Machine
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("get -o json: %v: %s", err, r)
	}
	var exact bool
	var ready string
	for _, c := range got.Status.Conditions {
		exact = exact || c.Message == hostile
		if c.Type == v1alpha1.MachineReadyCondition {
			ready = c.Message
		}
	}
	if !exact {
		t.Errorf("-o json lost the exact message: %+v", got.Status.Conditions)
	}
	if !strings.Contains(ready, "NodeReady: "+hostileEscaped) || strings.ContainsRune(ready, '\n') {
		t.Fatalf("Ready's summary %q: want one line quoting %q", ready, hostileEscaped)
	}

	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"describe", "-n", ns}, []string{ready, "│       " + hostileEscaped}},
		{[]string{"get", "-n", ns, "-o", "wide", "--show-labels"}, nil},
		{[]string{"get", "-n", ns, "--group-by=pool", "--expand"}, nil},
		{[]string{"get", "msm", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,MESSAGE:.status.conditions[*].message"},
			[]string{"ms-hostile   " + ready + ",", "," + hostileEscaped + ","}},
	} {
		r := runPlugin(t, "", tt.args...)
		if r.code != 0 {
			t.Fatalf("%v failed: %s", tt.args, r)
		}
		if c, ok := rawControl(r.stdout); ok {
			t.Errorf("%v printed a raw %U:\n%q", tt.args, c, r.stdout)
		}
		if strings.Contains(r.stdout, `\\`) {
			t.Errorf("%v escaped a backslash (twice-escaped text):\n%s", tt.args, r.stdout)
		}
		for _, want := range tt.want {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: want %q in:\n%s", tt.args, want, r.stdout)
			}
		}
	}
}

// TestGetPrinters: kubectl's printers and flags through the plugin: jsonpath, go-template,
// custom-columns, --sort-by (kubectl's order: strings byte by byte), -L, --chunk-size, colour
// only when asked on a pipe. Printed Machines read exactly as kubectl get prints them.
func TestGetPrinters(t *testing.T) {
	ns := newNamespace(t, "printers")
	for _, name := range []string{"w-10", "w-2", "w-1"} {
		createMachinestatusMachine(t, ns, name, map[string]string{"machinestatus.io/pool": "pool-" + name}, runningConditions()...)
	}
	createMachinestatusMachine(t, ns, "w-failed", nil, failedConditions()...)
	columnsFile := filepath.Join(t.TempDir(), "columns")
	if err := os.WriteFile(columnsFile, []byte("NAME POOL\n.metadata.name .metadata.labels.machinestatus\\.io/pool\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "msm", "-n", ns, "-o", "jsonpath={.items[*].metadata.name}"}, "w-1 w-10 w-2 w-failed"},
		{[]string{"get", "msm", "-n", ns, "--sort-by=.metadata.name", "-o", "name"},
			"machine.machinestatus.io/w-1\nmachine.machinestatus.io/w-10\nmachine.machinestatus.io/w-2\nmachine.machinestatus.io/w-failed\n"},
		{[]string{"get", "msm", "-n", ns, "--sort-by=.metadata.labels.machinestatus\\.io/pool", "-o", "custom-columns-file=" + columnsFile},
			"NAME       POOL\nw-failed   <none>\nw-1        pool-w-1\nw-10       pool-w-10\nw-2        pool-w-2\n"},
		{[]string{"get", "msm", "w-2", "-n", ns, "-o", "go-template={{.status.phase}}"}, "Running"},
		{[]string{"get", "msm", "-n", ns, "--chunk-size=1", "-o", "custom-columns=NAME:.metadata.name,PHASE:.status.phase", "--sort-by={.status.phase}"},
			"NAME       PHASE\nw-failed   Failed\nw-1        Running\nw-10       Running\nw-2        Running\n"},
	} {
		r := runPlugin(t, "", tt.args...)
		if r.code != 0 || r.stdout != tt.want {
			t.Errorf("%v: want %q: %s", tt.args, tt.want, r)
		}
		theirs := runBinary(t, "", env.KubectlBin, append([]string{"get", "machines.machinestatus.io"}, tt.args[2:]...)...)
		if theirs.code != 0 || theirs.stdout != r.stdout {
			t.Errorf("%v: kubectl get prints otherwise: %s", tt.args, theirs)
		}
	}
	r := runPlugin(t, "", "get", "msm", "-n", ns, "--chunk-size=1", "--sort-by=.metadata.name", "-L", "machinestatus.io/pool")
	rows := parseTables(t, r.stdout)
	if r.code != 0 || len(rows) != 1 || strings.Join(rows[0].project("NAME", "POOL"), " ") != "w-1|pool-w-1 w-10|pool-w-10 w-2|pool-w-2 w-failed|" {
		t.Errorf("get --sort-by -L: %s", r)
	}
	if strings.Contains(r.stdout, "\x1b") {
		t.Errorf("colour on a pipe: %q", r.stdout)
	}
	r = runPlugin(t, "", "get", "msm", "w-failed", "-n", ns, "--color=always")
	if !strings.Contains(r.stdout, "\x1b[31mFailed\x1b[0m") {
		t.Errorf("--color=always: want Failed in red: %q", r.stdout)
	}
	r = runPlugin(t, "", "get", "msm", "-n", ns, "-o", "bogus")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown output format "bogus"`) {
		t.Errorf("-o bogus: %s", r)
	}
}

// TestCompletion: kubectl completes the plugin's arguments through kubectl_complete-machinestatus.
func TestCompletion(t *testing.T) {
	ns := newNamespace(t, "complete")
	createCAPIMachine(t, runningCAPIMachine(t, ns, "capi-a"))
	createMachinestatusMachine(t, ns, "ms-a", nil, runningConditions()...)
	r := runBinary(t, "", env.KubectlBin, "__complete", "machinestatus", "get", "-n", ns, "ma/")
	if r.code != 0 || !strings.Contains(r.stdout, "ma/capi-a\n") || strings.Contains(r.stdout, "ms-a") {
		t.Errorf("kubectl __complete machinestatus get ma/: %s", r)
	}
	r = runBinary(t, "", env.KubectlBin, "__complete", "machinestatus", "describe", "")
	if r.code != 0 || !strings.Contains(r.stdout, "cluster\n") || !strings.Contains(r.stdout, "machine\n") {
		t.Errorf("kubectl __complete machinestatus describe '': %s", r)
	}
	r = runCLI(t, "", "__complete", "get", "machine", "-n", ns, "")
	if r.code != 0 || !strings.Contains(r.stdout, "capi-a\n") || !strings.Contains(r.stdout, "ms-a\n") {
		t.Errorf("machinestatus __complete get machine: %s", r)
	}
	r = runCLI(t, "", "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "__start_machinestatus") {
		t.Errorf("completion bash: %s", r.stderr)
	}
}

// createUnstructured creates obj.
func createUnstructured(t *testing.T, obj map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	if err := env.Client.Create(context.Background(), u); err != nil {
		t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
}

// poolMachine is a running Cluster API Machine of MachineDeployment md and MachineSet ms.
func poolMachine(t *testing.T, ns, md, ms, name string) *clusterv1.Machine {
	m := runningCAPIMachine(t, ns, name)
	m.Labels = map[string]string{"cluster.x-k8s.io/cluster-name": "prod-eu", "cluster.x-k8s.io/deployment-name": md, "cluster.x-k8s.io/set-name": ms}
	return m
}

// ages matches the durations of a tree (IN-STEP, "in the last 30m").
var ages = regexp.MustCompile(`\b\d+[smhd](\d+[sm])?\b`)

// TestDescribeClusterTree: describe cluster/NAME and get --group-by=pool name the troubled pool
// and the reason: a rollout in one MachineDeployment, a remediation in another, with a Create
// failure of a Machine since gone that an Event still records.
func TestDescribeClusterTree(t *testing.T) {
	ns := newNamespace(t, "tree")
	createUnstructured(t, map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": "prod-eu"}, "spec": map[string]any{"paused": false}})
	for _, md := range []string{"md-0", "md-1"} {
		createUnstructured(t, map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment",
			"metadata": map[string]any{"namespace": ns, "name": md, "labels": map[string]any{"cluster.x-k8s.io/cluster-name": "prod-eu"}},
			"spec": map[string]any{"clusterName": "prod-eu", "replicas": int64(3),
				"selector": map[string]any{"matchLabels": map[string]any{"cluster.x-k8s.io/deployment-name": md}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"cluster.x-k8s.io/deployment-name": md}},
					"spec": map[string]any{"clusterName": "prod-eu", "bootstrap": map[string]any{"dataSecretName": "s"},
						"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "AWSMachineTemplate", "name": md}}}}})
	}
	createUnstructured(t, map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineHealthCheck",
		"metadata": map[string]any{"namespace": ns, "name": "md-1-mhc"},
		"spec": map[string]any{"clusterName": "prod-eu",
			"selector": map[string]any{"matchLabels": map[string]any{"cluster.x-k8s.io/deployment-name": "md-1"}},
			"checks": map[string]any{"nodeStartupTimeoutSeconds": int64(900),
				"unhealthyNodeConditions": []any{map[string]any{"type": "Ready", "status": "Unknown", "timeoutSeconds": int64(300)}}}}})

	// md-0 rolls out: one Machine of the new MachineSet up to date, two old ones not.
	for _, name := range []string{"md-0-old-a1", "md-0-old-a2"} {
		m := poolMachine(t, ns, "md-0", "md-0-old", name)
		setCAPICondition(m, cond("UpToDate", "False", clusterv1.MachineNotUpToDateReason, "* Version v1.36.3, v1.36.4 required", time.Minute))
		createCAPIMachine(t, m)
	}
	createCAPIMachine(t, poolMachine(t, ns, "md-0", "md-0-new", "md-0-new-b1"))
	// md-1 remediates: one Machine unhealthy and being deleted, two healthy.
	for _, name := range []string{"md-1-x-c1", "md-1-x-c2"} {
		createCAPIMachine(t, poolMachine(t, ns, "md-1", "md-1-x", name))
	}
	u := unhealthyCAPIMachine(t, ns, "md-1-x-bad")
	u.Labels = poolMachine(t, ns, "md-1", "md-1-x", "x").Labels
	u.Finalizers = []string{"test.machinestatus.io/keep"}
	deleteObject(t, createCAPIMachine(t, u))
	// A Machine of md-1 failed to be created and is gone; its Event relates it to md-1.
	now := time.Now().UTC().Truncate(time.Second)
	createUnstructured(t, map[string]any{"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":  map[string]any{"namespace": ns, "name": "md-1-x-gone.create"},
		"eventTime": now.Add(-5 * time.Minute).Format("2006-01-02T15:04:05.000000Z07:00"),
		"regarding": map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine", "namespace": ns, "name": "md-1-x-gone"},
		"related":   map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment", "namespace": ns, "name": "md-1"},
		"type":      "Warning", "reason": "CreateFailed", "action": "Observe", "reportingController": "machinestatus", "reportingInstance": "machinestatus-0",
		"note": "Create: InfrastructureReady is False (InstanceLaunchFailed): insufficient capacity"})

	r := runPlugin(t, "", "describe", "cluster/prod-eu", "-n", ns)
	if r.code != 0 {
		t.Fatalf("describe cluster: %s", r)
	}
	for _, want := range []string{
		"MachineDeployment/md-0", "3/3 Running · rollout 1/3 up to date",
		"MachineDeployment/md-1", "2/3 Running · 1 Deleting (remediation) · 1 Create Failed in the last 30m",
		"│  ├─ MachineSet/md-0-new", "│  └─ MachineSet/md-0-old", "2 Machines",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("describe cluster lacks %q:\n%s", want, r.stdout)
		}
	}
	checkDocsBlock(t, "cli-cluster", "$ kubectl machinestatus describe cluster/prod-eu -n fleet\n"+r.stdout)

	r = runPlugin(t, "", "get", "-n", ns, "--group-by=pool")
	if r.code != 0 || !strings.Contains(r.stdout, "Pool prod-eu/md-1") ||
		!strings.Contains(r.stdout, "2/3 Running · 1 Deleting (remediation) · 1 Create Failed in the last 30m") {
		t.Errorf("get --group-by=pool: %s", r)
	}

	// Why md-1-x-bad is stuck: the health check's deadline, from the MachineHealthCheck.
	r = runPlugin(t, "", "describe", "ma/md-1-x-bad", "-n", ns)
	for _, want := range []string{"Waiting For:    HealthCheckSucceeded UnhealthyNode", "MachineHealthCheck md-1-mhc: checks.unhealthyNodeConditions", "Hint:           a Node condition lasted past its timeout", "Events:"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("describe ma/md-1-x-bad lacks %q: %s", want, r)
		}
	}
}

// TestDescribeDrainDeadline: a Cluster API Machine draining says how long is left of
// spec.deletion.nodeDrainTimeoutSeconds since status.deletion.nodeDrainStartTime, and prints
// its Events.
func TestDescribeDrainDeadline(t *testing.T) {
	ns := newNamespace(t, "drain")
	m := deletingCAPIMachine(t, ns, "capi-draining")
	m.Spec.Deletion.NodeDrainTimeoutSeconds = ptr.To[int32](600)
	deleteObject(t, createCAPIMachine(t, m))
	r := runPlugin(t, "", "describe", "ma/capi-draining", "-n", ns)
	for _, want := range []string{
		"Waiting For:    Deleting DrainingNode: Drain not completed yet",
		"Deadline:       drain: 10m, ",
		" left (spec.deletion.nodeDrainTimeoutSeconds, from status.deletion.nodeDrainStartTime)",
		"Hint:           the drain waits for Pods to leave",
		"Events:         <none>",
	} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("describe lacks %q: %s", want, r)
		}
	}
}

// checkDocsBlock writes text (its durations normalized) into docs/cli.md's block name with
// CLI_WRITE_DOCS=1, else checks that the block holds it.
func checkDocsBlock(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join(env.Root, "docs", "cli.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- "+name+" begin (generated by test/cli with CLI_WRITE_DOCS=1) -->\n", "<!-- "+name+" end -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("docs/cli.md has no block %s", name)
	}
	block := "```\n" + text + "```\n"
	if os.Getenv("CLI_WRITE_DOCS") == "1" {
		out := string(b[:i+len(begin)]) + block + string(b[j:])
		if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	norm := func(s string) string { return ages.ReplaceAllString(s, "AGE") }
	if got := string(b[i+len(begin) : j]); norm(got) != norm(block) {
		t.Errorf("docs/cli.md's block %s differs from this run; if the change is right, run CLI_WRITE_DOCS=1 go test ./test/cli:\n--- committed:\n%s--- now:\n%s", name, got, block)
	}
}
