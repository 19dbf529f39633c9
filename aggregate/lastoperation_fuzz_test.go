package aggregate_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// FuzzLastOperationHistory runs a Machine through a random history, four bytes a step: a
// condition of the state space (condDims) set to one of its choices or removed, by a writer
// whose clock is the controller's or skewed up to ~4 h either way (another writer's); the
// controller's clock moving on or back by up to ~2 h (a new leader whose clock is behind); and a
// deletion requested, with a Deleting condition. After each step Summarize runs with the
// controller's clock, as a reconcile does. The invariants, for every step:
//   - lastUpdated stays exactly while (type, state) stays, and otherwise moves to a time after
//     the previous one (never back, whatever the clocks), in whole seconds;
//   - every lastUpdated is an input: a condition's lastTransitionTime, the creation or deletion
//     time, an instant of the controller's clock, or one second after the previous lastUpdated;
//     the wall clock is never read;
//   - Failed exactly while a failure is reported now: a terminal signal, a drainer's
//     DrainingFailed, or during deletion a deletion failure (deletionOutcomes); never sticky;
//   - Summarize again, with a later clock, changes nothing (idempotent), and LastOperation with
//     the same clock gives what Summarize wrote;
//   - the whole history run again gives the same statuses (deterministic).
func FuzzLastOperationHistory(f *testing.F) {
	// Instance A: Updating True, then only its reason becomes UpdateFailed; instance B: a
	// deletion whose infrastructure reports InfrastructureFailed; a drain that fails and
	// recovers; a clock that goes back.
	f.Add([]byte{dInfra, 1, 10, 0, dNodeReady, 1, 10, 0, dUpdating, 1, 10, 0, dUpdating, 2, 10, 0, dUpdating, 3, 10, 0})
	f.Add([]byte{dInfra, 1, 10, 0, dNodeReady, 1, 10, 0, 0, 0, 10, 4, dInfra, 3, 10, 0, dInfra, 1, 10, 0})
	f.Add([]byte{dInfra, 1, 10, 0, dNodeReady, 1, 10, 0, dDraining, 1, 10, 0, dDraining, 3, 0, 0, dDraining, 2, 0x90, 0})
	f.Add([]byte{dNodeReady, 1, 0xf0, 2, dNodeReady, 2, 0x80, 0, dHealthCheck, 2, 0x80, 0, dNodeReady, 1, 1, 3})
	f.Fuzz(func(t *testing.T, steps []byte) {
		if len(steps) > 4*64 {
			return
		}
		first := runHistory(t, steps)
		if again := runHistory(t, steps); !reflect.DeepEqual(first, again) {
			t.Fatalf("not deterministic (-first +again):\n%s", cmp.Diff(first, again))
		}
	})
}

// runHistory runs the history of FuzzLastOperationHistory, checking its invariants, and returns
// every status it went through.
func runHistory(t *testing.T, steps []byte) []v1alpha1.MachineStatus {
	t.Helper()
	m := machine(nil)
	now := t0.Add(time.Minute)
	var statuses []v1alpha1.MachineStatus
	instants := map[int64]bool{}
	for i := 0; i+4 <= len(steps); i += 4 {
		dim, choice, clockStep, flags := int(steps[i]), int(steps[i+1]), int8(steps[i+2]), steps[i+3]
		// The controller's clock moves by clockStep minutes, back too.
		now = now.Add(time.Duration(clockStep) * time.Minute)
		writer := now
		if flags&1 != 0 { // another writer, its clock skewed by up to ~4 h either way
			writer = now.Add(time.Duration(int8(flags)) * 2 * time.Minute)
		}
		writerClock := writer
		if d := dim % numCondDims; dim < 4*numCondDims {
			c := condDims[d].choices[choice%len(condDims[d].choices)]
			if c == missing {
				conditions.Delete(m, condDims[d].conditionType)
			} else if _, err := conditions.Set(m, metav1.Condition{Type: condDims[d].conditionType, Status: c.status,
				Reason: c.reason, Message: c.message}, clockAt(writerClock)); err != nil {
				t.Fatalf("step %d: Set: %v", i/4, err)
			}
		}
		if flags&4 != 0 && m.DeletionTimestamp == nil {
			ts := metav1.NewTime(writer.Truncate(time.Second))
			m.DeletionTimestamp = &ts
		}
		if m.DeletionTimestamp != nil && flags&2 != 0 {
			reasons := []string{v1alpha1.MachineDeletingDrainingNodeReason,
				v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, v1alpha1.MachineDeletingDeletionCompletedReason}
			if _, err := conditions.Set(m, metav1.Condition{Type: deleting, Status: T,
				Reason: reasons[choice%len(reasons)]}, clockAt(writerClock)); err != nil {
				t.Fatalf("step %d: Set Deleting: %v", i/4, err)
			}
		}

		prev := m.Status.LastOperation.DeepCopy()
		clock := now
		instants[now.Unix()] = true
		want := aggregate.LastOperation(m, clock)
		aggregate.Summarize(m, clock)
		got := m.Status.LastOperation
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("step %d (prev %+v, got %+v): "+format, append([]any{i / 4, prev, got}, args...)...)
		}
		if !sameOp(want, got) {
			fail("Summarize wrote another lastOperation than LastOperation gives:\n%s", cmp.Diff(want, got))
		}
		checkHistoryStep(m, prev, got, instants, fail)

		// Idempotent with a later clock.
		before := m.DeepCopy()
		if aggregate.Summarize(m, now.Add(time.Hour)) ||
			!reflect.DeepEqual(before, m) {
			fail("Summarize again changed the Machine:\n%s", cmp.Diff(before, m))
		}
		statuses = append(statuses, *m.Status.DeepCopy())
	}
	return statuses
}

// checkHistoryStep checks one step of runHistory: got, derived from m whose previous
// lastOperation was prev, with the controller's clock having read the given instants so far.
func checkHistoryStep(m *v1alpha1.Machine, prev, got *v1alpha1.LastOperation, instants map[int64]bool, fail func(string, ...any)) {
	if got == nil {
		fail("no lastOperation")
		return
	}
	lu := got.LastUpdated.Time
	switch {
	case prev != nil && prev.Type == got.Type && prev.State == got.State:
		if !lu.Equal(prev.LastUpdated.Time) {
			fail("(type, state) kept, but lastUpdated moved")
		}
	case prev != nil && !lu.After(prev.LastUpdated.Time):
		fail("(type, state) changed, but lastUpdated did not move forward")
	}
	if !lu.Equal(lu.Truncate(time.Second)) {
		fail("lastUpdated %s is not a whole second", lu)
	}
	kept := prev != nil && prev.Type == got.Type && prev.State == got.State
	input := kept || instants[lu.Unix()] || lu.Equal(m.CreationTimestamp.Time) ||
		(m.DeletionTimestamp != nil && lu.Equal(m.DeletionTimestamp.Time)) ||
		(prev != nil && lu.Equal(prev.LastUpdated.Add(time.Second)))
	for _, c := range m.Status.Conditions {
		input = input || lu.Equal(c.LastTransitionTime.Time)
	}
	if !input {
		fail("lastUpdated %s is no input time", lu)
	}

	// Failed exactly while a failure is reported now. A Create in progress reports the creation
	// (a terminal signal fails it; a drain is not part of it).
	var failing bool
	if m.DeletionTimestamp != nil {
		want, ok := wantDeletion(m)
		if !ok {
			fail("no row of deletionOutcomes for Deleting %s/%s", statusOf(m, deleting), reasonOf(m, deleting))
		}
		failing = want.state == v1alpha1.MachineOperationStateFailed
	} else {
		creating := got.Type == v1alpha1.MachineOperationCreate && got.State == v1alpha1.MachineOperationStateProcessing
		failing = hasTerminalSignal(m) ||
			(!creating && reasonOf(m, draining) == v1alpha1.MachineDrainingFailedReason)
	}
	if (got.State == v1alpha1.MachineOperationStateFailed) != failing {
		fail("state %s, but a failure reported now is %v", got.State, failing)
	}
}
