package describe

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestWriteText(t *testing.T) {
	now := t0.Add(10 * time.Minute)
	c := func(t, status, reason, message string, problem bool, polarity v1alpha1.ConditionPolarity) Condition {
		return Condition{Condition: metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason,
			Message: message, LastTransitionTime: t0}, Problem: problem, Polarity: polarity}
	}
	ds := []Description{
		{
			Machine:           ObjectReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Namespace: "fleet", Name: "worker-0"},
			Cluster:           "prod",
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
			Phase:             v1alpha1.MachinePhaseDeleting,
			ClusterAPIPhase:   "Deleting",
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationDelete, State: v1alpha1.MachineOperationStateProcessing,
				Description: "Deleting: draining the Node", LastUpdated: t0},
			LastOperationSource: LastOperationFromConditions,
			Problems:            1,
			Conditions: []Condition{
				c("Deleting", "True", "DrainingNode", "Drain not completed yet:\n* Pod a: cannot evict\n", true, v1alpha1.NegativeConditionPolarity),
				c("NodeReady", "True", "NodeReady", "", false, v1alpha1.PositiveConditionPolarity),
				c("Paused", "False", "NotPaused", "", false, v1alpha1.NegativeConditionPolarity),
			},
		},
		{
			Machine:             ObjectReference{APIVersion: "machinestatus.io/v1alpha1", Kind: "Machine", Namespace: "fleet", Name: "new"},
			CreationTimestamp:   t0,
			LastOperationSource: LastOperationFromStatus,
		},
	}
	var b strings.Builder
	writeText(&b, ds, now)
	want := `Name:           worker-0
Namespace:      fleet
API:            cluster.x-k8s.io/v1beta2 Machine
Cluster:        prod
Node:           <none>
Created:        70m ago
Phase:          Deleting (Cluster API says Deleting)
Last Operation: Delete Processing, 10m ago
                Deleting: draining the Node
                (derived from the conditions alone: no annotation machinestatus.io/last-operation keeps its history)
Conditions:     1 problem, 2 good
  ├─ Problems
  │  └─ Deleting   True   DrainingNode  10m
  │       Drain not completed yet:
  │       * Pod a: cannot evict
  └─ Good
     ├─ NodeReady  True   NodeReady     10m
     └─ Paused     False  NotPaused     10m

Name:           new
Namespace:      fleet
API:            machinestatus.io/v1alpha1 Machine
Node:           <none>
Created:        10m ago
Phase:          <not written yet: is the machinestatus manager running?>
Last Operation: <not written yet: is the machinestatus manager running?>
Conditions:     <none>
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeText() (-want +got):\n%s", diff)
	}
}

// TestWriteTextPhaseLine: the Phase line of a Cluster API Machine names Cluster API's phase, or
// says it reports none (a Machine its controller has not reconciled yet), never "<none>".
func TestWriteTextPhaseLine(t *testing.T) {
	capi := ObjectReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Namespace: "fleet", Name: "m"}
	ours := ObjectReference{APIVersion: "machinestatus.io/v1alpha1", Kind: "Machine", Namespace: "fleet", Name: "m"}
	for _, tc := range []struct {
		name string
		d    Description
		want string
	}{
		{"Cluster API, its phase", Description{Machine: capi, Phase: v1alpha1.MachinePhaseFailed, ClusterAPIPhase: "Running"},
			"Phase:          Failed (Cluster API says Running)"},
		{"Cluster API, no phase yet", Description{Machine: capi, Phase: v1alpha1.MachinePhasePending},
			"Phase:          Pending (Cluster API reports no phase)"},
		{"machinestatus", Description{Machine: ours, Phase: v1alpha1.MachinePhaseRunning},
			"Phase:          Running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeText(&b, []Description{tc.d}, t0.Time)
			var got string
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(line, "Phase:") {
					got = line
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Phase line (-want +got):\n%s\n%s", diff, b.String())
			}
		})
	}
}

// writeText prints ds as describe does, a blank line between Machines.
func writeText(b io.StringWriter, ds []Description, now time.Time) {
	var s strings.Builder
	for i, d := range ds {
		if i > 0 {
			s.WriteString("\n")
		}
		writeDescription(&s, d, now)
	}
	_, _ = b.WriteString(s.String())
}
