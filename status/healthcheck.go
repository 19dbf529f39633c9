package status

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
// deadline at which the verdict may change (zero when none is pending). Messages name fixed
// instants, never "for N minutes", so that an unchanged world gives an unchanged condition.
//
// Every timer counts on the controller's clock (now), never from a time another clock wrote:
// the startup timeout from InfrastructureReady's lastTransitionTime (our condition), an
// unhealthy Node condition from when the controller first saw it (status.healthCheck, see
// observeUnhealthy), so that a Node clock ahead or behind moves no deadline, and a restart of
// the controller restarts no timer.
//
// Rules, first match wins:
//   - deleting or standby: True, the check is suspended (its timers stop);
//   - the Node was deleted after it registered: False NodeDeleted at once;
//   - no Node: False NodeStartupTimeout once nodeStartupTimeoutSeconds have passed since
//     InfrastructureReady became True, else True (waiting);
//   - a Node condition matching an unhealthyNodeConditions entry for longer than its timeout
//     since the controller first saw it: False UnhealthyNode;
//   - otherwise True.
func setHealthCheckSucceededCondition(w *conditionWriter, node *corev1.Node, now time.Time) time.Time {
	const t = v1alpha1.MachineHealthCheckSucceededCondition
	m := w.m
	startup, unhealthy := healthCheckSpec(m)
	var seen []v1alpha1.ObservedNodeCondition
	if node != nil && m.DeletionTimestamp.IsZero() && !m.Spec.Standby {
		var prev []v1alpha1.ObservedNodeCondition
		if m.Status.HealthCheck != nil {
			prev = m.Status.HealthCheck.UnhealthyNodeConditions
		}
		seen = observeUnhealthy(prev, node, unhealthy, now)
	}
	m.Status.HealthCheck = nil
	if len(seen) > 0 {
		m.Status.HealthCheck = &v1alpha1.MachineHealthCheckStatus{UnhealthyNodeConditions: seen}
	}

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
		o := observed(seen, u.Type)
		if o == nil || o.Status != u.Status {
			continue
		}
		timeout := time.Duration(u.TimeoutSeconds) * time.Second
		since := o.Since.Time
		deadline := since.Add(timeout)
		if !now.Before(deadline) {
			w.set(t, metav1.ConditionFalse, v1alpha1.MachineHealthCheckUnhealthyNodeReason,
				fmt.Sprintf("Node %s has had %s=%s since %s (first seen by the controller), longer than %s", node.Name, u.Type, u.Status, stamp(since), timeout))
			return time.Time{}
		}
		if next.IsZero() || deadline.Before(next) {
			next = deadline
			pending = fmt.Sprintf("Node %s has had %s=%s since %s (first seen by the controller); the check fails at %s", node.Name, u.Type, u.Status, stamp(since), stamp(deadline))
		}
	}
	w.set(t, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, pending)
	return next
}

// observeUnhealthy returns the Node conditions of node that match an entry of unhealthy, in
// the entries' order, each with the time the controller first saw it so: taken from prev
// (status.healthCheck) when prev holds the same type and status, else now (seconds, as stored).
// The timer so counts from what the controller observed: only a status change it sees (the
// condition in another status, missing, or no Node) starts it again. A new lastTransitionTime
// alone does not, since some node agents rewrite it on every sync; a flap faster than a
// reconcile is not seen. The result depends only on its inputs: an unchanged Node gives the
// same list.
func observeUnhealthy(prev []v1alpha1.ObservedNodeCondition, node *corev1.Node, unhealthy []v1alpha1.UnhealthyNodeCondition, now time.Time) []v1alpha1.ObservedNodeCondition {
	var seen []v1alpha1.ObservedNodeCondition
	for _, u := range unhealthy {
		c := nodeCondition(node, u.Type)
		if c == nil || c.Status != u.Status || observed(seen, u.Type) != nil {
			continue
		}
		var nodeTime *metav1.Time
		if !c.LastTransitionTime.IsZero() {
			nodeTime = c.LastTransitionTime.DeepCopy()
		}
		if p := observed(prev, u.Type); p != nil && p.Status == c.Status {
			seen = append(seen, *p.DeepCopy())
			continue
		}
		seen = append(seen, v1alpha1.ObservedNodeCondition{
			Type: u.Type, Status: c.Status, NodeLastTransitionTime: nodeTime,
			Since: conditions.StoredTime(now),
		})
	}
	return seen
}

// observed returns the entry of list with type t, or nil.
func observed(list []v1alpha1.ObservedNodeCondition, t corev1.NodeConditionType) *v1alpha1.ObservedNodeCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
