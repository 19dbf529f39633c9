package controllers_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestHealthCheckRequeuesAtDeadline: after the Node turns NotReady nothing else changes, so only
// the reconciler's requeue at the deadline can turn the Machine Failed. Issue 12's instance: the
// Node's clock is an hour ahead (or behind), so the Ready=False it reports carries a
// lastTransitionTime an hour off; the check still fails its timeout after the controller saw
// the Node go NotReady, not an hour later (or at once).
func TestHealthCheckRequeuesAtDeadline(t *testing.T) {
	for _, c := range []struct {
		name string
		skew time.Duration
	}{{"same clock", 0}, {"Node clock ahead", time.Hour}, {"Node clock behind", -time.Hour}} {
		t.Run(c.name, func(t *testing.T) {
			ns := env.Namespace(t)
			pid := "fake://" + ns + "/skew"
			env.CreateInfra(t, ns, "skew", map[string]any{"providerID": pid}, provisionedStatus)
			env.CreateNode(t, ns+"-skew", pid, "v1.36.3", corev1.ConditionTrue, time.Now().Add(c.skew))
			m := harness.NewMachine(ns, "skew")
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: 3},
			}}
			env.Create(t, m)
			env.WaitPhase(t, ns, "skew", v1alpha1.MachinePhaseRunning)

			flipped := time.Now()
			env.UpdateNode(t, ns+"-skew", func(n *corev1.Node) {
				n.Status.Conditions = []corev1.NodeCondition{harness.ReadyCondition(corev1.ConditionFalse, flipped.Add(c.skew))}
			})
			got := env.WaitPhase(t, ns, "skew", v1alpha1.MachinePhaseFailed)
			hc := conditions.Get(got, v1alpha1.MachineHealthCheckSucceededCondition)
			if hc.Reason != v1alpha1.MachineHealthCheckUnhealthyNodeReason {
				t.Fatalf("HealthCheckSucceeded reason %q", hc.Reason)
			}
			// Not early: at or after the 3 s timeout from when the Node turned (second precision).
			if hc.LastTransitionTime.Time.Before(flipped.Truncate(time.Second).Add(3 * time.Second)) {
				t.Fatalf("failed at %s, before %s", hc.LastTransitionTime, flipped.Add(3*time.Second))
			}
			seen := got.Status.HealthCheck
			if seen == nil || len(seen.UnhealthyNodeConditions) != 1 || seen.UnhealthyNodeConditions[0].Since.Time.Before(flipped.Truncate(time.Second)) {
				t.Fatalf("status.healthCheck %+v: want Ready=False first seen at or after %s", seen, flipped)
			}
		})
	}
}

// TestPausedRewritesNothingElse: with the paused annotation only Paused changes, even when the
// world does; without it, the status catches up.
func TestPausedRewritesNothingElse(t *testing.T) {
	ns := env.Namespace(t)
	pid := "fake://" + ns + "/p"
	env.CreateInfra(t, ns, "p", map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, ns+"-p", pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.Create(t, harness.NewMachine(ns, "p"))
	env.WaitPhase(t, ns, "p", v1alpha1.MachinePhaseRunning)

	env.UpdateMachine(t, ns, "p", func(m *v1alpha1.Machine) {
		m.Annotations = map[string]string{v1alpha1.PausedAnnotation: ""}
	})
	var paused *v1alpha1.Machine
	harness.Wait(t, harness.MachineTimeout, "Paused=True", func(context.Context) (bool, string) {
		paused = env.GetMachine(t, ns, "p")
		if !conditions.IsTrue(paused, v1alpha1.MachinePausedCondition) {
			return false, harness.Describe(paused)
		}
		return true, ""
	})
	env.UpdateNode(t, ns+"-p", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	time.Sleep(2 * time.Second) // give a (wrong) reconcile time to happen
	if got := env.GetMachine(t, ns, "p"); got.Status.Phase != v1alpha1.MachinePhaseRunning || conditions.IsTrue(got, v1alpha1.MachineDrainingCondition) {
		t.Fatalf("a paused Machine was rewritten: %s", harness.Describe(got))
	}

	env.UpdateMachine(t, ns, "p", func(m *v1alpha1.Machine) { m.Annotations = nil })
	got := env.WaitPhase(t, ns, "p", v1alpha1.MachinePhaseDraining)
	if !conditions.IsFalse(got, v1alpha1.MachinePausedCondition) {
		t.Fatalf("Paused not False after unpausing: %s", harness.Describe(got))
	}
}

// TestUnreadableReferences: a malformed infrastructure status, a kind the API server does not
// serve, and a bootstrap config read through the contract all end in clear conditions.
func TestUnreadableReferences(t *testing.T) {
	ns := env.Namespace(t)

	env.CreateInfra(t, ns, "bad", map[string]any{}, map[string]any{"ready": "yes"})
	env.Create(t, harness.NewMachine(ns, "bad"))
	harness.Wait(t, harness.MachineTimeout, "InfrastructureContractViolation", func(context.Context) (bool, string) {
		m := env.GetMachine(t, ns, "bad")
		c := conditions.Get(m, v1alpha1.MachineInfrastructureReadyCondition)
		if c == nil || c.Reason != v1alpha1.MachineInfrastructureContractViolationReason || c.Status != "Unknown" {
			return false, harness.Describe(m)
		}
		if want := "FakeMachine bad does not follow the contract: status.ready"; len(c.Message) < len(want) || c.Message[:len(want)] != want {
			return false, "message: " + c.Message
		}
		return true, ""
	})

	m := harness.NewMachine(ns, "nokind")
	m.Spec.InfrastructureRef.Kind = "NotInstalled"
	env.Create(t, m)
	harness.Wait(t, harness.MachineTimeout, "kind not served", func(context.Context) (bool, string) {
		got := env.GetMachine(t, ns, "nokind")
		if conditions.GetReason(got, v1alpha1.MachineInfrastructureReadyCondition) != v1alpha1.MachineInfrastructureKindNotServedReason {
			return false, harness.Describe(got)
		}
		return true, ""
	})

	// Any kind can be a bootstrap config: here a FakeMachine with the v1beta2 bootstrap fields.
	env.CreateInfra(t, ns, "boot", map[string]any{}, map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": "boot-data"})
	env.CreateInfra(t, ns, "withboot", map[string]any{}, map[string]any{"initialization": map[string]any{"provisioned": false}})
	m = harness.NewMachine(ns, "withboot")
	m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: harness.InfraGroup, Kind: harness.InfraKind, Name: "boot"}}
	env.Create(t, m)
	got := env.WaitPhase(t, ns, "withboot", v1alpha1.MachinePhaseProvisioning)
	if r := conditions.GetReason(got, v1alpha1.MachineBootstrapConfigReadyCondition); r != v1alpha1.MachineBootstrapDataSecretCreatedReason {
		t.Fatalf("BootstrapConfigReady reason %q: %s", r, harness.Describe(got))
	}
}
