package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestTwoNodesCarryTheProviderID: a bare-metal host reprovisioned registers again under a new
// name while its old Node object, NotReady, stays. With no nodeRef yet, and with a nodeRef
// naming the stale Node, the Machine follows the Ready Node, and NodeReady's message names both
// Nodes.
func TestTwoNodesCarryTheProviderID(t *testing.T) {
	ns := env.Namespace(t)
	host := "metal3://" + ns + "/host-7"
	stale, live := ns+"-host-7-old", ns+"-host-7"
	env.CreateInfra(t, ns, "m", map[string]any{"providerID": host}, provisionedStatus)
	env.CreateNode(t, stale, host, "v1.36.3", corev1.ConditionUnknown, time.Now().Add(-time.Hour))
	env.CreateNode(t, live, host, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.Create(t, harness.NewMachine(ns, "m"))
	m := waitReason(t, ns, "m", v1alpha1.MachineNodeReadyCondition, metav1.ConditionTrue, v1alpha1.MachineNodeReadyReason)
	checkBothNamed(t, m, stale, live)

	// The other case: nodeRef names the stale Node (the Machine followed it before the host was
	// reprovisioned), and the live one is Ready.
	env.CreateInfra(t, ns, "m2", map[string]any{"providerID": host + "-2"}, provisionedStatus)
	env.CreateNode(t, stale+"-2", host+"-2", "v1.36.3", corev1.ConditionTrue, time.Now())
	env.Create(t, harness.NewMachine(ns, "m2"))
	env.WaitPhase(t, ns, "m2", v1alpha1.MachinePhaseRunning)
	env.UpdateNode(t, stale+"-2", func(n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{harness.ReadyCondition(corev1.ConditionUnknown, time.Now())}
	})
	env.CreateNode(t, live+"-2", host+"-2", "v1.36.3", corev1.ConditionTrue, time.Now())
	harness.Wait(t, harness.MachineTimeout, "m2 follows the live Node", func(context.Context) (bool, string) {
		m := env.GetMachine(t, ns, "m2")
		return m.Status.NodeRef != nil && m.Status.NodeRef.Name == live+"-2" && conditions.IsTrue(m, v1alpha1.MachineNodeReadyCondition), harness.Describe(m)
	})
	checkBothNamed(t, env.GetMachine(t, ns, "m2"), stale+"-2", live+"-2")
}

// checkBothNamed checks that m follows live and that NodeReady's message names both Nodes.
func checkBothNamed(t *testing.T, m *v1alpha1.Machine, stale, live string) {
	t.Helper()
	if m.Status.NodeRef == nil || m.Status.NodeRef.Name != live {
		t.Errorf("nodeRef %v, want %s", m.Status.NodeRef, live)
	}
	msg := conditions.GetMessage(m, v1alpha1.MachineNodeReadyCondition)
	if !strings.Contains(msg, stale) || !strings.Contains(msg, live) {
		t.Errorf("NodeReady's message %q does not name both Nodes %s and %s", msg, stale, live)
	}
}
