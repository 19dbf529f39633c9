package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiconditions "sigs.k8s.io/cluster-api/util/conditions"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The benchmark names are read by cmd/benchtable: BenchmarkNewSummaryCondition/<library>/<case>
// side by side; the others (BenchmarkSummarize, BenchmarkClusterAPIMachineStatus) alone.

// A library summarizes a case as a controller calls it on each reconcile: prepare is what the
// controller does once (nothing, or building a Summarizer), its result what it does per call.
type library struct {
	name    string
	prepare func(Case) (summarize func() (*metav1.Condition, error), err error)
}

var libraries = []library{
	{"machinestatus", perCall(ours)},
	{"machinestatus-summarizer", summarizer},
	{"clusterapi", perCall(clusterAPI)},
}

func perCall(f func(Case) (*metav1.Condition, error)) func(Case) (func() (*metav1.Condition, error), error) {
	return func(c Case) (func() (*metav1.Condition, error), error) {
		return func() (*metav1.Condition, error) { return f(c) }, nil
	}
}

// ours builds the options in the call, as Cluster API's callers do.
func ours(c Case) (*metav1.Condition, error) {
	return aggregate.NewSummaryCondition(c.Object, Target,
		aggregate.ForConditionTypes(c.Scope...),
		aggregate.NegativePolarityConditionTypes(c.Negative...))
}

// summarizer checks the options once, in a Summarizer, and summarizes with it on each call.
func summarizer(c Case) (func() (*metav1.Condition, error), error) {
	s, err := aggregate.NewSummarizer(Target,
		aggregate.ForConditionTypes(c.Scope...),
		aggregate.NegativePolarityConditionTypes(c.Negative...))
	if err != nil {
		return nil, err
	}
	return func() (*metav1.Condition, error) { return s.NewCondition(c.Object), nil }, nil
}

func clusterAPI(c Case) (*metav1.Condition, error) {
	return capiconditions.NewSummaryCondition(c.Object, Target,
		capiconditions.ForConditionTypes(c.Scope),
		capiconditions.NegativePolarityConditionTypes(c.Negative))
}

func BenchmarkNewSummaryCondition(b *testing.B) {
	// Case by case, the libraries back to back: the host's speed drifts, so the samples of a
	// case are taken seconds apart, not a whole pass apart.
	for _, c := range Cases() {
		for _, lib := range libraries {
			b.Run(lib.name+"/"+c.Name, func(b *testing.B) {
				summarize, err := lib.prepare(c)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := summarize(); err != nil {
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
			if aggregate.Summarize(m) {
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
			if phase, _ := aggregate.ClusterAPIMachineStatus(m, previous); phase != v1alpha1.MachinePhaseRunning {
				b.Fatalf("phase %s, want Running", phase)
			}
		}
	})
}

// TestSameVerdict checks that the benchmarks compare like with like: on every case every
// library reaches the same status (Cluster API's reasons and messages are worded differently),
// and a Summarizer gives exactly what NewSummaryCondition gives.
func TestSameVerdict(t *testing.T) {
	for _, c := range Cases() {
		results := map[string]*metav1.Condition{}
		for _, lib := range libraries {
			summarize, err := lib.prepare(c)
			if err != nil {
				t.Fatalf("%s: %s: %v", c.Name, lib.name, err)
			}
			if results[lib.name], err = summarize(); err != nil {
				t.Fatalf("%s: %s: %v", c.Name, lib.name, err)
			}
		}
		got, want := results["machinestatus"], results["clusterapi"]
		if got.Status != want.Status {
			t.Errorf("%s: machinestatus says %s (%s), Cluster API says %s (%s)", c.Name, got.Status, got.Message, want.Status, want.Message)
		}
		if diff := cmp.Diff(got, results["machinestatus-summarizer"]); diff != "" {
			t.Errorf("%s: the Summarizer differs from NewSummaryCondition (-NewSummaryCondition +Summarizer):\n%s", c.Name, diff)
		}
	}
}

// TestRunningClusterAPIMachineIsSteady checks that the ClusterAPIMachineStatus benchmark
// measures a caller's steady state: the previous lastOperation comes back unchanged.
func TestRunningClusterAPIMachineIsSteady(t *testing.T) {
	m, previous := RunningClusterAPIMachine()
	phase, op := aggregate.ClusterAPIMachineStatus(m, previous)
	if phase != v1alpha1.MachinePhaseRunning || op.Type != previous.Type || op.State != previous.State ||
		op.Description != previous.Description || !op.LastUpdated.Equal(&previous.LastUpdated) {
		t.Fatalf("ClusterAPIMachineStatus() = %s, %+v; want Running, %+v", phase, op, previous)
	}
}

// TestRunningMachineIsSteady checks that the Summarize benchmark measures the steady state it
// claims to: nothing to change.
func TestRunningMachineIsSteady(t *testing.T) {
	m := RunningMachine()
	if aggregate.Summarize(m) {
		t.Fatalf("Summarize changed the steady Machine: %+v", m.Status)
	}
}
