package controllers_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

var provisionedStatus = map[string]any{"initialization": map[string]any{"provisioned": true}}

// waitReason waits until the Machine's condition t has the given status and reason.
func waitReason(t *testing.T, ns, name, typ string, status metav1.ConditionStatus, reason string) *v1alpha1.Machine {
	t.Helper()
	var m *v1alpha1.Machine
	harness.Wait(t, harness.MachineTimeout, typ+"="+string(status)+" "+reason, func(context.Context) (bool, string) {
		m = env.GetMachine(t, ns, name)
		if c := conditions.Get(m, typ); c == nil || c.Status != status || c.Reason != reason {
			return false, harness.Describe(m)
		}
		return true, ""
	})
	return m
}

func deleteNode(t *testing.T, name string) {
	t.Helper()
	if err := k8s.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// TestNodeIdentity walks a Machine's Node through issue 12's shapes against the API server: the
// Node is the one with the Machine's providerID, never the one with the recorded name.
func TestNodeIdentity(t *testing.T) {
	ns := env.Namespace(t)
	hostA, hostB := "aws:///eu-west-1a/"+ns+"-i-0aaa", "aws:///eu-west-1b/"+ns+"-i-0bbb"
	name, renamed := ns+"-ip-10-0-0-1", ns+"-ip-10-0-0-7"
	env.CreateInfra(t, ns, "m", map[string]any{"providerID": hostA}, provisionedStatus)
	env.CreateNode(t, name, hostA, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.Create(t, harness.NewMachine(ns, "m"))
	if got := env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseRunning); got.Status.NodeRef == nil || got.Status.NodeRef.Name != name {
		t.Fatalf("nodeRef %v, want %s", got.Status.NodeRef, name)
	}

	// The host's Node goes away and another host registers a Ready Node under the same name.
	deleteNode(t, name)
	env.CreateNode(t, name, hostB, "v1.36.3", corev1.ConditionTrue, time.Now())
	waitReason(t, ns, "m", v1alpha1.MachineNodeReadyCondition, metav1.ConditionUnknown, v1alpha1.MachineNodeDeletedReason)
	got := env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseFailed)
	if got.Status.NodeRef.Name != name {
		t.Fatalf("nodeRef %v, want %s", got.Status.NodeRef, name)
	}

	// The Machine's host registers again, under another name: it is the Machine's Node.
	env.CreateNode(t, renamed, hostA, "v1.36.3", corev1.ConditionTrue, time.Now())
	if got = env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseRunning); got.Status.NodeRef.Name != renamed {
		t.Fatalf("nodeRef %v, want %s", got.Status.NodeRef, renamed)
	}
}

// TestNodeIdentityLearnedLater: a Node registered before its providerID was known to the
// Machine (the infrastructure object reports it later), and a Node registered before the cloud
// controller set its providerID, become the Machine's Node when the providerIDs meet.
func TestNodeIdentityLearnedLater(t *testing.T) {
	ns := env.Namespace(t)

	pid := "fake://" + ns + "/later"
	env.CreateNode(t, ns+"-later", pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.CreateInfra(t, ns, "later", map[string]any{}, provisionedStatus)
	env.Create(t, harness.NewMachine(ns, "later"))
	waitReason(t, ns, "later", v1alpha1.MachineNodeReadyCondition, metav1.ConditionUnknown, v1alpha1.MachineNodeDoesNotExistReason)
	u := env.GetInfra(t, ns, "later")
	u.Object["spec"] = map[string]any{"providerID": pid}
	if err := k8s.Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if got := env.WaitPhase(t, ns, "later", v1alpha1.MachinePhaseRunning); got.Status.ProviderID != pid {
		t.Fatalf("status.providerID %q, want %q", got.Status.ProviderID, pid)
	}

	cloud := "fake://" + ns + "/cloud"
	env.CreateNode(t, ns+"-cloud", "", "v1.36.3", corev1.ConditionTrue, time.Now())
	env.CreateInfra(t, ns, "cloud", map[string]any{"providerID": cloud}, provisionedStatus)
	env.Create(t, harness.NewMachine(ns, "cloud"))
	waitReason(t, ns, "cloud", v1alpha1.MachineNodeReadyCondition, metav1.ConditionUnknown, v1alpha1.MachineNodeDoesNotExistReason)
	env.UpdateNode(t, ns+"-cloud", func(n *corev1.Node) { n.Spec.ProviderID = cloud })
	if got := env.WaitPhase(t, ns, "cloud", v1alpha1.MachinePhaseRunning); got.Status.NodeRef == nil || got.Status.NodeRef.Name != ns+"-cloud" {
		t.Fatalf("nodeRef %v, want %s", got.Status.NodeRef, ns+"-cloud")
	}
}
