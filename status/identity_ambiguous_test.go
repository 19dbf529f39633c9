package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestMachineNodeWhenSeveralCarryTheProviderID: two Node objects carry the Machine's providerID,
// as after a bare-metal host is reprovisioned and registers again under a new name while the
// old Node object, NotReady, is not deleted. The choice follows the evidence: a Node being
// deleted is not the host's; a Ready Node is the live kubelet, whatever status.nodeRef
// remembers; among Nodes alike, the one nodeRef names, else the newest.
func TestMachineNodeWhenSeveralCarryTheProviderID(t *testing.T) {
	ref := func(name string) *v1alpha1.MachineNodeReference { return &v1alpha1.MachineNodeReference{Name: name} }
	mk := func(name string, ready corev1.ConditionStatus, createdAt int, deleting bool) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(at(createdAt))}, Spec: corev1.NodeSpec{ProviderID: awsA}}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastTransitionTime: metav1.NewTime(at(createdAt))}}
		if deleting {
			ts := metav1.NewTime(at(0))
			n.DeletionTimestamp = &ts
		}
		return n
	}
	stale := mk("host-7-old", corev1.ConditionUnknown, -86400, false)
	live := mk("host-7", corev1.ConditionTrue, -600, false)
	booting := mk("host-7", corev1.ConditionFalse, -60, false)
	cases := []struct {
		name     string
		recorded *v1alpha1.MachineNodeReference
		nodes    []corev1.Node
		want     string
	}{
		{"no nodeRef yet: the Ready one", nil, []corev1.Node{stale, live}, "host-7"},
		{"no nodeRef yet, listed the other way round", nil, []corev1.Node{live, stale}, "host-7"},
		{"nodeRef names the stale one, another is Ready: the Ready one", ref("host-7-old"), []corev1.Node{stale, live}, "host-7"},
		{"nodeRef names the live one", ref("host-7"), []corev1.Node{stale, live}, "host-7"},
		{"neither Ready, no nodeRef: the newest", nil, []corev1.Node{stale, booting}, "host-7"},
		{"neither Ready, nodeRef names the old one: the old one", ref("host-7-old"), []corev1.Node{stale, booting}, "host-7-old"},
		{"the stale one is being deleted", ref("host-7-old"), []corev1.Node{mk("host-7-old", corev1.ConditionTrue, -86400, true), booting}, "host-7"},
		{"both Ready: the one nodeRef names", ref("host-7-old"), []corev1.Node{mk("host-7-old", corev1.ConditionTrue, -86400, false), live}, "host-7-old"},
		{"both Ready, no nodeRef: the newest", nil, []corev1.Node{mk("host-7-old", corev1.ConditionTrue, -86400, false), live}, "host-7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if n, _ := MachineNode(awsA, c.recorded, c.nodes); n != nil {
				got = n.Name
			}
			if got != c.want {
				t.Errorf("MachineNode() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestNodeReadyNamesTheOtherNodes: when other Nodes carry the Machine's providerID, NodeReady's
// message says which one is the Machine's and names the others.
func TestNodeReadyNamesTheOtherNodes(t *testing.T) {
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
	in := Inputs{Now: at(1), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0)), SharedWith: []string{"host-7-old", "host-7-older"}}
	if _, err := Compute(m, in); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineNodeReadyCondition)
	want := "Node n1 is the Machine's of the 3 Nodes with its providerID; the others: host-7-old, host-7-older"
	if c == nil || c.Message != want {
		t.Errorf("NodeReady = %+v, want the message %q", c, want)
	}
}
