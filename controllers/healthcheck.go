package controllers

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// healthCheckSpec returns the Machine's health-check settings with the defaults filled in.
func healthCheckSpec(m *v1alpha1.Machine) (startup time.Duration, unhealthy []v1alpha1.UnhealthyNodeCondition) {
	startup = time.Duration(v1alpha1.DefaultNodeStartupTimeoutSeconds) * time.Second
	if hc := m.Spec.HealthCheck; hc != nil {
		if hc.NodeStartupTimeoutSeconds != nil {
			startup = time.Duration(*hc.NodeStartupTimeoutSeconds) * time.Second
		}
		unhealthy = hc.UnhealthyNodeConditions
	}
	if len(unhealthy) == 0 {
		unhealthy = []v1alpha1.UnhealthyNodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: v1alpha1.DefaultUnhealthyTimeoutSeconds},
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: v1alpha1.DefaultUnhealthyTimeoutSeconds},
		}
	}
	return startup, unhealthy
}

// setHealthCheckSucceededCondition evaluates the health-check timers at now and returns the next
// deadline at which the verdict may change (zero when none is pending). Elapsed time is measured
// from the Node condition's own lastTransitionTime, and from InfrastructureReady's for the
// startup timeout. Messages name fixed instants, never "for N minutes", so that an unchanged
// world gives an unchanged condition.
//
// Rules, first match wins:
//   - deleting or standby: True, the check is suspended;
//   - the Node was deleted after it registered: False NodeDeleted at once;
//   - no Node: False NodeStartupTimeout once nodeStartupTimeoutSeconds have passed since
//     InfrastructureReady became True, else True (waiting);
//   - a Node condition matching an unhealthyNodeConditions entry for longer than its timeout:
//     False UnhealthyNode;
//   - otherwise True.
func setHealthCheckSucceededCondition(w *conditionWriter, node *corev1.Node, now time.Time) time.Time {
	const t = v1alpha1.MachineHealthCheckSucceededCondition
	m := w.m
	startup, unhealthy := healthCheckSpec(m)
	switch {
	case !m.DeletionTimestamp.IsZero():
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, "health check suspended while the Machine is deleted")
		return time.Time{}
	case m.Spec.Standby:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, "health check suspended while the Machine is in standby")
		return time.Time{}
	case node == nil && m.Status.NodeRef != nil:
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineHealthCheckNodeDeletedReason, "Node "+m.Status.NodeRef.Name+" was deleted")
		return time.Time{}
	case node == nil:
		infra := conditions.Get(m, v1alpha1.MachineInfrastructureReadyCondition)
		if infra == nil || infra.Status != metav1.ConditionTrue {
			w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, "waiting for the infrastructure before starting the Node startup timer")
			return time.Time{}
		}
		deadline := infra.LastTransitionTime.Add(startup)
		if !now.Before(deadline) {
			w.set(t, metav1.ConditionFalse, v1alpha1.MachineHealthCheckNodeStartupTimeoutReason,
				fmt.Sprintf("no Node registered within %s of the infrastructure becoming ready (at %s)", startup, stamp(infra.LastTransitionTime.Time)))
			return time.Time{}
		}
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason,
			fmt.Sprintf("waiting for a Node; startup timeout at %s", stamp(deadline)))
		return deadline
	}

	var next time.Time
	var pending string
	for _, u := range unhealthy {
		c := nodeCondition(node, u.Type)
		if c == nil || c.Status != u.Status {
			continue
		}
		timeout := time.Duration(u.TimeoutSeconds) * time.Second
		since := c.LastTransitionTime.Time
		if since.IsZero() {
			since = node.CreationTimestamp.Time
		}
		deadline := since.Add(timeout)
		if !now.Before(deadline) {
			w.set(t, metav1.ConditionFalse, v1alpha1.MachineHealthCheckUnhealthyNodeReason,
				fmt.Sprintf("Node %s has had %s=%s since %s, longer than %s", node.Name, u.Type, u.Status, stamp(since), timeout))
			return time.Time{}
		}
		if next.IsZero() || deadline.Before(next) {
			next = deadline
			pending = fmt.Sprintf("Node %s has had %s=%s since %s; the check fails at %s", node.Name, u.Type, u.Status, stamp(since), stamp(deadline))
		}
	}
	w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, pending)
	return next
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
