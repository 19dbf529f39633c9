package controllers

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestReporterPhaseGauge(t *testing.T) {
	ours := reporter{api: "machinestatus.io", apiVersion: "machinestatus.io/v1alpha1", recorder: events.NewFakeRecorder(100)}
	capi := reporter{api: "cluster.x-k8s.io", apiVersion: "cluster.x-k8s.io/v1beta2", recorder: events.NewFakeRecorder(100)}
	gauge := func(api, phase string) float64 {
		return testutil.ToFloat64(machinesMetric.WithLabelValues(api, phase))
	}
	r0, f0, c0 := gauge("machinestatus.io", "Running"), gauge("machinestatus.io", "Failed"), gauge("cluster.x-k8s.io", "Running")
	a, b := machine("t", "a"), machine("t", "b")
	seen := baseline{phaseKnown: true}
	ours.report(observation{m: a, phase: v1alpha1.MachinePhaseRunning}, seen)
	ours.report(observation{m: b, phase: v1alpha1.MachinePhaseRunning}, seen)
	ours.report(observation{m: a, phase: v1alpha1.MachinePhaseRunning}, seen) // unchanged: counted once
	capi.report(observation{m: a, phase: v1alpha1.MachinePhaseRunning}, seen) // the same name in the other API: counted apart
	if got, gotCAPI := gauge("machinestatus.io", "Running")-r0, gauge("cluster.x-k8s.io", "Running")-c0; got != 2 || gotCAPI != 1 {
		t.Fatalf("Running = %v (machinestatus.io), %v (cluster.x-k8s.io); want 2 and 1", got, gotCAPI)
	}
	ours.report(observation{m: a, phase: v1alpha1.MachinePhaseFailed}, seen)
	ours.gone(types.NamespacedName{Namespace: "t", Name: "b"}, time.Now(), true)
	if r, f := gauge("machinestatus.io", "Running")-r0, gauge("machinestatus.io", "Failed")-f0; r != 0 || f != 1 {
		t.Fatalf("Running = %v, Failed = %v; want 0 and 1", r, f)
	}
}

// TestReporterSeries: one info series and one timestamp series per Machine, replaced when a
// label changes, removed when the Machine goes.
func TestReporterSeries(t *testing.T) {
	r := reporter{api: "cluster.x-k8s.io", apiVersion: "cluster.x-k8s.io/v1beta2", recorder: events.NewFakeRecorder(100)}
	m := machine("series", "m1")
	op := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful,
		LastUpdated: metav1.Unix(1767225600, 0)}
	r.report(observation{m: m, cluster: "c1", pool: "md-0", phase: v1alpha1.MachinePhaseRunning, op: op, upToDate: "true"}, baseline{op: op})
	want := `
# HELP machinestatus_machine_info One series per Machine reconciled by this manager, value 1: its cluster, pool, phase, lastOperation type and state, and whether Cluster API reports it up to date (up_to_date true, false, or empty when unknown).
# TYPE machinestatus_machine_info gauge
machinestatus_machine_info{api_group="cluster.x-k8s.io",cluster="c1",name="m1",namespace="series",operation_state="Successful",operation_type="Create",phase="Running",pool="md-0",up_to_date="true"} 1
# HELP machinestatus_machine_last_operation_timestamp_seconds When the Machine's lastOperation last changed type or state (its lastUpdated), in Unix seconds; time() minus it is how long the Machine has been in its operation's state.
# TYPE machinestatus_machine_last_operation_timestamp_seconds gauge
machinestatus_machine_last_operation_timestamp_seconds{api_group="cluster.x-k8s.io",cluster="c1",name="m1",namespace="series",pool="md-0"} 1.7672256e+09
`
	names := []string{"machinestatus_machine_info", "machinestatus_machine_last_operation_timestamp_seconds"}
	if err := testutil.CollectAndCompare(onlyNamespace("series"), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	r.report(observation{m: m, cluster: "c1", pool: "md-0", phase: v1alpha1.MachinePhaseRunning, op: op, upToDate: "false"}, baseline{})
	want = strings.Replace(want, `up_to_date="true"`, `up_to_date="false"`, 1)
	if err := testutil.CollectAndCompare(onlyNamespace("series"), strings.NewReader(want), names...); err != nil {
		t.Fatalf("up_to_date changed: %v", err)
	}
	r.gone(types.NamespacedName{Namespace: "series", Name: "m1"}, time.Now(), true)
	if n := testutil.CollectAndCount(onlyNamespace("series"), names...); n != 0 {
		t.Fatalf("gone: %d series left, want 0", n)
	}
}

// TestReporterDurations: a result is observed once, from the start of the Processing state it
// ends; a Delete seen in progress ends when the Machine is gone.
func TestReporterDurations(t *testing.T) {
	rec := events.NewFakeRecorder(100)
	r := reporter{api: "cluster.x-k8s.io", apiVersion: "cluster.x-k8s.io/v1beta2", recorder: rec}
	m := machine("durations", "m1")
	m.CreationTimestamp = metav1.Unix(1000, 0)
	at := func(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState, sec int64) *v1alpha1.LastOperation {
		return &v1alpha1.LastOperation{Type: t, State: s, LastUpdated: metav1.Unix(sec, 0)}
	}
	const create, hc, del = v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationDelete
	const processing, ok, failed = v1alpha1.MachineOperationStateProcessing, v1alpha1.MachineOperationStateSuccessful, v1alpha1.MachineOperationStateFailed
	steps := []*v1alpha1.LastOperation{
		at(create, processing, 1000), at(create, ok, 1100), at(create, ok, 1100), // 100 s, once
		at(hc, processing, 2000), at(hc, failed, 2040), at(hc, ok, 2050), // 40 s; Failed → Successful not timed
	}
	for _, op := range steps {
		r.report(observation{m: m, cluster: "c1", pool: "md-0", phase: v1alpha1.MachinePhaseRunning, op: op}, baseline{phaseKnown: true})
	}
	m.DeletionTimestamp = &metav1.Time{Time: time.Unix(3000, 0)}
	r.report(observation{m: m, cluster: "c1", pool: "md-0", phase: v1alpha1.MachinePhaseDeleting, op: at(del, processing, 3005)}, baseline{})
	r.gone(types.NamespacedName{Namespace: "durations", Name: "m1"}, time.Unix(3030, 0), true)
	// Deleted unseen (the object went before its deletionTimestamp was observed): a result,
	// no duration. Out of the selection: nothing.
	for _, name := range []string{"unseen", "moved"} {
		r.report(observation{m: machine("durations", name), cluster: "c2", pool: "md-0", phase: v1alpha1.MachinePhaseRunning,
			op: at(create, ok, 1100)}, baseline{op: at(create, ok, 1100)})
	}
	r.gone(types.NamespacedName{Namespace: "durations", Name: "unseen"}, time.Unix(3030, 0), true)
	r.gone(types.NamespacedName{Namespace: "durations", Name: "moved"}, time.Unix(3030, 0), false)
	if h := histogram(t, "c2", "md-0", del, ok); h.count != 0 {
		t.Errorf("a deletion not seen in progress was timed: %+v", h)
	}

	for _, c := range []struct {
		typ   v1alpha1.MachineOperationType
		state v1alpha1.MachineOperationState
		count uint64
		sum   float64
	}{{create, ok, 1, 100}, {hc, failed, 1, 40}, {hc, ok, 0, 0}, {del, ok, 1, 30}} {
		h := histogram(t, "c1", "md-0", c.typ, c.state)
		if h.count != c.count || h.sum != c.sum {
			t.Errorf("%s %s: %d observations summing %v s, want %d summing %v", c.typ, c.state, h.count, h.sum, c.count, c.sum)
		}
	}
	var got []string
	for len(rec.Events) > 0 {
		got = append(got, <-rec.Events)
	}
	want := []string{"Normal CreateSucceeded Create succeeded", "Warning HealthCheckFailed HealthCheck: ",
		"Normal HealthCheckSucceeded HealthCheck succeeded", "Normal DeleteSucceeded Delete succeeded",
		"Normal DeleteSucceeded Delete succeeded"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func machine(namespace, name string) *v1alpha1.Machine {
	return &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}
