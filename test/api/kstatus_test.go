package api

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// readUnstructured reads a Machine as the API server serves it (unstructured, so that nothing the
// typed client would drop, such as observedGeneration 0, is lost).
func readUnstructured(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Machine"))
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// kstatusOf computes the kstatus of u with the real library.
func kstatusOf(t *testing.T, u *unstructured.Unstructured) *status.Result {
	t.Helper()
	res, err := status.Compute(u)
	if err != nil {
		t.Fatalf("kstatus Compute: %v", err)
	}
	return res
}

// waitKstatus waits until the Machine, read back from the API server, has kstatus want.
func waitKstatus(t *testing.T, ns, name string, want status.Status) *status.Result {
	t.Helper()
	var res *status.Result
	harness.Wait(t, harness.MachineTimeout, "kstatus "+want.String(), func(context.Context) (bool, string) {
		res = kstatusOf(t, readUnstructured(t, ns, name))
		if res.Status != want {
			return false, res.Status.String() + ": " + res.Message
		}
		return true, ""
	})
	return res
}

// TestKstatus checks what GitOps tools (Flux, Argo CD via kstatus, kpt, cli-utils' applier)
// report for a Machine through its life, with sigs.k8s.io/cli-utils/pkg/kstatus on objects read
// back from the API server.
func TestKstatus(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	name := "ks1"
	pid := "fake://" + ns + "/" + name
	node := ns + "-" + name

	// Just created: the API server's own response, before any controller wrote a status.
	m := harness.NewMachine(ns, name)
	m.Spec.Version = "v1.36.3"
	m.Finalizers = []string{"example.com/keep"} // to observe Terminating
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(m)
	if err != nil {
		t.Fatal(err)
	}
	created := &unstructured.Unstructured{Object: u}
	created.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Machine"))
	if err := k8s.Create(ctx, created); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Finalizers = nil })
	})
	if og, found, _ := unstructured.NestedInt64(created.Object, "status", "observedGeneration"); !found || og != 0 {
		t.Fatalf("a new Machine's status.observedGeneration is %d (found %v), want the default 0: %v", og, found, created.Object["status"])
	}
	if res := kstatusOf(t, created); res.Status != status.InProgressStatus {
		t.Fatalf("just created: kstatus %s (%s), want InProgress", res.Status, res.Message)
	}

	// Pending and Provisioning: Ready is False.
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhasePending)
	waitKstatus(t, ns, name, status.InProgressStatus)
	env.CreateInfra(t, ns, name, map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": false}})
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseProvisioning)
	waitKstatus(t, ns, name, status.InProgressStatus)

	// Running, Ready and observedGeneration caught up: Current.
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, node, pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseRunning)
	waitKstatus(t, ns, name, status.CurrentStatus)

	// A spec change is InProgress until the controller has observed it, then Current again.
	updated := readUnstructured(t, ns, name)
	if err := unstructured.SetNestedField(updated.Object, int64(900), "spec", "healthCheck", "nodeStartupTimeoutSeconds"); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Update(ctx, updated); err != nil {
		t.Fatal(err)
	}
	if res := kstatusOf(t, updated); res.Status != status.InProgressStatus || !strings.Contains(res.Message, "latest observed generation is 1") {
		t.Fatalf("right after a spec change: kstatus %s (%s), want InProgress for the unobserved generation", res.Status, res.Message)
	}
	waitKstatus(t, ns, name, status.CurrentStatus)

	// Updating (spec.version ahead of the Node's kubelet): Ready stays True (it does not
	// summarize Updating), so once the new generation is observed the Machine is Current while it
	// updates (docs/cli.md, "kubectl": wait for Updating=False to see an update end).
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Spec.Version = "v1.36.4" })
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseUpdating)
	waitKstatus(t, ns, name, status.CurrentStatus)
	if m := env.GetMachine(t, ns, name); m.Status.Phase != v1alpha1.MachinePhaseUpdating {
		t.Fatalf("Current while updating expected, but the update ended first: %s", harness.Describe(m))
	}
	env.UpdateNode(t, node, func(n *corev1.Node) { n.Status.NodeInfo.KubeletVersion = "v1.36.4" })
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseRunning)

	// Failed: a terminal failure of the infrastructure; Stalled carries lastOperation's description.
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{
		"initialization": map[string]any{"provisioned": true},
		"failureReason":  "InsufficientCapacity", "failureMessage": "no capacity in zone a",
	})
	got := env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseFailed)
	res := waitKstatus(t, ns, name, status.FailedStatus)
	if got.Status.LastOperation == nil || res.Message != got.Status.LastOperation.Description {
		t.Fatalf("Failed: kstatus message %q, want lastOperation's description (%+v)", res.Message, got.Status.LastOperation)
	}

	// Recovery removes Stalled: Current again.
	env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.WaitPhase(t, ns, name, v1alpha1.MachinePhaseRunning)
	waitKstatus(t, ns, name, status.CurrentStatus)
	if c := env.GetMachine(t, ns, name); hasCondition(c, v1alpha1.MachineStalledCondition) {
		t.Fatalf("Stalled is still set after recovery: %s", harness.Describe(c))
	}

	// Deleting: Terminating.
	if err := k8s.Delete(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
		t.Fatal(err)
	}
	waitKstatus(t, ns, name, status.TerminatingStatus)
}

func hasCondition(m *v1alpha1.Machine, t string) bool { return findCondition(m, t) != nil }

func findCondition(m *v1alpha1.Machine, t string) *metav1.Condition {
	for i := range m.Status.Conditions {
		if m.Status.Conditions[i].Type == t {
			return &m.Status.Conditions[i]
		}
	}
	return nil
}
