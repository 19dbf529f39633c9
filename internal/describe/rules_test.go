package describe

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kget "k8s.io/kubectl/pkg/cmd/get"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// hostile is a provider's message trying to clear the screen, move the cursor, colour, set
// the window title, reverse the text and pass for a Running Machine.
const hostile = "\x1b[2J\x1b[H\x1b[32m\x1b]0;pwned\x07Phase: Running\u202e\x00\xff"

// hostileEscaped is hostile as the CLI prints it.
const hostileEscaped = `\x1b[2J\x1b[H\x1b[32m\x1b]0;pwned\x07Phase: Running\u202e\x00\xff`

func TestTablesCleanOtherWritersText(t *testing.T) {
	now := getT0.Add(time.Hour)
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "w", CreationTimestamp: metav1.NewTime(getT0),
			Labels: map[string]string{"team": "a\x1b[31mb"}},
		Status: v1alpha1.MachineStatus{
			Phase: v1alpha1.MachinePhaseFailed,
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "IssueReported",
				Message: hostile, LastTransitionTime: metav1.NewTime(getT0)}},
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateFailed,
				Description: hostile, LastUpdated: metav1.NewTime(getT0)},
		},
	}
	tb := newTables(GetOptions{Now: now, Wide: true, LabelColumns: []string{"team"}, Color: true})
	if err := tb.add(m); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := tb.write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Colour codes are ours: red Failed phase and operation, yellow Ready; nothing else raw.
	rest := strings.NewReplacer("\x1b[31m", "", "\x1b[33m", "", "\x1b[0m", "").Replace(out)
	if strings.ContainsAny(rest, "\x1b\x00\u202e") || !strings.Contains(out, hostileEscaped) || !strings.Contains(out, `a\x1b[31mb`) {
		t.Errorf("raw control characters or no escaped text in:\n%q", out)
	}
	if !strings.Contains(out, "\x1b[31mFailed\x1b[0m") {
		t.Errorf("the Failed phase is not red:\n%q", out)
	}
}

func TestWriteTextCleansOtherWritersText(t *testing.T) {
	d := Description{
		Machine:    ObjectReference{APIVersion: "machinestatus.io/v1alpha1", Kind: "Machine", Namespace: "fleet", Name: "w"},
		Phase:      v1alpha1.MachinePhaseFailed,
		Conditions: []Condition{{Condition: metav1.Condition{Type: "Ready", Status: "False", Reason: "IssueReported", Message: hostile + "\nsecond line"}, Problem: true}},
		LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateFailed,
			Description: hostile},
	}
	var b bytes.Buffer
	writeText(&b, []Description{d}, getT0)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x00\u202e\x07") || strings.Count(out, hostileEscaped) != 2 || !strings.Contains(out, "│    second line") && !strings.Contains(out, "     second line") {
		t.Errorf("describe's text:\n%s", out)
	}
}

// TestSortRows: --sort-by orders a table's rows by its objects as kubectl get does: strings
// byte by byte (m-10 before m-2), numbers by value, a missing value first; a JSONPath kubectl
// cannot parse is a usage error, one that no object holds kubectl's error.
func TestSortRows(t *testing.T) {
	sorted := func(expr string, objs ...map[string]any) ([]string, error) {
		var rows [][]cell
		var os []runtime.Object
		for i, o := range objs {
			rows = append(rows, []cell{{text: strconv.Itoa(i)}})
			os = append(os, &unstructured.Unstructured{Object: o})
		}
		err := sortRows(rows, os, expr)
		var got []string
		for _, r := range rows {
			got = append(got, r[0].text)
		}
		return got, err
	}
	named := func(n string) map[string]any { return map[string]any{"metadata": map[string]any{"name": n}} }
	got, err := sorted("metadata.name", named("m-2"), named("m-10"), named("a"), named("m-1"))
	if diff := cmp.Diff([]string{"2", "3", "1", "0"}, got); err != nil || diff != "" {
		t.Errorf("by name (-want +got), %v:\n%s", err, diff)
	}
	n := func(v any) map[string]any { return map[string]any{"spec": map[string]any{"n": v}} }
	got, err = sorted("{.spec.n}", n(int64(10)), n(int64(2)), map[string]any{}, n(int64(-1)))
	if diff := cmp.Diff([]string{"2", "3", "1", "0"}, got); err != nil || diff != "" {
		t.Errorf("by number (-want +got), %v:\n%s", err, diff)
	}
	if _, err := sorted(".spec.absent", n(int64(1)), n(int64(2))); err == nil || !strings.Contains(err.Error(), "couldn't find any field") {
		t.Errorf("a field no object holds: want kubectl's error, got %v", err)
	}
	var usage *UsageError
	if err := checkSortBy("{.bad"); !errors.As(err, &usage) {
		t.Errorf("checkSortBy({.bad) = %v, want a usage error", err)
	}
	if err := checkSortBy(".status.phase"); err != nil {
		t.Errorf("checkSortBy(.status.phase) = %v", err)
	}
}

// TestCustomColumnsClean: -o custom-columns is kubectl's printer, fed Machines whose strings
// (keys too) are cleaned: a hostile value prints escaped, in kubectl's layout.
func TestCustomColumnsClean(t *testing.T) {
	p, err := (&kget.CustomColumnsPrintFlags{}).ToPrinter("custom-columns=NAME:.metadata.name,PHASE:.status.phase,LABELS:.metadata.labels,NODE:.status.nodeRef.name")
	if err != nil {
		t.Fatal(err)
	}
	list := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{
		{Object: map[string]any{"metadata": map[string]any{"name": "w-1"}, "status": map[string]any{"phase": "Running", "nodeRef": map[string]any{"name": "n1"}}}},
		{Object: map[string]any{"metadata": map[string]any{"name": "w-2", "labels": map[string]any{"k\x07": "v"}}, "status": map[string]any{"phase": "Fail\x1b[2Jed\tx"}}},
	}}
	var b bytes.Buffer
	if err := cleanColumns(p).PrintObj(list, &b); err != nil {
		t.Fatal(err)
	}
	want := "NAME   PHASE              LABELS         NODE\n" +
		"w-1    Running            <none>         n1\n" +
		"w-2    Fail\\x1b[2Jed\\tx   map[k\\x07:v]   <none>\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("custom columns (-want +got):\n%s", diff)
	}
	if got := list.Items[1].Object["status"].(map[string]any)["phase"]; got != "Fail\x1b[2Jed\tx" {
		t.Errorf("the Machine itself was changed: %q", got)
	}
}

func TestPoolSummary(t *testing.T) {
	ls := []machineLine{
		{name: "a", phase: v1alpha1.MachinePhaseRunning, running: true, upToDate: "True"},
		{name: "b", phase: v1alpha1.MachinePhaseRunning, running: true, upToDate: "False"},
		{name: "c", phase: v1alpha1.MachinePhaseRunning, running: true, upToDate: "False"},
		{name: "d", phase: v1alpha1.MachinePhaseDeleting, deleting: true, deletingCause: "remediation"},
		{name: "e", phase: v1alpha1.MachinePhaseProvisioning},
	}
	got := poolSummary(ls, 3, []failureCount{{op: "Create", machines: []string{"x", "y"}}}, 30*time.Minute)
	want := cell{text: "3/3 Running · rollout 1/5 up to date · 1 Deleting (remediation) · 1 Provisioning · 2 Create Failed in the last 30m", style: bad}
	if got != want {
		t.Errorf("poolSummary = %+v, want %+v", got, want)
	}
	if got := poolSummary(ls[:1], 0, nil, time.Hour); got != (cell{text: "1/1 Running", style: good}) {
		t.Errorf("a healthy pool: %+v", got)
	}
}

func TestMachineNodesGroupLikeMachines(t *testing.T) {
	now := getT0.Add(time.Hour)
	ls := []machineLine{
		{name: "w-1", phase: v1alpha1.MachinePhaseRunning, running: true, opType: "Create", opState: "Successful", since: getT0},
		{name: "w-2", phase: v1alpha1.MachinePhaseFailed, failed: true, opType: "HealthCheck", opState: "Failed", since: getT0.Add(50 * time.Minute),
			problem: "NodeHealthy NodeUnhealthy: kubelet down", problemKey: "NodeHealthy NodeUnhealthy"},
		{name: "w-3", phase: v1alpha1.MachinePhaseRunning, running: true, opType: "Create", opState: "Successful", since: getT0.Add(30 * time.Minute)},
	}
	render := func(expand bool) string {
		var b bytes.Buffer
		root := &treeNode{name: "Pool a", children: machineNodes(ls, expand, now)}
		if err := writeTree([]*treeNode{root}).write(&b, false, false); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := `NAME            PHASE     LAST-OP              IN-STEP   DETAILS
Pool a
├─ w-2          Failed    HealthCheck Failed   10m       NodeHealthy NodeUnhealthy: kubelet down
└─ 2 Machines   Running   Create Successful    60m
`
	if diff := cmp.Diff(want, render(false)); diff != "" {
		t.Errorf("grouped (-want +got):\n%s", diff)
	}
	if got := render(true); !strings.Contains(got, "├─ w-1 ") || !strings.Contains(got, "└─ w-3 ") {
		t.Errorf("expanded:\n%s", got)
	}
}

func TestGroupKeyAndCheck(t *testing.T) {
	l := machineLine{namespace: "fleet", cluster: "prod", pool: "md-0", owner: "MachineSet/md-0-x"}
	for _, tt := range []struct{ by, key, title string }{
		{"pool", "fleet/pool/prod/md-0", "Pool prod/md-0"},
		{"cluster", "fleet/cluster/prod/prod", "Cluster prod"},
		{"owner", "fleet/owner/prod/MachineSet/md-0-x", "Owner MachineSet/md-0-x"},
		{"label=team", "fleet/label/prod/a", "team=a"},
	} {
		key, title := groupKey(l, tt.by, map[string]string{"team": "a"})
		if key != tt.key || title != tt.title {
			t.Errorf("%s: %q %q, want %q %q", tt.by, key, title, tt.key, tt.title)
		}
		if err := checkGroupBy(tt.by); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"pools", "label", "label=", "pool=x"} {
		if checkGroupBy(bad) == nil {
			t.Errorf("%q: want a usage error", bad)
		}
	}
}

func TestPoolEventsRule(t *testing.T) {
	pe := newPoolEvents()
	pe.live["fleet/md-0-abc-live1"] = "K-live"
	pe.pools["fleet/md-0"] = "K-md0"
	pe.pools["fleet/md-0-abc"] = "K-ms"
	pe.pools["fleet/md-1"] = "K-md1"
	now := getT0
	ev := func(name, related, reason string, ago time.Duration) eventRecord {
		return eventRecord{namespace: "fleet", name: name, relatedName: related, typ: "Warning", reason: reason, last: now.Add(-ago)}
	}
	got := pe.failures([]eventRecord{
		ev("md-0-abc-live1", "", "CreateFailed", time.Minute),      // a live Machine: its pool
		ev("gone-1", "md-1", "CreateFailed", time.Minute),          // gone, related names the pool
		ev("md-0-abc-gone2", "", "HealthCheckFailed", time.Minute), // gone, longest prefix: the MachineSet
		ev("md-0-zzz-gone3", "", "CreateFailed", time.Minute),      // gone, prefix md-0-
		ev("md-0-zzz-gone3", "", "CreateFailed", 2*time.Minute),    // the same Machine again: counted once
		ev("md-1-old", "", "CreateFailed", 2*time.Hour),            // too old
		ev("md-1-x", "", "MachineRunning", time.Minute),            // not a failure
		ev("other-x", "", "CreateFailed", time.Minute),             // no pool
	}, now.Add(-30*time.Minute))
	want := map[string][]failureCount{
		"K-live": {{op: "Create", machines: []string{"md-0-abc-live1"}}},
		"K-md1":  {{op: "Create", machines: []string{"gone-1"}}},
		"K-ms":   {{op: "HealthCheck", machines: []string{"md-0-abc-gone2"}}},
		"K-md0":  {{op: "Create", machines: []string{"md-0-zzz-gone3"}}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(failureCount{})); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

func TestDeadlines(t *testing.T) {
	now := getT0.Add(20 * time.Minute)
	ms := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(getT0)},
		Spec:       v1alpha1.MachineSpec{HealthCheck: &v1alpha1.MachineHealthCheck{NodeStartupTimeoutSeconds: ptr.To[int32](900)}},
	}
	d := Description{CreationTimestamp: ms.CreationTimestamp, Conditions: []Condition{
		{Condition: metav1.Condition{Type: "InfrastructureReady", Status: "True", Reason: "InfrastructureProvisioned", LastTransitionTime: metav1.NewTime(getT0.Add(10 * time.Minute))}},
		{Condition: metav1.Condition{Type: "NodeReady", Status: "Unknown", Reason: "NodeDoesNotExist", Message: "no Node"}, Problem: true},
	}, LastOperation: &v1alpha1.LastOperation{Type: "Create", State: "Processing", LastUpdated: metav1.NewTime(getT0)}}
	s := stuckOf(Machine{Machinestatus: ms}, d, &machineContexts{})
	var b strings.Builder
	writeWaiting(&b, s, now)
	want := `Waiting For:    NodeReady NodeDoesNotExist: no Node (operation started 20m ago)
Deadline:       node startup: 15m, 5m left (spec.healthCheck.nodeStartupTimeoutSeconds, from InfrastructureReady's lastTransitionTime)
Hint:           no Node has this Machine's providerID yet: check that the instance booted and the kubelet can reach the API server
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("machinestatus Machine (-want +got):\n%s", diff)
	}

	// Before InfrastructureReady is True the controller has not started the timer.
	d.Conditions[0].Status, d.Conditions[0].Reason = "False", "InfrastructureNotReady"
	b.Reset()
	writeWaiting(&b, stuckOf(Machine{Machinestatus: ms}, d, &machineContexts{}), now)
	if want := "Deadline:       node startup: 15m (spec.healthCheck.nodeStartupTimeoutSeconds, not started: it counts from InfrastructureReady turning True)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("machinestatus Machine before InfrastructureReady:\n%s\nwant the line %q", b.String(), want)
	}

	capi := &clusterv1.Machine{Spec: clusterv1.MachineSpec{Deletion: clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](600)}},
		Status: clusterv1.MachineStatus{Deletion: &clusterv1.MachineDeletionStatus{NodeDrainStartTime: metav1.NewTime(getT0.Add(5 * time.Minute))}}}
	d = Description{Conditions: []Condition{{Condition: metav1.Condition{Type: "Deleting", Status: "True", Reason: "DrainingNode", Message: "Drain not completed yet"}, Problem: true}}}
	b.Reset()
	writeWaiting(&b, stuckOf(Machine{ClusterAPI: capi}, d, &machineContexts{}), now)
	want = `Waiting For:    Deleting DrainingNode: Drain not completed yet
Deadline:       drain: 10m, passed 5m ago (spec.deletion.nodeDrainTimeoutSeconds, from status.deletion.nodeDrainStartTime)
Hint:           the drain waits for Pods to leave: kubectl get pods -A --field-selector spec.nodeName=NODE; a PodDisruptionBudget often blocks an eviction
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Cluster API drain (-want +got):\n%s", diff)
	}
}

func TestHintsAreClean(t *testing.T) {
	for reason, h := range hints {
		if clean(h) != h || h == "" {
			t.Errorf("hint of %s is not plain text: %q", reason, h)
		}
	}
}
