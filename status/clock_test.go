package status

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// reconcileAt computes m's status at now from node, as a manager started afresh would: the
// status is read back from its JSON form (what the API server stores), so nothing but the
// stored status carries over from one call to the next. It returns the health check's verdict
// ("True" or "False/Reason") and the next deadline.
func reconcileAt(t *testing.T, m *v1alpha1.Machine, node *corev1.Node, now time.Time) (string, time.Time) {
	t.Helper()
	js, err := json.Marshal(m.Status)
	if err != nil {
		t.Fatal(err)
	}
	m.Status = v1alpha1.MachineStatus{}
	if err := json.Unmarshal(js, &m.Status); err != nil {
		t.Fatal(err)
	}
	in := Inputs{Now: now, Infra: provisioned()}
	if node != nil {
		in.Node = node.DeepCopy()
	}
	next, err := Compute(m, in)
	if err != nil {
		t.Fatal(err)
	}
	c := conditions.Get(m, v1alpha1.MachineHealthCheckSucceededCondition)
	if c.Status == metav1.ConditionTrue {
		return "True", next
	}
	return string(c.Status) + "/" + c.Reason, next
}

// TestHealthCheckOnTheControllersClock: the Node's Ready condition turns False or Unknown when
// the controller's clock reads at(0), but the Node's clock (or the node lifecycle
// controller's) is skewed, so its lastTransitionTime is off by the skew. The default 300 s
// timeout counts from when the controller saw it, whatever the skew: True until at(300), False
// from at(300), and the requeue is at at(300). Issue 12's instance is the 1 h ahead row (today:
// the deadline is at(3900), and at(360) the check still succeeds); a clock behind made the check
// fail at once.
func TestHealthCheckOnTheControllersClock(t *testing.T) {
	type result struct {
		Next                     time.Time
		At0, At299, At300, At360 string
	}
	want := result{Next: at(300), At0: "True", At299: "True", At300: "False/UnhealthyNode", At360: "False/UnhealthyNode"}
	for _, status := range []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionUnknown} {
		for _, skew := range []time.Duration{time.Hour, 5 * time.Minute, time.Second, 0, -time.Second, -5 * time.Minute, -time.Hour, -24 * time.Hour} {
			t.Run(fmt.Sprintf("Ready=%s, Node clock %+v", status, skew), func(t *testing.T) {
				m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))}}
				reconcileAt(t, m, node(corev1.ConditionTrue, at(-3000).Add(skew)), at(-10))
				n := node(status, at(0).Add(skew))
				var got result
				got.At0, got.Next = reconcileAt(t, m, n, at(0))
				got.At299, _ = reconcileAt(t, m, n, at(299))
				got.At300, _ = reconcileAt(t, m, n, at(300))
				got.At360, _ = reconcileAt(t, m, n, at(360))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestHealthCheckTimers: how the timers start, continue and stop, each step a reconcile by a
// manager started afresh (reconcileAt). The observation time is stored in
// status.healthCheck, so a restart restarts no timer, and an unchanged world gives an unchanged
// status (no write) however late the reconcile comes.
func TestHealthCheckTimers(t *testing.T) {
	notReady := func(ltt time.Time) *corev1.Node { return node(corev1.ConditionFalse, ltt) }
	standby := func(on bool) func(*v1alpha1.Machine) { return func(m *v1alpha1.Machine) { m.Spec.Standby = on } }
	type step struct {
		now     int
		node    *corev1.Node
		machine func(*v1alpha1.Machine)
		verdict string
		next    time.Time
		since   time.Time // status.healthCheck's Ready entry; zero for none
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"restarts restart no timer", []step{
			{now: 0, node: notReady(at(3600)), verdict: "True", next: at(300), since: at(0)},
			{now: 100, node: notReady(at(3600)), verdict: "True", next: at(300), since: at(0)},
			{now: 299, node: notReady(at(3600)), verdict: "True", next: at(300), since: at(0)},
			{now: 300, node: notReady(at(3600)), verdict: "False/UnhealthyNode", since: at(0)},
		}},
		{"a new lastTransitionTime without a change seen (an agent rewrote it, or a flap faster than a reconcile): the timer goes on", []step{
			{now: 0, node: notReady(at(-40)), verdict: "True", next: at(300), since: at(0)},
			{now: 200, node: notReady(at(150)), verdict: "True", next: at(300), since: at(0)},
			{now: 299, node: notReady(at(150)), verdict: "True", next: at(300), since: at(0)},
			{now: 300, node: notReady(at(150)), verdict: "False/UnhealthyNode", since: at(0)},
		}},
		{"Ready again, then NotReady again", []step{
			{now: 0, node: notReady(at(0)), verdict: "True", next: at(300), since: at(0)},
			{now: 250, node: node(corev1.ConditionTrue, at(240)), verdict: "True"},
			{now: 260, node: notReady(at(255)), verdict: "True", next: at(560), since: at(260)},
		}},
		{"a Node condition without lastTransitionTime", []step{
			{now: 0, node: notReady(time.Time{}), verdict: "True", next: at(300), since: at(0)},
			{now: 300, node: notReady(time.Time{}), verdict: "False/UnhealthyNode", since: at(0)},
		}},
		{"standby stops the timers; they start again when it ends", []step{
			{now: 0, node: notReady(at(0)), verdict: "True", next: at(300), since: at(0)},
			{now: 100, node: notReady(at(0)), machine: standby(true), verdict: "True"},
			{now: 1000, node: notReady(at(0)), machine: standby(false), verdict: "True", next: at(1300), since: at(1000)},
			{now: 1300, node: notReady(at(0)), verdict: "False/UnhealthyNode", since: at(1000)},
		}},
		{"the Node is deleted: no timer, the check fails at once", []step{
			{now: 0, node: notReady(at(0)), verdict: "True", next: at(300), since: at(0)},
			{now: 10, verdict: "False/NodeDeleted"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-3600))}}
			reconcileAt(t, m, node(corev1.ConditionTrue, at(-3000)), at(-10))
			for _, s := range c.steps {
				if s.machine != nil {
					s.machine(m)
				}
				verdict, next := reconcileAt(t, m, s.node, at(s.now))
				var since time.Time
				if hc := m.Status.HealthCheck; hc != nil {
					if o := observed(hc.UnhealthyNodeConditions, corev1.NodeReady); o != nil {
						since = o.Since.Time
					}
				}
				type result struct {
					Verdict     string
					Next, Since time.Time
				}
				if diff := cmp.Diff(result{s.verdict, s.next, s.since}, result{verdict, next, since}); diff != "" {
					t.Fatalf("at(%d) (-want +got):\n%s", s.now, diff)
				}
				// Nothing changed in the world: a reconcile a little later writes the same status.
				if s.next.IsZero() || at(s.now+1).Before(s.next) {
					again := m.DeepCopy()
					reconcileAt(t, again, s.node, at(s.now+1))
					if diff := cmp.Diff(m.Status, again.Status, timeEqual); diff != "" {
						t.Fatalf("at(%d) then at(%d): the status changed (-first +second):\n%s", s.now, s.now+1, diff)
					}
				}
			}
		})
	}
}
