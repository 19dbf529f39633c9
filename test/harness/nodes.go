package harness

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateNode creates Node name with providerID and kubelet version, sets its Ready condition
// to ready since since, and deletes it when t ends. It plays the kubelet where no kwok runs.
func (e *Env) CreateNode(t testing.TB, name, providerID, kubelet string, ready corev1.ConditionStatus, since time.Time) {
	t.Helper()
	e.Create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}})
	t.Cleanup(func() {
		_ = e.Client.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
	e.UpdateNode(t, name, func(n *corev1.Node) {
		n.Status.NodeInfo.KubeletVersion = kubelet
		n.Status.Conditions = []corev1.NodeCondition{ReadyCondition(ready, since)}
	})
}

// ReadyCondition is a Node's Ready condition of status s since since, with the kubelet's
// reasons, heartbeat now.
func ReadyCondition(s corev1.ConditionStatus, since time.Time) corev1.NodeCondition {
	reason := map[corev1.ConditionStatus]string{
		corev1.ConditionTrue: "KubeletReady", corev1.ConditionFalse: "KubeletNotReady", corev1.ConditionUnknown: "NodeStatusUnknown",
	}[s]
	return corev1.NodeCondition{
		Type: corev1.NodeReady, Status: s, Reason: reason, Message: "kubelet says " + string(s),
		LastHeartbeatTime: metav1.NewTime(time.Now()), LastTransitionTime: metav1.NewTime(since),
	}
}

// UpdateNode applies mutate to Node name and writes its status, and its spec when mutate
// changed spec.unschedulable or spec.providerID.
func (e *Env) UpdateNode(t testing.TB, name string, mutate func(*corev1.Node)) {
	t.Helper()
	ctx := context.Background()
	n := &corev1.Node{}
	if err := e.Client.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	before := n.DeepCopy()
	mutate(n)
	spec := n.Spec
	if err := e.Client.Status().Update(ctx, n); err != nil {
		t.Fatalf("update Node status: %v", err)
	}
	if spec.Unschedulable != before.Spec.Unschedulable || spec.ProviderID != before.Spec.ProviderID {
		if err := e.Client.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			t.Fatal(err)
		}
		n.Spec = spec
		if err := e.Client.Update(ctx, n); err != nil {
			t.Fatalf("update Node: %v", err)
		}
	}
}
