package bench

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiconditions "sigs.k8s.io/cluster-api/util/conditions"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// The benchmark names are read by cmd/benchtable: BenchmarkNewSummaryCondition/<library>/<case>
// side by side; the others (BenchmarkSummarize, BenchmarkClusterAPIMachineStatus) alone.

// A library summarizes a case as a controller calls it on each reconcile, the options built in
// the call.
type library struct {
	name      string
	summarize func(Case) (*metav1.Condition, error)
}

var libraries = []library{
	{"machinestatus", machinestatus},
	{"clusterapi", clusterAPI},
}

func machinestatus(c Case) (*metav1.Condition, error) {
	return conditions.NewSummaryCondition(c.Object, Target,
		conditions.ForConditionTypes(c.Scope),
		conditions.NegativePolarityConditionTypes(c.Negative))
}

func clusterAPI(c Case) (*metav1.Condition, error) {
	return capiconditions.NewSummaryCondition(c.Object, Target,
		capiconditions.ForConditionTypes(c.Scope),
		capiconditions.NegativePolarityConditionTypes(c.Negative))
}

// now is the time given to Summarize and ClusterAPIMachineStatus: after every transition of
// the inputs, so that nothing is in the future.
var now = created.Add(time.Hour)

func BenchmarkNewSummaryCondition(b *testing.B) {
	// Case by case, the libraries back to back: the host's speed drifts, so the samples of a
	// case are taken seconds apart, not a whole pass apart.
	for _, c := range Cases() {
		for _, lib := range libraries {
			b.Run(lib.name+"/"+c.Name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := lib.summarize(c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	b.Run("RunningMachine", func(b *testing.B) {
		m := RunningMachine()
		b.ReportAllocs()
		for b.Loop() {
			if aggregate.Summarize(m, now) {
				b.Fatal("a steady Machine changed")
			}
		}
	})
}

func BenchmarkClusterAPIMachineStatus(b *testing.B) {
	b.Run("RunningMachine", func(b *testing.B) {
		m, previous := RunningClusterAPIMachine()
		b.ReportAllocs()
		for b.Loop() {
			if phase, _ := aggregate.ClusterAPIMachineStatus(m, previous, false, now); phase != v1alpha1.MachinePhaseRunning {
				b.Fatalf("phase %s, want Running", phase)
			}
		}
	})
}

// verdict maps the summary reasons of both libraries to what they say; Cluster API's three
// (util/conditions' defaults) say less than machinestatus' seven.
var verdict = map[string]string{
	conditions.NoIssuesReportedReason:        "no issues",
	conditions.IssueReportedReason:           "issues",
	conditions.MultipleIssuesReportedReason:  "issues",
	conditions.UnknownReportedReason:         "unknown",
	conditions.NotYetReportedReason:          "unknown",
	conditions.MultipleUnknownReportedReason: "unknown",
	"InfoReported":                           "no issues",
	"IssuesReported":                         "issues",
}

// TestSameVerdict checks that the benchmarks compare like with like: on every case both
// libraries reach the same status for the same reason (their reasons and messages are worded
// differently).
func TestSameVerdict(t *testing.T) {
	for _, c := range Cases() {
		got, err := machinestatus(c)
		if err != nil {
			t.Fatalf("%s: machinestatus: %v", c.Name, err)
		}
		want, err := clusterAPI(c)
		if err != nil {
			t.Fatalf("%s: clusterapi: %v", c.Name, err)
		}
		if got.Status != want.Status || verdict[got.Reason] == "" || verdict[got.Reason] != verdict[want.Reason] {
			t.Errorf("%s: machinestatus says %s/%s (%s), Cluster API says %s/%s (%s)",
				c.Name, got.Status, got.Reason, got.Message, want.Status, want.Reason, want.Message)
		}
	}
}

// TestRunningClusterAPIMachineIsSteady checks that the ClusterAPIMachineStatus benchmark
// measures a caller's steady state: the previous lastOperation comes back unchanged.
func TestRunningClusterAPIMachineIsSteady(t *testing.T) {
	m, previous := RunningClusterAPIMachine()
	phase, op := aggregate.ClusterAPIMachineStatus(m, previous, false, now)
	if phase != v1alpha1.MachinePhaseRunning || op.Type != previous.Type || op.State != previous.State ||
		op.Description != previous.Description || !op.LastUpdated.Equal(&previous.LastUpdated) {
		t.Fatalf("ClusterAPIMachineStatus() = %s, %+v; want Running, %+v", phase, op, previous)
	}
}

// TestRunningMachineIsSteady checks that the Summarize benchmark measures the steady state it
// claims to: nothing to change.
func TestRunningMachineIsSteady(t *testing.T) {
	m := RunningMachine()
	if aggregate.Summarize(m, now) {
		t.Fatalf("Summarize changed the steady Machine: %+v", m.Status)
	}
}
