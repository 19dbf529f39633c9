package status

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestInfrastructureDeletedAfterProvisioning: an infrastructure object that disappears after it
// was provisioned is a failure (InfrastructureReady False/InfrastructureDeleted, a terminal
// reason: phase Failed), as Cluster API treats it; before provisioning a missing object is not
// (Unknown/InfrastructureDoesNotExist: it moves on when it is created); during deletion it is the
// deletion's progress (phase Deleting).
func TestInfrastructureDeletedAfterProvisioning(t *testing.T) {
	gone := Ref{Kind: "SimMachine", Name: "m"}
	provisionedBefore := func(m *v1alpha1.Machine) {
		m.Status.Conditions = []metav1.Condition{{Type: "InfrastructureReady", Status: "True", Reason: "InfrastructureProvisioned", LastTransitionTime: metav1.NewTime(at(-3000))}}
		m.Status.ProviderID = "p://1"
		m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "n1"}
		m.Status.LastOperation = &v1alpha1.LastOperation{Type: "Create", State: "Successful", LastUpdated: metav1.NewTime(at(-2900))}
	}
	deleting := func(m *v1alpha1.Machine) { ts := metav1.NewTime(at(-10)); m.DeletionTimestamp = &ts }
	type want struct {
		Infra, Phase, Op string
	}
	cases := []struct {
		name    string
		machine []func(*v1alpha1.Machine)
		in      Inputs
		want    want
	}{
		{"gone after provisioning, Node Ready: failed", []func(*v1alpha1.Machine){provisionedBefore},
			Inputs{Infra: gone, Node: node(corev1.ConditionTrue, at(-2900))},
			want{"False/InfrastructureDeleted", "Failed", "HealthCheck/Failed"}},
		{"gone after provisioning, Node gone too: failed", []func(*v1alpha1.Machine){provisionedBefore},
			Inputs{Infra: gone},
			want{"False/InfrastructureDeleted", "Failed", "HealthCheck/Failed"}},
		{"still gone on the next reconcile (the condition is the memory): failed", []func(*v1alpha1.Machine){provisionedBefore, func(m *v1alpha1.Machine) {
			m.Status.Conditions[0] = metav1.Condition{Type: "InfrastructureReady", Status: "False", Reason: "InfrastructureDeleted", LastTransitionTime: metav1.NewTime(at(-5))}
		}}, Inputs{Infra: gone, Node: node(corev1.ConditionTrue, at(-2900))},
			want{"False/InfrastructureDeleted", "Failed", "HealthCheck/Failed"}},
		{"never provisioned: not yet created", nil,
			Inputs{Infra: gone},
			want{"Unknown/InfrastructureDoesNotExist", "Pending", "Create/Processing"}},
		{"re-created after deletion: follows the object again", []func(*v1alpha1.Machine){provisionedBefore, func(m *v1alpha1.Machine) {
			m.Status.Conditions[0] = metav1.Condition{Type: "InfrastructureReady", Status: "False", Reason: "InfrastructureDeleted", LastTransitionTime: metav1.NewTime(at(-5))}
			m.Status.LastOperation = &v1alpha1.LastOperation{Type: "HealthCheck", State: "Failed", LastUpdated: metav1.NewTime(at(-5))}
		}}, Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(-2900))},
			want{"True/InfrastructureProvisioned", "Running", "HealthCheck/Successful"}},
		{"gone during the Machine's deletion: deleting, not failed", []func(*v1alpha1.Machine){provisionedBefore, deleting},
			Inputs{Infra: gone, Node: node(corev1.ConditionTrue, at(-2900))},
			want{"False/InfrastructureDeleted", "Deleting", "Delete/Processing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))}}
			for _, f := range tc.machine {
				f(m)
			}
			tc.in.Now = at(0)
			if _, err := Compute(m, tc.in); err != nil {
				t.Fatal(err)
			}
			infra := conditions.Get(m, "InfrastructureReady")
			got := want{Infra: string(infra.Status) + "/" + infra.Reason, Phase: string(m.Status.Phase),
				Op: string(m.Status.LastOperation.Type) + "/" + string(m.Status.LastOperation.State)}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if tc.want.Infra == "False/InfrastructureDeleted" && !strings.Contains(infra.Message, "SimMachine m was deleted after it was provisioned") {
				t.Errorf("InfrastructureReady message %q does not say what happened", infra.Message)
			}
		})
	}
}
