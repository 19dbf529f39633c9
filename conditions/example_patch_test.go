package conditions_test

import (
	"errors"
	"fmt"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Two controllers share one Machine's conditions. Each computes a patch from what it read and
// applies it to the latest version: changes to different types merge, and a change to a type
// someone else changed meanwhile is a conflict to retry.
func ExampleNewPatch() {
	at := conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	read := &v1alpha1.Machine{}
	_, _ = conditions.MarkTrue(read, "NodeReady", "NodeReady", "", at)

	// Our controller decides, from what it read, that the Node is not ready.
	ours := read.DeepCopy()
	_, _ = conditions.MarkFalse(ours, "NodeReady", "NodeNotReady", "kubelet stopped posting", at)
	patch, err := conditions.NewPatch(read, ours)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Meanwhile another controller added its own condition.
	latest := read.DeepCopy()
	_, _ = conditions.MarkTrue(latest, "example.com/Networked", "LinkUp", "", at)

	if err := patch.Apply(latest); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range latest.GetConditions() {
		fmt.Println(c.Type, c.Status, c.Reason)
	}

	// A third writer read the old NodeReady too and wants it Unknown: a conflict.
	theirs := read.DeepCopy()
	_, _ = conditions.MarkUnknown(theirs, "NodeReady", "NodeReadyUnknown", "", at)
	stale, _ := conditions.NewPatch(read, theirs)
	var conflict *conditions.ConflictError
	fmt.Println(errors.As(stale.Apply(latest), &conflict), conflict.Types)

	// Output:
	// NodeReady False NodeNotReady
	// example.com/Networked True LinkUp
	// true [NodeReady]
}
