package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

const (
	awsA = "aws:///eu-west-1a/i-0aaaaaaaaaaaaaaaa"
	awsB = "aws:///eu-west-1b/i-0bbbbbbbbbbbbbbbb"
)

func namedNode(name, providerID string) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
}

// TestMachineNode: which Node is the Machine's, over a Machine's life. The providerID decides,
// never the name.
func TestMachineNode(t *testing.T) {
	ref := func(name string) *v1alpha1.MachineNodeReference { return &v1alpha1.MachineNodeReference{Name: name} }
	cases := []struct {
		name       string
		providerID string
		recorded   *v1alpha1.MachineNodeReference
		nodes      []corev1.Node
		want       string // the Node's name, "" for none
	}{
		{"first registration", awsA, nil, []corev1.Node{namedNode("ip-10-0-0-1", awsA)}, "ip-10-0-0-1"},
		{"issue 12: the name now belongs to another host", awsA, ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-1", awsB)}, ""},
		{"a name reused before the Machine found its Node", awsA, nil,
			[]corev1.Node{namedNode("ip-10-0-0-1", awsB)}, ""},
		{"deleted, not re-registered", awsA, ref("ip-10-0-0-1"), nil, ""},
		{"re-registered by the same host under the same name", awsA, ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-1", awsA)}, "ip-10-0-0-1"},
		{"re-registered by the same host under another name", awsA, ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-1", awsB), namedNode("ip-10-0-0-7", awsA)}, "ip-10-0-0-7"},
		{"re-registered without a providerID yet (cloud controller not done)", awsA, ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-1", "")}, ""},
		{"Node without a providerID, never the Machine's", awsA, nil,
			[]corev1.Node{namedNode("ip-10-0-0-1", "")}, ""},
		{"Machine without a providerID yet (infrastructure not reporting it)", "", nil,
			[]corev1.Node{namedNode("ip-10-0-0-1", awsA), namedNode("ip-10-0-0-2", "")}, ""},
		{"Machine without a providerID keeps no Node by name", "", ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-1", awsA)}, ""},
		{"old and new Node objects share the providerID: the recorded one", awsA, ref("ip-10-0-0-1"),
			[]corev1.Node{namedNode("ip-10-0-0-7", awsA), namedNode("ip-10-0-0-1", awsA)}, "ip-10-0-0-1"},
		{"two Nodes alike share the providerID, none recorded: by name", awsA, nil,
			[]corev1.Node{namedNode("ip-10-0-0-7", awsA), namedNode("ip-10-0-0-1", awsA)}, "ip-10-0-0-1"},
		{"two Nodes alike share the providerID, another recorded: by name", awsA, ref("ip-10-0-0-9"),
			[]corev1.Node{namedNode("ip-10-0-0-7", awsA), namedNode("ip-10-0-0-1", awsA)}, "ip-10-0-0-1"},
		{"providerIDs differ only in case: another host", "aws:///eu-west-1a/i-0AAAAAAAAAAAAAAAA", nil,
			[]corev1.Node{namedNode("ip-10-0-0-1", awsA)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if n, _ := MachineNode(c.providerID, c.recorded, c.nodes); n != nil {
				got = n.Name
			}
			if got != c.want {
				t.Errorf("MachineNode() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMachineProviderID: spec.providerID, else the infrastructure object's, else the one
// recorded in status (the infrastructure object is gone or unreadable).
func TestMachineProviderID(t *testing.T) {
	infra := func(id string) Ref {
		return Ref{Kind: "FakeMachine", Name: "m", Exists: true, Contract: Contract{ProviderID: id}}
	}
	cases := []struct {
		name           string
		spec, recorded string
		infra          Ref
		want           string
	}{
		{"spec wins", awsA, awsB, infra(awsB), awsA},
		{"infrastructure reports it", "", "", infra(awsA), awsA},
		{"infrastructure reports a new one", "", awsB, infra(awsA), awsA},
		{"infrastructure does not report it yet", "", "", infra(""), ""},
		{"infrastructure deleted: the recorded one", "", awsA, Ref{Kind: "FakeMachine", Name: "m"}, awsA},
		{"infrastructure unreadable: the recorded one", "", awsA, Ref{Exists: true, Unreadable: "forbidden", Contract: Contract{ProviderID: awsB}}, awsA},
		{"infrastructure without it: the recorded one", "", awsA, infra(""), awsA},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{ProviderID: c.spec}, Status: v1alpha1.MachineStatus{ProviderID: c.recorded}}
			if got := ProviderID(m, c.infra); got != c.want {
				t.Errorf("ProviderID() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestNameReusedByAnotherHost: issue 12's instance, through the reconciler's two steps
// (MachineNode, then Compute). The Machine's Node ip-10-0-0-1 is gone and the Ready Node
// now named ip-10-0-0-1 is another host's: the Machine's Node was deleted (NodeReady Unknown,
// the health check fails at once), not Running on a stranger.
func TestNameReusedByAnotherHost(t *testing.T) {
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))},
		Spec:       v1alpha1.MachineSpec{ProviderID: awsA},
		Status:     v1alpha1.MachineStatus{ProviderID: awsA, NodeRef: &v1alpha1.MachineNodeReference{Name: "ip-10-0-0-1"}},
	}
	stranger := node(corev1.ConditionTrue, at(-60), func(n *corev1.Node) { n.Name, n.Spec.ProviderID = "ip-10-0-0-1", awsB })
	in := Inputs{Now: at(0), Infra: provisioned()}
	in.Node, _ = MachineNode(ProviderID(m, in.Infra), m.Status.NodeRef, []corev1.Node{*stranger})
	if _, err := Compute(m, in); err != nil {
		t.Fatal(err)
	}
	type result struct {
		NodeReady, HealthCheck, NodeRef string
		Phase                           v1alpha1.MachinePhase
	}
	nr, hc := conditions.Get(m, v1alpha1.MachineNodeReadyCondition), conditions.Get(m, v1alpha1.MachineHealthCheckSucceededCondition)
	got := result{string(nr.Status) + "/" + nr.Reason, string(hc.Status) + "/" + hc.Reason, m.Status.NodeRef.Name, m.Status.Phase}
	want := result{"Unknown/NodeDeleted", "False/NodeDeleted", "ip-10-0-0-1", v1alpha1.MachinePhaseFailed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
