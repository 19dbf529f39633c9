package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestInstalledOnARunningFleet: Machines whose Nodes registered an hour ago, created before any
// manager ran (no status.lastOperation, no history), then the manager starts. Its first
// reconcile derives lastOperation from what the objects show (docs/rules.md,
// "Without history"): a registered Node means creation finished, so a Node NotReady for an hour
// is a health check (Processing while its timer runs, Failed once it ran out), never a creation
// (Create Processing, then Create Failed), not even in a first write corrected later.
func TestInstalledOnARunningFleet(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	hourAgo := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	type node struct {
		ready corev1.ConditionStatus
		// timeoutSeconds, when set, is the Machine's timeout for a NotReady Node (else the
		// default, DefaultUnhealthyTimeoutSeconds, which the test does not outlast).
		timeoutSeconds int32
	}
	nodes := map[string]node{
		"ready":       {ready: corev1.ConditionTrue},
		"not-ready":   {ready: corev1.ConditionFalse},
		"unreachable": {ready: corev1.ConditionUnknown},
		"timed-out":   {ready: corev1.ConditionFalse, timeoutSeconds: 1},
	}
	for name, n := range nodes {
		providerID := fmt.Sprintf("fake://%s/%s", ns, name)
		env.CreateNode(t, ns+"-"+name, providerID, "v1.36.0", n.ready, hourAgo.Time)
		newMachine(t, ns, name, func(m *v1alpha1.Machine) {
			m.Labels = map[string]string{"fleet": ns}
			m.Spec.ProviderID = providerID
			if n.timeoutSeconds > 0 {
				m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: n.timeoutSeconds},
				}}
			}
		})
	}

	// Every (lastOperation type, state, phase) each Machine's status goes through, from a watch
	// started before the manager: its first write must already be right.
	history := env.WatchHistory(t, &v1alpha1.MachineList{}, ns, func(o client.Object) (string, bool) {
		m, ok := o.(*v1alpha1.Machine)
		if !ok || (m.Status.LastOperation == nil && m.Status.Phase == "") {
			return "", false // not written yet
		}
		op := m.Status.LastOperation
		if op == nil {
			return fmt.Sprintf("no lastOperation, phase %s", m.Status.Phase), true
		}
		return fmt.Sprintf("%s %s, phase %s", op.Type, op.State, m.Status.Phase), true
	})
	startShard(t, "fleet="+ns, "running-fleet")

	// (lastOperation type, state, phase) per Machine.
	want := map[string][3]string{
		"ready":       {string(v1alpha1.MachineOperationCreate), string(v1alpha1.MachineOperationStateSuccessful), string(v1alpha1.MachinePhaseRunning)},
		"not-ready":   {string(v1alpha1.MachineOperationHealthCheck), string(v1alpha1.MachineOperationStateProcessing), string(v1alpha1.MachinePhaseUnknown)},
		"unreachable": {string(v1alpha1.MachineOperationHealthCheck), string(v1alpha1.MachineOperationStateProcessing), string(v1alpha1.MachinePhaseUnknown)},
		"timed-out":   {string(v1alpha1.MachineOperationHealthCheck), string(v1alpha1.MachineOperationStateFailed), string(v1alpha1.MachinePhaseFailed)},
	}
	got := map[string][3]string{}
	// Polled until equal: the timed-out Machine reads HealthCheck Processing until its timer
	// runs out. A timeout is reported by the diff below.
	_ = harness.Poll(ctx, 2*time.Minute, func(ctx context.Context) (bool, string) {
		for name := range want {
			m := &v1alpha1.Machine{}
			if err := k8s.Get(ctx, keyOf(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}), m); err != nil {
				return false, err.Error()
			}
			if op := m.Status.LastOperation; op != nil && m.Status.NodeRef != nil {
				got[name] = [3]string{string(op.Type), string(op.State), string(m.Status.Phase)}
			}
		}
		return cmp.Equal(want, got), fmt.Sprintf("got %v", got)
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(lastOperation type, state, phase) per Machine (-want +got):\n%s", diff)
	}
	// Nothing else, ever: the timed-out Machine may read HealthCheck Processing before Failed.
	healthCheckProcessing := "HealthCheck Processing, phase Unknown"
	allowed := map[string][]string{
		"ready":       {"Create Successful, phase Running"},
		"not-ready":   {healthCheckProcessing},
		"unreachable": {healthCheckProcessing},
		"timed-out":   {healthCheckProcessing, "HealthCheck Failed, phase Failed"},
	}
	history.Check(t, "statuses", allowed)
}
