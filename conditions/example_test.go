package conditions_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

func ExampleSet() {
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Generation: 2}}
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 9, 0, 0, 250_000_000, time.UTC))
	opt := conditions.WithClock{Clock: clock}

	set := func(c metav1.Condition) {
		changed, err := conditions.Set(m, c, opt)
		var invalid *conditions.ValidationError
		switch {
		case errors.As(err, &invalid):
			fmt.Printf("Set %s=%s: changed=%v, rejected: %s\n", c.Type, c.Status, changed, invalid.Errs[0].Field)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Printf("Set %s=%s: changed=%v\n", c.Type, c.Status, changed)
		}
	}
	set(metav1.Condition{Type: "NodeReady", Status: metav1.ConditionFalse, Reason: "NodeDoesNotExist", Message: "no Node has registered yet"})
	clock.Step(3 * time.Minute)
	set(metav1.Condition{Type: "NodeReady", Status: metav1.ConditionTrue, Reason: "NodeReady"})
	set(metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NoIssuesReported"})
	clock.Step(time.Hour)
	set(metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NoIssuesReported"}) // unchanged
	set(metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "not a reason"})     // invalid

	// Ready first, then alphabetical; times truncated to seconds; observedGeneration from the Machine.
	for _, c := range m.Status.Conditions {
		fmt.Printf("%s=%s %s generation=%d since %s\n",
			c.Type, c.Status, c.Reason, c.ObservedGeneration, c.LastTransitionTime.UTC().Format(time.RFC3339Nano))
	}

	// Output:
	// Set NodeReady=False: changed=true
	// Set NodeReady=True: changed=true
	// Set Ready=True: changed=true
	// Set Ready=True: changed=false
	// Set Ready=True: changed=false, rejected: status.conditions[Ready].reason
	// Ready=True NoIssuesReported generation=2 since 2026-01-01T09:03:00Z
	// NodeReady=True NodeReady generation=2 since 2026-01-01T09:03:00Z
}

func ExampleMarkFalse() {
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Generation: 1}}
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	opt := conditions.WithClock{Clock: clock}

	changed, err := conditions.MarkFalse(m, "NodeReady", "NodeNotReady", "kubelet stopped posting node status", opt)
	fmt.Println("first call:", changed, err)

	clock.Step(10 * time.Minute)
	changed, err = conditions.MarkFalse(m, "NodeReady", "NodeNotReady", "kubelet stopped posting node status", opt)
	fmt.Println("identical second call:", changed, err)

	changed, err = conditions.MarkFalse(m, "NodeReady", "NodeNotReady", "container runtime is down", opt)
	fmt.Println("new message:", changed, err)

	c := conditions.Get(m, "NodeReady")
	fmt.Println(conditions.IsFalse(m, "NodeReady"), c.Reason, c.Message)
	fmt.Println("since", c.LastTransitionTime.UTC().Format(time.RFC3339)) // a message change keeps the time

	// Output:
	// first call: true <nil>
	// identical second call: false <nil>
	// new message: true <nil>
	// true NodeNotReady container runtime is down
	// since 2026-01-01T09:00:00Z
}

func ExampleNewSummaryCondition() {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := &v1alpha1.Machine{Status: v1alpha1.MachineStatus{Conditions: []metav1.Condition{
		{Type: "InfrastructureReady", Status: metav1.ConditionTrue, Reason: "InfrastructureProvisioned", LastTransitionTime: created},
		{Type: "NodeReady", Status: metav1.ConditionFalse, Reason: "NodeNotReady", Message: "kubelet stopped posting node status", LastTransitionTime: created},
		{Type: "Deleting", Status: metav1.ConditionTrue, Reason: "DrainingNode", LastTransitionTime: created},
	}}}

	ready, err := conditions.NewSummaryCondition(m, "Ready",
		conditions.ForConditionTypes{"InfrastructureReady", "NodeReady", "NodeHealthy", "Deleting"},
		conditions.NegativePolarityConditionTypes{"Deleting"},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ready.Status, ready.Reason)
	fmt.Println(ready.Message)

	// Misconfiguration is an error, not a panic.
	_, err = conditions.NewSummaryCondition(m, "Ready", conditions.ForConditionTypes{"Ready"})
	fmt.Println(err)

	// Output:
	// False MultipleIssuesReported
	// Deleting: DrainingNode; NodeReady: kubelet stopped posting node status; NodeHealthy: not yet reported
	// cannot summarize conditions into "Ready": the target condition type cannot be in its own scope
}
