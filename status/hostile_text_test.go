package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// hostile is another writer's text that would act on a terminal printed raw: clear screen,
// cursor home, a window-title OSC, a right-to-left override.
const hostile = "\x1b[2J\x1b[HPhase: Running\x1b]0;owned\x07 \u202eevil"

// hostileEscaped is hostile as conditions.Sanitize escapes it.
const hostileEscaped = `\x1b[2J\x1b[HPhase: Running\x1b]0;owned\x07 \u202eevil`

// TestForeignTextEscaped: text quoted from a Node or a provider's object reaches the conditions
// Compute writes escaped, in every place it is quoted.
func TestForeignTextEscaped(t *testing.T) {
	infra := func(edit func(*Ref)) Ref {
		r := provisioned()
		edit(&r)
		return r
	}
	tests := []struct {
		name string
		in   Inputs
		typ  string
		want string
	}{
		{"a Node's Ready message", Inputs{Infra: provisioned(), Node: node(corev1.ConditionFalse, at(0), func(n *corev1.Node) {
			n.Status.Conditions[0].Reason, n.Status.Conditions[0].Message = "KubeletNotReady", hostile
		})}, "NodeReady", "Node n1 is not ready (KubeletNotReady): " + hostileEscaped},
		{"a Node's Ready reason", Inputs{Infra: provisioned(), Node: node(corev1.ConditionUnknown, at(0), func(n *corev1.Node) {
			n.Status.Conditions[0].Reason = hostile
		})}, "NodeReady", "Node n1 is not reporting status (" + hostileEscaped + ")"},
		{"a True Node's Ready message", Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) {
			n.Status.Conditions[0].Message = hostile
		})}, "NodeReady", hostileEscaped},
		{"a provider's failure reason and message", Inputs{Infra: infra(func(r *Ref) {
			r.Contract.FailureReason, r.Contract.FailureMessage = hostile, hostile
		})}, "InfrastructureReady", "FakeMachine m failed (" + hostileEscaped + "): " + hostileEscaped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
			tt.in.Now = at(1)
			if _, err := Compute(m, tt.in); err != nil {
				t.Fatalf("Compute() error = %v", err)
			}
			c := conditions.Get(m, tt.typ)
			if c == nil {
				t.Fatalf("Compute() wrote no %s condition", tt.typ)
			}
			if c.Message != tt.want {
				t.Errorf("%s message = %q, want %q", tt.typ, c.Message, tt.want)
			}
		})
	}
}
