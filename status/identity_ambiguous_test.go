package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
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
