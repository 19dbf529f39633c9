package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestInstalledOnARunningFleet: Machines whose Nodes have been running for an hour, created
// before any manager ran (no status.lastOperation, no history), then the manager starts. Its
// first reconcile derives lastOperation from what the objects show: a Ready Node was created.
func TestInstalledOnARunningFleet(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	hourAgo := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	nodes := map[string]corev1.ConditionStatus{"ready": corev1.ConditionTrue, "not-ready": corev1.ConditionFalse}
	for name, ready := range nodes {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
			Spec:       corev1.NodeSpec{ProviderID: fmt.Sprintf("fake://%s/%s", ns, name)},
		}
		if err := k8s.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), node) })
		node.Status.Conditions = []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady", Message: "kubelet reports " + string(ready),
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: hourAgo,
		}}
		if err := k8s.Status().Update(ctx, node); err != nil {
			t.Fatal(err)
		}
		newMachine(t, ns, name, func(m *v1alpha1.Machine) {
			m.Labels = map[string]string{"fleet": ns}
			m.Spec.ProviderID = node.Spec.ProviderID
		})
	}

	startShard(t, "fleet="+ns, "running-fleet")

	// The NotReady Machine is not checked yet: since health-check timers count on the
	// controller's clock (docs/conditions.md, "Whose clock"), a manager's first reconcile cannot
	// see that its Node has been NotReady for an hour, so without history the Machine reads as
	// still being created (Create Processing, then Create Failed when the timer runs out) where
	// HealthCheck Processing, then HealthCheck Failed, is right. Inferring that creation had
	// finished from the Node itself (it registered and reports nodeInfo) is open work.
	want := map[string][2]string{
		"ready": {string(v1alpha1.MachineOperationCreate), string(v1alpha1.MachineOperationStateSuccessful)},
	}
	got := map[string][2]string{}
	harness.Wait(t, 2*time.Minute, "the manager to write every lastOperation", func(ctx context.Context) (bool, string) {
		for name := range want {
			m := &v1alpha1.Machine{}
			if err := k8s.Get(ctx, keyOf(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}), m); err != nil {
				return false, err.Error()
			}
			if op := m.Status.LastOperation; op != nil && m.Status.NodeRef != nil {
				got[name] = [2]string{string(op.Type), string(op.State)}
			}
		}
		return len(got) == len(want), fmt.Sprintf("got %v", got)
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lastOperation (type, state) per Machine (-want +got):\n%s", diff)
	}
}
