package describe

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

var t0 = metav1.NewTime(time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC))

func cond(t, status, reason string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, LastTransitionTime: t0}
}

// problemRows returns "Type=Status problem/ok polarity" per condition, in order.
func problemRows(cs []Condition) []string {
	var out []string
	for _, c := range cs {
		state := "ok"
		if c.Problem {
			state = "problem"
		}
		out = append(out, c.Type+"="+string(c.Status)+" "+state+" "+string(c.Polarity))
	}
	return out
}

func TestDescribeMachinestatusMachine(t *testing.T) {
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "worker-0"},
		Spec: v1alpha1.MachineSpec{ReadinessGates: []v1alpha1.MachineReadinessGate{
			{ConditionType: "example.com/Degraded", Polarity: v1alpha1.NegativeConditionPolarity},
			{ConditionType: "example.com/Synced"},
		}},
		Status: v1alpha1.MachineStatus{
			Phase: v1alpha1.MachinePhaseFailed,
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationHealthCheck,
				State: v1alpha1.MachineOperationStateFailed, LastUpdated: t0},
			NodeRef: &v1alpha1.MachineNodeReference{Name: "node-0"},
			Conditions: []metav1.Condition{
				cond("Ready", "False", "IssueReported"),
				cond("Draining", "False", "NotDraining"),
				cond("HealthCheckSucceeded", "False", "UnhealthyNode"),
				cond("NodeReady", "Unknown", "NodeReadyUnknown"),
				cond("Stalled", "True", "MachineFailed"),
				cond("example.com/Degraded", "True", "Degraded"),
				cond("example.com/Synced", "True", "Synced"),
			},
		},
	}
	d, err := Describe(Machine{Machinestatus: m})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Ready=False problem Positive",
		"HealthCheckSucceeded=False problem Positive",
		"NodeReady=Unknown problem Positive",
		"Stalled=True problem Negative",
		"example.com/Degraded=True problem Negative", // the gate's polarity
		"Draining=False ok Negative",
		"example.com/Synced=True ok Positive",
	}
	if diff := cmp.Diff(want, problemRows(d.Conditions)); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if d.Problems != 5 || d.Phase != v1alpha1.MachinePhaseFailed || d.LastOperation != m.Status.LastOperation ||
		d.LastOperationSource != LastOperationFromStatus || d.Node != "node-0" ||
		d.Machine != (ObjectReference{APIVersion: "machinestatus.io/v1alpha1", Kind: "Machine", Namespace: "fleet", Name: "worker-0"}) {
		t.Errorf("Describe() = %+v", d)
	}
}

// runningClusterAPIMachine reads the running Machine of the adapters' fixture.
func runningClusterAPIMachine(t *testing.T) *clusterv1.Machine {
	t.Helper()
	b, err := os.ReadFile("../../conditions/testdata/adapters/machine-v1beta2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := &clusterv1.Machine{}
	if err := yaml.UnmarshalStrict(b, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDescribeClusterAPIMachine(t *testing.T) {
	m := runningClusterAPIMachine(t)
	d, err := Describe(Machine{ClusterAPI: m})
	if err != nil {
		t.Fatal(err)
	}
	// What the library says, read through the same adapter.
	phase, op := aggregate.ClusterAPIMachineStatus(m, nil, false, time.Time{})
	if d.Phase != phase || !cmp.Equal(d.LastOperation, op) || d.LastOperationSource != LastOperationFromConditions {
		t.Errorf("phase %s, lastOperation %+v from %s; want %s, %+v from the conditions", d.Phase, d.LastOperation,
			d.LastOperationSource, phase, op)
	}
	if d.Phase != v1alpha1.MachinePhaseRunning || d.ClusterAPIPhase != "Running" || d.Problems != 0 ||
		d.Cluster != "prod-eu" || d.Node != "ip-10-0-12-34.eu-west-1.compute.internal" || len(d.Conditions) != 9 {
		t.Errorf("Describe() = %+v", d)
	}

	// With the annotation a controller keeps, it is the history.
	previous := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationUpdate, State: v1alpha1.MachineOperationStateProcessing, LastUpdated: t0}
	if _, err := aggregate.SetLastOperationAnnotation(m, previous); err != nil {
		t.Fatal(err)
	}
	d, err = Describe(Machine{ClusterAPI: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, op := aggregate.ClusterAPIMachineStatus(m, previous, false, time.Time{}); !cmp.Equal(d.LastOperation, op) || d.LastOperationSource != LastOperationFromAnnotation {
		t.Errorf("lastOperation %+v from %s, want %+v from the annotation", d.LastOperation, d.LastOperationSource, op)
	}

	// An unreadable annotation is a warning, and the conditions alone decide.
	m.Annotations[aggregate.LastOperationAnnotation] = "{not json"
	d, err = Describe(Machine{ClusterAPI: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || d.LastOperationSource != LastOperationFromConditions {
		t.Errorf("warnings %q, source %s; want one warning and the conditions", d.Warnings, d.LastOperationSource)
	}
}

func TestDescribeErrors(t *testing.T) {
	if _, err := Describe(Machine{}); err == nil {
		t.Error("Describe(Machine{}) = nil error, want one")
	}
}

// TestDescribeSkipsOtherWritersBrokenEntries: a condition another writer left invalid (here
// without lastTransitionTime) does not stop the description: it is left out, with a warning
// naming it, and every other condition is described.
func TestDescribeSkipsOtherWritersBrokenEntries(t *testing.T) {
	m := runningClusterAPIMachine(t)
	broken := m.Status.Conditions[0].Type
	m.Status.Conditions[0].LastTransitionTime = metav1.Time{}
	d, err := Describe(Machine{ClusterAPI: m})
	if err != nil {
		t.Fatalf("Describe() of a condition without lastTransitionTime: %v, want it skipped", err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "status.conditions[0].lastTransitionTime") {
		t.Errorf("warnings %q, want one naming status.conditions[0].lastTransitionTime", d.Warnings)
	}
	for _, c := range d.Conditions {
		if c.Type == broken {
			t.Errorf("the broken %s is described: %+v", broken, c)
		}
	}
	if len(d.Conditions) != len(m.Status.Conditions)-1 {
		t.Errorf("%d conditions described, want the %d valid ones", len(d.Conditions), len(m.Status.Conditions)-1)
	}
}
