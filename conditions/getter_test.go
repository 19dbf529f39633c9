package conditions_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// read is everything the getters report about one condition type.
type read struct {
	Get                        *metav1.Condition
	Has                        bool
	IsTrue, IsFalse, IsUnknown bool
	Reason, Message            string
	LastTransitionTime         *metav1.Time
}

func readAll(from conditions.Getter, typ string) read {
	return read{
		Get:                conditions.Get(from, typ),
		Has:                conditions.Has(from, typ),
		IsTrue:             conditions.IsTrue(from, typ),
		IsFalse:            conditions.IsFalse(from, typ),
		IsUnknown:          conditions.IsUnknown(from, typ),
		Reason:             conditions.GetReason(from, typ),
		Message:            conditions.GetMessage(from, typ),
		LastTransitionTime: conditions.GetLastTransitionTime(from, typ),
	}
}

func TestGetters(t *testing.T) {
	ready := cond("Ready", T, "NoIssuesReported", t0, 1, "all good")
	nodeReady := cond("NodeReady", F, "NodeNotReady", t0, 1, "kubelet stopped posting node status")
	infra := cond("InfrastructureReady", U, "InfrastructureUnreadable", t0, 1, "forbidden")
	// missing is what every getter reports for an absent condition: Unknown, nothing else.
	missing := read{IsUnknown: true}

	tests := []struct {
		name string
		from conditions.Getter
		typ  string
		want read
	}{
		{name: "nil Getter", from: nil, typ: "Ready", want: missing},
		{name: "typed-nil Machine", from: (*v1alpha1.Machine)(nil), typ: "Ready", want: missing},
		{name: "typed-nil Setter", from: (*plainSetter)(nil), typ: "Ready", want: missing},
		{name: "no conditions", from: machine(1), typ: "Ready", want: missing},
		{name: "other conditions only", from: machine(1, nodeReady, infra), typ: "Ready", want: missing},
		{name: "empty type", from: machine(1, ready), typ: "", want: missing},
		{
			name: "True",
			from: machine(1, ready, nodeReady, infra),
			typ:  "Ready",
			want: read{Get: &ready, Has: true, IsTrue: true, Reason: "NoIssuesReported", Message: "all good", LastTransitionTime: &ready.LastTransitionTime},
		},
		{
			name: "False",
			from: machine(1, ready, nodeReady, infra),
			typ:  "NodeReady",
			want: read{Get: &nodeReady, Has: true, IsFalse: true, Reason: "NodeNotReady", Message: "kubelet stopped posting node status", LastTransitionTime: &nodeReady.LastTransitionTime},
		},
		{
			name: "Unknown",
			from: machine(1, ready, nodeReady, infra),
			typ:  "InfrastructureReady",
			want: read{Get: &infra, Has: true, IsUnknown: true, Reason: "InfrastructureUnreadable", Message: "forbidden", LastTransitionTime: &infra.LastTransitionTime},
		},
		{
			name: "type is case-sensitive",
			from: machine(1, ready),
			typ:  "ready",
			want: missing,
		},
		{
			name: "any Getter, not only Machine",
			from: &plainSetter{conds: []metav1.Condition{nodeReady}},
			typ:  "NodeReady",
			want: read{Get: &nodeReady, Has: true, IsFalse: true, Reason: "NodeNotReady", Message: "kubelet stopped posting node status", LastTransitionTime: &nodeReady.LastTransitionTime},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(tt.from, tt.typ)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("getters of %q (-want +got):\n%s", tt.typ, diff)
			}
		})
	}
}

// TestGettersReturnCopies checks that what the getters return does not alias the object.
func TestGettersReturnCopies(t *testing.T) {
	m := machine(1, cond("Ready", T, "NoIssuesReported", t0, 1, "all good"))
	want := m.DeepCopy()

	c := conditions.Get(m, "Ready")
	c.Status = F
	c.Reason = "Changed"
	c.Message = "changed"
	c.LastTransitionTime = metav1.NewTime(t0.Add(time.Hour))
	ltt := conditions.GetLastTransitionTime(m, "Ready")
	*ltt = metav1.NewTime(t0.Add(2 * time.Hour))

	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("the Machine changed through a returned value (-want +got):\n%s", diff)
	}
}
