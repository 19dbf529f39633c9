package status

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestHealthCheckTimersIgnoreRewrittenTransitionTimes: some node agents (KubeEdge's edgecore,
// node-problem-detector) rewrite a Node condition's lastTransitionTime on every sync although its
// status does not change. The timers count from what the controller observed: a status it saw
// continuously keeps its first observation, whatever lastTransitionTime says; only a status
// change the controller saw starts the timer again. Each row: a Node whose condition is
// rewritten every 10 s for an hour, reconciled at each rewrite; the check must fail at the
// timeout counted from the first observation and say since when.
func TestHealthCheckTimersIgnoreRewrittenTransitionTimes(t *testing.T) {
	npd := func(m *v1alpha1.Machine) {
		m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
			{Type: "KernelDeadlock", Status: corev1.ConditionTrue, TimeoutSeconds: 600},
		}}
	}
	cases := []struct {
		name      string
		machine   func(*v1alpha1.Machine)
		condition corev1.NodeConditionType
		status    corev1.ConditionStatus
		skew      time.Duration // the agent's clock against the controller's
		failsAt   int           // seconds after the first observation
	}{
		{name: "Ready=False rewritten (KubeEdge)", condition: corev1.NodeReady, status: corev1.ConditionFalse, failsAt: 300},
		{name: "Ready=Unknown rewritten", condition: corev1.NodeReady, status: corev1.ConditionUnknown, failsAt: 300},
		{name: "Ready=False rewritten by an agent whose clock is an hour ahead", condition: corev1.NodeReady, status: corev1.ConditionFalse, skew: time.Hour, failsAt: 300},
		{name: "Ready=False rewritten by an agent whose clock is 10 minutes behind", condition: corev1.NodeReady, status: corev1.ConditionFalse, skew: -10 * time.Minute, failsAt: 300},
		{name: "node-problem-detector's KernelDeadlock=True rewritten, 10 minute timeout", machine: npd, condition: "KernelDeadlock", status: corev1.ConditionTrue, failsAt: 600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))}}
			if tc.machine != nil {
				tc.machine(m)
			}
			reconcileAt(t, m, node(corev1.ConditionTrue, at(-3000)), at(-10))
			failedAt := -1 // never
			var message string
			for now := 0; now <= 3600; now += 10 {
				n := node(corev1.ConditionTrue, at(-3000), func(n *corev1.Node) {
					c := corev1.NodeCondition{Type: tc.condition, Status: tc.status, Reason: "Rewritten",
						LastTransitionTime: metav1.NewTime(at(now).Add(tc.skew))}
					if tc.condition == corev1.NodeReady {
						n.Status.Conditions = []corev1.NodeCondition{c}
					} else {
						n.Status.Conditions = append(n.Status.Conditions, c)
					}
				})
				verdict, _ := reconcileAt(t, m, n, at(now))
				if verdict != "True" && failedAt < 0 {
					failedAt, message = now, conditions.GetMessage(m, v1alpha1.MachineHealthCheckSucceededCondition)
					if verdict != "False/UnhealthyNode" {
						t.Fatalf("at(%d): %s, want False/UnhealthyNode", now, verdict)
					}
				}
			}
			if failedAt != tc.failsAt {
				t.Fatalf("the check failed at(%d) (-1: never), want at(%d) (the timeout from the first observation)", failedAt, tc.failsAt)
			}
			if since := at(0).UTC().Format(time.RFC3339); !strings.Contains(message, "since "+since) {
				t.Errorf("message %q does not date the condition from the first observation, %s", message, since)
			}
		})
	}
}

// TestHealthCheckTimerRestartsOnASeenChange: the timer starts again only when the controller saw
// the condition leave the unhealthy status (or saw the Node gone); the rewritten
// lastTransitionTime alone never restarts it.
func TestHealthCheckTimerRestartsOnASeenChange(t *testing.T) {
	notReady := func(ltt int) *corev1.Node { return node(corev1.ConditionFalse, at(ltt)) }
	steps := []struct {
		now   int
		node  *corev1.Node
		since string // status.healthCheck's Ready entry, "" none
	}{
		{0, notReady(-40), "0"},
		{200, notReady(150), "0"},                      // lastTransitionTime moved, no change seen: the timer goes on
		{250, node(corev1.ConditionTrue, at(240)), ""}, // Ready seen: the timer stops
		{260, notReady(255), "260"},                    // NotReady again: it starts again
		{400, notReady(399), "260"},
	}
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))}}
	reconcileAt(t, m, node(corev1.ConditionTrue, at(-3000)), at(-10))
	for _, s := range steps {
		reconcileAt(t, m, s.node, at(s.now))
		got := ""
		if hc := m.Status.HealthCheck; hc != nil {
			if o := observed(hc.UnhealthyNodeConditions, corev1.NodeReady); o != nil {
				got = fmt.Sprint(int(o.Since.Sub(at(0)).Seconds()))
			}
		}
		if d := cmp.Diff(s.since, got); d != "" {
			t.Fatalf("at(%d): since (-want +got):\n%s", s.now, d)
		}
	}
}
