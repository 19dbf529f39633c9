package controllers_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

const waitTimeout = 20 * time.Second

var infraGVK = schema.GroupVersionKind{Group: infraGroup, Version: "v1beta2", Kind: infraKind}

func newMachine(ns, name string) *v1alpha1.Machine {
	return &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infraGroup, Kind: infraKind, Name: name},
		},
	}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8s.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// createInfra creates a FakeMachine with the given spec and status.
func createInfra(t *testing.T, ns, name string, spec, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(infraGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	create(t, u)
	if status != nil {
		setInfraStatus(t, ns, name, status)
	}
}

// setInfraStatus replaces the FakeMachine's status.
func setInfraStatus(t *testing.T, ns, name string, status map[string]any) {
	t.Helper()
	setStatus(t, infraGVK, ns, name, status)
}

// setStatus replaces the status of the gvk object ns/name, as its provider would.
func setStatus(t *testing.T, gvk schema.GroupVersionKind, ns, name string, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if err := k8s.Status().Update(context.Background(), u); err != nil {
		t.Fatalf("update %s status: %v", gvk.Kind, err)
	}
}

func deleteInfra(t *testing.T, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(infraGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := k8s.Delete(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

// createNode creates a Node with providerID and kubelet version and sets its Ready condition.
func createNode(t *testing.T, name, providerID, kubelet string, ready corev1.ConditionStatus, since time.Time) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	create(t, n)
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}) })
	updateNode(t, name, func(n *corev1.Node) {
		n.Status.NodeInfo.KubeletVersion = kubelet
		n.Status.Conditions = []corev1.NodeCondition{readyCondition(ready, since)}
	})
}

func readyCondition(s corev1.ConditionStatus, since time.Time) corev1.NodeCondition {
	reason := map[corev1.ConditionStatus]string{
		corev1.ConditionTrue: "KubeletReady", corev1.ConditionFalse: "KubeletNotReady", corev1.ConditionUnknown: "NodeStatusUnknown",
	}[s]
	return corev1.NodeCondition{
		Type: corev1.NodeReady, Status: s, Reason: reason, Message: "kubelet says " + string(s),
		LastHeartbeatTime: metav1.NewTime(time.Now()), LastTransitionTime: metav1.NewTime(since),
	}
}

// updateNode changes a Node's status (and, through mutate, its spec when it returns true).
func updateNode(t *testing.T, name string, mutate func(*corev1.Node)) {
	t.Helper()
	n := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	before := n.DeepCopy()
	mutate(n)
	spec := n.Spec
	if err := k8s.Status().Update(context.Background(), n); err != nil {
		t.Fatalf("update Node status: %v", err)
	}
	if spec.Unschedulable != before.Spec.Unschedulable || spec.ProviderID != before.Spec.ProviderID {
		if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
			t.Fatal(err)
		}
		n.Spec = spec
		if err := k8s.Update(context.Background(), n); err != nil {
			t.Fatalf("update Node: %v", err)
		}
	}
}

func getMachine(t *testing.T, ns, name string) *v1alpha1.Machine {
	t.Helper()
	m := &v1alpha1.Machine{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// updateMachine reads, mutates and updates a Machine, retrying on conflicts with the controller's
// status writes.
func updateMachine(t *testing.T, ns, name string, mutate func(*v1alpha1.Machine)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := getMachine(t, ns, name)
		mutate(m)
		return k8s.Update(context.Background(), m)
	})
	if err != nil {
		t.Fatalf("update Machine: %v", err)
	}
}

// waitPhase waits until the Machine's phase is want and returns the Machine.
func waitPhase(t *testing.T, ns, name string, want v1alpha1.MachinePhase) *v1alpha1.Machine {
	t.Helper()
	var m *v1alpha1.Machine
	harness.Wait(t, waitTimeout, "phase "+string(want), func(context.Context) (bool, string) {
		m = &v1alpha1.Machine{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return false, err.Error()
		}
		if m.Status.Phase != want {
			return false, describe(m)
		}
		return true, ""
	})
	return m
}

// describe is a one-line summary of a Machine's status for failure messages.
func describe(m *v1alpha1.Machine) string {
	s := "phase=" + string(m.Status.Phase)
	if op := m.Status.LastOperation; op != nil {
		s += " lastOperation=" + string(op.Type) + "/" + string(op.State)
	}
	for _, c := range m.Status.Conditions {
		s += " " + c.Type + "=" + string(c.Status) + "(" + c.Reason + ")"
	}
	return s
}

func getInfra(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(infraGVK)
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}
