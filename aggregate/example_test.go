package aggregate_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

func ExampleSummarize() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(minutes int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute)) }
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Generation: 1, CreationTimestamp: at(0)},
		Status: v1alpha1.MachineStatus{Conditions: []metav1.Condition{
			{Type: "InfrastructureReady", Status: metav1.ConditionTrue, Reason: "InfrastructureProvisioned", LastTransitionTime: at(3)},
			{Type: "NodeReady", Status: metav1.ConditionTrue, Reason: "NodeReady", LastTransitionTime: at(5)},
			{Type: "NodeHealthy", Status: metav1.ConditionTrue, Reason: "NodeHealthy", LastTransitionTime: at(5)},
			{Type: "HealthCheckSucceeded", Status: metav1.ConditionTrue, Reason: "HealthCheckSucceeded", LastTransitionTime: at(5)},
			{Type: "Updating", Status: metav1.ConditionTrue, Reason: "KubeletVersionUpdating", Message: "kubelet v1.35.2, want v1.36.3", LastTransitionTime: at(7)},
		}},
	}
	clock := at(8).Time

	show := func(changed bool) {
		ready := conditions.Get(m, "Ready")
		op := m.Status.LastOperation
		fmt.Printf("changed=%v phase=%s ready=%s/%s\n", changed, m.Status.Phase, ready.Status, ready.Reason)
		fmt.Printf("lastOperation: %s %s since %s: %s\n", op.Type, op.State, op.LastUpdated.UTC().Format(time.RFC3339), op.Description)
	}
	show(aggregate.Summarize(m, clock))
	show(aggregate.Summarize(m, clock)) // a second run changes nothing

	// The update finishes.
	if _, err := conditions.MarkFalse(m, "Updating", "NotUpdating", "",
		conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(12).Time)}); err != nil {
		fmt.Println(err)
	}
	show(aggregate.Summarize(m, clock))

	// Output:
	// changed=true phase=Updating ready=True/NoIssuesReported
	// lastOperation: Update Processing since 2026-01-01T00:07:00Z: Update in progress: kubelet v1.35.2, want v1.36.3
	// changed=false phase=Updating ready=True/NoIssuesReported
	// lastOperation: Update Processing since 2026-01-01T00:07:00Z: Update in progress: kubelet v1.35.2, want v1.36.3
	// changed=true phase=Running ready=True/NoIssuesReported
	// lastOperation: Update Successful since 2026-01-01T00:12:00Z: Update completed
}
