package bench

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiconditions "sigs.k8s.io/cluster-api/util/conditions"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The benchmark names are read by cmd/benchtable: BenchmarkNewSummaryCondition/<library>/<case>
// side by side; the others (BenchmarkSummarize, BenchmarkClusterAPIMachineStatus) alone.

func ours(c Case) (*metav1.Condition, error) {
	return aggregate.NewSummaryCondition(c.Object, Target,
		aggregate.ForConditionTypes(c.Scope...),
		aggregate.NegativePolarityConditionTypes(c.Negative...))
}

func clusterAPI(c Case) (*metav1.Condition, error) {
	return capiconditions.NewSummaryCondition(c.Object, Target,
		capiconditions.ForConditionTypes(c.Scope),
		capiconditions.NegativePolarityConditionTypes(c.Negative))
}

func BenchmarkNewSummaryCondition(b *testing.B) {
	libraries := []struct {
		name      string
		summarize func(Case) (*metav1.Condition, error)
	}{
		{"machinestatus", ours},
		{"clusterapi", clusterAPI},
	}
	// Case by case, the two libraries back to back: the host's speed drifts, so the two samples
	// of a case are taken seconds apart, not a whole pass apart.
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

// TestSameVerdict checks that the benchmarks compare like with like: on every case both
// libraries reach the same status (their reasons and messages are worded differently).
func TestSameVerdict(t *testing.T) {
	for _, c := range Cases() {
		got, err := ours(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := clusterAPI(c)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != want.Status {
			t.Errorf("%s: machinestatus says %s (%s), Cluster API says %s (%s)", c.Name, got.Status, got.Message, want.Status, want.Message)
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
