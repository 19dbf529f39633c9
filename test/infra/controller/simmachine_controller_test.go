package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// TestSimMachineLifecycle walks one SimMachine through provisioning, Node registration (kwok
// makes the Node Ready), a kwok NotReady flip and back, a kubelet upgrade and deletion.
func TestSimMachineLifecycle(t *testing.T) {
	ctx := t.Context()
	m := &infrav1.SimMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lifecycle"},
		Spec: infrav1.SimMachineSpec{
			ProvisionAfterSeconds: 1, RegisterNodeAfterSeconds: 1, KubeletVersion: "v1.36.3",
		},
	}
	if err := k8sClient.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(m)

	// The provider takes the SimMachine: finalizer and a Ready condition.
	harness.Wait(t, time.Minute, "the provider to take the SimMachine", func(ctx context.Context) (bool, string) {
		got := &infrav1.SimMachine{}
		if err := k8sClient.Get(ctx, key, got); err != nil {
			return false, err.Error()
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, infrav1.SimMachineReadyCondition)
		return len(got.Finalizers) == 1 && ready != nil, fmt.Sprintf("finalizers %v, conditions %v", got.Finalizers, got.Status.Conditions)
	})

	// Provisioned: providerID, initialization.provisioned, Ready=True.
	wantID := "sim://default/lifecycle"
	harness.Wait(t, time.Minute, "the SimMachine to be provisioned", func(ctx context.Context) (bool, string) {
		got := &infrav1.SimMachine{}
		if err := k8sClient.Get(ctx, key, got); err != nil {
			return false, err.Error()
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, infrav1.SimMachineReadyCondition)
		ok := got.Spec.ProviderID == wantID && got.IsProvisioned() && ready != nil && ready.Status == metav1.ConditionTrue
		return ok, fmt.Sprintf("providerID %q, status %+v", got.Spec.ProviderID, got.Status)
	})

	// The Node registers and kwok makes it Ready.
	nodeKey := client.ObjectKey{Name: "lifecycle"}
	harness.Wait(t, time.Minute, "the Node to register Ready", func(ctx context.Context) (bool, string) {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, nodeKey, n); err != nil {
			return false, err.Error()
		}
		return nodeReady(n) == corev1.ConditionTrue, fmt.Sprintf("Node conditions %v", n.Status.Conditions)
	})
	n := &corev1.Node{}
	if err := k8sClient.Get(ctx, nodeKey, n); err != nil {
		t.Fatal(err)
	}
	want := struct{ ProviderID, Annotation, Kubelet string }{wantID, infrav1.KwokNodeAnnotationValue, "v1.36.3"}
	got := struct{ ProviderID, Annotation, Kubelet string }{
		n.Spec.ProviderID, n.Annotations[infrav1.KwokNodeAnnotation], n.Status.NodeInfo.KubeletVersion,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Node (-want +got):\n%s", diff)
	}

	// kwok flips the Node NotReady, with a lastTransitionTime of the flip, not of the creation.
	flipped := time.Now().Truncate(time.Second)
	patchNode(t, nodeKey, func(n *corev1.Node) { n.Labels[kwok.NotReadyLabel] = "true" })
	harness.Wait(t, time.Minute, "kwok to flip the Node NotReady", func(ctx context.Context) (bool, string) {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, nodeKey, n); err != nil {
			return false, err.Error()
		}
		c := nodeCondition(n, corev1.NodeReady)
		ok := c != nil && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.Time.Before(flipped)
		return ok, fmt.Sprintf("Node Ready %+v (flipped at %s)", c, flipped)
	})
	patchNode(t, nodeKey, func(n *corev1.Node) { delete(n.Labels, kwok.NotReadyLabel) })
	harness.Wait(t, time.Minute, "the Node to be Ready again", func(ctx context.Context) (bool, string) {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, nodeKey, n); err != nil {
			return false, err.Error()
		}
		return nodeReady(n) == corev1.ConditionTrue, fmt.Sprintf("Node conditions %v", n.Status.Conditions)
	})

	// A kubelet upgrade: the Node reports the new version.
	patchSimMachine(t, key, func(m *infrav1.SimMachine) { m.Spec.KubeletVersion = "v1.36.4" })
	harness.Wait(t, time.Minute, "the Node to report kubelet v1.36.4", func(ctx context.Context) (bool, string) {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, nodeKey, n); err != nil {
			return false, err.Error()
		}
		return n.Status.NodeInfo.KubeletVersion == "v1.36.4", "kubelet " + n.Status.NodeInfo.KubeletVersion
	})

	// Deletion removes the Node, then the SimMachine.
	if err := k8sClient.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, time.Minute, "the Node and the SimMachine to be gone", func(ctx context.Context) (bool, string) {
		nodeErr := k8sClient.Get(ctx, nodeKey, &corev1.Node{})
		simErr := k8sClient.Get(ctx, key, &infrav1.SimMachine{})
		return apierrors.IsNotFound(nodeErr) && apierrors.IsNotFound(simErr), fmt.Sprintf("Node: %v, SimMachine: %v", nodeErr, simErr)
	})
}

// TestSimMachineNodeNameConflict: a Node of the wanted name that belongs to another host is a
// terminal failure, and deleting the SimMachine leaves that Node alone.
func TestSimMachineNodeNameConflict(t *testing.T) {
	ctx := t.Context()
	other := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "taken"},
		Spec:       corev1.NodeSpec{ProviderID: "other://taken"},
	}
	if err := k8sClient.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), other) })
	m := &infrav1.SimMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "conflict"},
		Spec:       infrav1.SimMachineSpec{NodeName: "taken"},
	}
	if err := k8sClient.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(m)
	harness.Wait(t, time.Minute, "the NodeNameConflict failure", func(ctx context.Context) (bool, string) {
		got := &infrav1.SimMachine{}
		if err := k8sClient.Get(ctx, key, got); err != nil {
			return false, err.Error()
		}
		return got.Status.FailureReason == infrav1.SimMachineNodeNameConflictFailure, fmt.Sprintf("status %+v", got.Status)
	})
	if err := k8sClient.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, time.Minute, "the SimMachine to be gone", func(ctx context.Context) (bool, string) {
		err := k8sClient.Get(ctx, key, &infrav1.SimMachine{})
		return apierrors.IsNotFound(err), fmt.Sprintf("SimMachine: %v", err)
	})
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Node{}); err != nil {
		t.Errorf("the other host's Node: %v, want it kept", err)
	}
}

func patchNode(t *testing.T, key client.ObjectKey, mutate func(*corev1.Node)) {
	t.Helper()
	n := &corev1.Node{}
	if err := k8sClient.Get(t.Context(), key, n); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(n.DeepCopy())
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	mutate(n)
	if err := k8sClient.Patch(t.Context(), n, patch); err != nil {
		t.Fatal(err)
	}
}

func patchSimMachine(t *testing.T, key client.ObjectKey, mutate func(*infrav1.SimMachine)) {
	t.Helper()
	m := &infrav1.SimMachine{}
	if err := k8sClient.Get(t.Context(), key, m); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(m.DeepCopy())
	mutate(m)
	if err := k8sClient.Patch(t.Context(), m, patch); err != nil {
		t.Fatal(err)
	}
}

func nodeCondition(n *corev1.Node, typ corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == typ {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	if c := nodeCondition(n, corev1.NodeReady); c != nil {
		return c.Status
	}
	return corev1.ConditionUnknown
}
