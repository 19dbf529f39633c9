package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestComputeStatusDrainFailure: a drainer's DrainingFailed report stays while the Node is
// cordoned and makes lastOperation DrainNode Failed (Delete Failed during deletion), dated
// when the reconcile saw it; once the Node is schedulable the drain is over.
func TestComputeStatusDrainFailure(t *testing.T) {
	const pdb = "Cannot evict pod as it would violate the pod's disruption budget: default/web-0"
	cordoned := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	drainFailed := metav1.Condition{Type: v1alpha1.MachineDrainingCondition, Status: metav1.ConditionTrue,
		Reason: v1alpha1.MachineDrainingFailedReason, Message: pdb, LastTransitionTime: metav1.NewTime(at(100))}
	type want struct {
		Draining string
		Phase    v1alpha1.MachinePhase
		Op       v1alpha1.LastOperation
	}
	cases := []struct {
		name     string
		deleting bool
		node     *corev1.Node
		want     want
	}{
		{
			name: "Node still cordoned: the report stays, DrainNode Failed",
			node: node(corev1.ConditionTrue, at(0), cordoned),
			want: want{Draining: "True/DrainingFailed", Phase: v1alpha1.MachinePhaseDraining, Op: v1alpha1.LastOperation{
				Type: v1alpha1.MachineOperationDrainNode, State: v1alpha1.MachineOperationStateFailed,
				Description: "Drain failed: " + pdb, LastUpdated: metav1.NewTime(at(200))}},
		},
		{
			name: "Node schedulable again: the drain is over, DrainNode Successful",
			node: node(corev1.ConditionTrue, at(0)),
			want: want{Draining: "False/NotDraining", Phase: v1alpha1.MachinePhaseRunning, Op: v1alpha1.LastOperation{
				Type: v1alpha1.MachineOperationDrainNode, State: v1alpha1.MachineOperationStateSuccessful,
				Description: "Node is schedulable again", LastUpdated: metav1.NewTime(at(200))}},
		},
		{
			name:     "deleting, Node cordoned: Delete Failed",
			deleting: true,
			node:     node(corev1.ConditionTrue, at(0), cordoned),
			want: want{Draining: "True/DrainingFailed", Phase: v1alpha1.MachinePhaseDeleting, Op: v1alpha1.LastOperation{
				Type: v1alpha1.MachineOperationDelete, State: v1alpha1.MachineOperationStateFailed,
				Description: "Deletion failed: Draining is True (DrainingFailed): " + pdb, LastUpdated: metav1.NewTime(at(200))}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
			m.Status.Conditions = []metav1.Condition{drainFailed}
			m.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationDrainNode,
				State: v1alpha1.MachineOperationStateProcessing, Description: "Node is cordoned", LastUpdated: metav1.NewTime(at(100))}
			if tc.deleting {
				ts := metav1.NewTime(at(150))
				m.DeletionTimestamp = &ts
				m.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationDelete,
					State: v1alpha1.MachineOperationStateProcessing, Description: "Deletion in progress", LastUpdated: ts}
			}
			in := Inputs{Now: at(200), Infra: provisioned(), Node: tc.node}
			if _, err := Compute(m, in); err != nil {
				t.Fatal(err)
			}
			c := conditions.Get(m, v1alpha1.MachineDrainingCondition)
			got := want{Draining: string(c.Status) + "/" + c.Reason, Phase: m.Status.Phase, Op: *m.Status.LastOperation}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Compute (-want +got):\n%s", diff)
			}
			// An unchanged world writes nothing, even at a later instant.
			again := m.DeepCopy()
			in.Now = at(300)
			if _, err := Compute(again, in); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.Status, again.Status); diff != "" {
				t.Errorf("second Compute changed the status (-first +second):\n%s", diff)
			}
		})
	}
}
