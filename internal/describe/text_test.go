package describe

import (
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
	if err := WriteText(&b, ds, now); err != nil {
		t.Fatal(err)
	}
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
		t.Errorf("WriteText() (-want +got):\n%s", diff)
	}
}
