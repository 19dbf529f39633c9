package aggregate_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// The spaces the properties are checked on (see statespace_test.go).
var (
	// aliveSpace: Machines without a deletionTimestamp. Phase and LastOperation read every
	// catalog condition but NodeHealthy, spec.bootstrap and the previous operation: all crossed
	// fully. NodeHealthy, a stale Deleting, the previous Ready and the gate are read only by
	// Ready; they are hashed, and a sibling point that differs in them must give the same phase
	// and operation.
	aliveSpace = space{name: "alive",
		full: []int{dBootstrap, dDraining, dHealthCheck, dInfra, dNodeReady, dStandby, dUpdating, dBootstrapSpec, dPrevOp},
		only: map[int][]int{dDeletion: aliveDeletions}}

	// deletedSpace: Machines with a deletionTimestamp, for every Deleting reason and every
	// previous operation, crossed with every terminal and progress signal (so that Deleting
	// beats Failed is shown for each) and with a drain that fails or not (Delete Failed); the
	// rest is hashed and checked by the sibling.
	deletedSpace = space{name: "deleted",
		full: []int{dDeletion, dPrevOp, dBootstrapSpec, dHealthCheck, dInfra, dNodeReady, dUpdating, dDraining},
		only: map[int][]int{dDeletion: deletedDeletions, dDraining: {0, 3}}}

	// summarizeSpace: everything Ready reads, crossed fully (every in-scope condition, the
	// deletionTimestamp with every Deleting reason, spec.bootstrap); the operation and phase
	// inputs are hashed. Summarize = Ready, then LastOperation, then Phase of the Machine
	// carrying it, so its idempotency over the whole space follows from Ready's here and from
	// the fixed point of LastOperation and Phase checked on the two spaces above.
	summarizeSpace = space{name: "summarize",
		full: []int{dBootstrap, dHealthCheck, dInfra, dNodeHealthy, dNodeReady, dDeletion, dBootstrapSpec}}
)

// TestPhaseAndLastOperationStateSpace checks Phase and LastOperation on every point of the
// alive and deleted spaces: the phase is the first matching row of the phase table; Deleting
// and Deleted need a deletionTimestamp; without one, Failed is exactly a terminal signal; the
// operation follows the rules and is a fixed point; lastUpdated moves only with (type, state)
// and comes from the input that decided it; and the result does not depend on the order of
// the conditions or on inputs the functions do not read. At the end every phase and every
// (type, state) must have been reached.
func TestPhaseAndLastOperationStateSpace(t *testing.T) {
	cov := newCoverage()
	t.Run("spaces", func(t *testing.T) {
		aliveSpace.run(t, cov, checkPhaseAndLastOperation(aliveSpace))
		deletedSpace.run(t, cov, checkPhaseAndLastOperation(deletedSpace))
	})
	if t.Failed() {
		return
	}
	t.Logf("%d points; phases %v", cov.cases, cov.phases)
	checkPhaseCoverage(t, cov)

	// Every (type, state) is derived, DrainNode/Failed and Delete/Failed included, and every one
	// is kept unchanged somewhere (the fixed point).
	for _, k := range allOpKeys() {
		if cov.derived[k] == 0 {
			t.Errorf("lastOperation %s never derived", k)
		}
		if cov.kept[k] == 0 {
			t.Errorf("lastOperation %s never kept", k)
		}
	}
	t.Logf("lastOperation derived %v; kept %v", cov.derived, cov.kept)
}

func checkPhaseCoverage(t *testing.T, cov *coverage) {
	t.Helper()
	for _, p := range v1alpha1.MachinePhases() {
		if cov.phases[p] == 0 {
			t.Errorf("phase %s never reached", p)
		}
	}
}

// spaceClock is the clock LastOperation and Summarize get on the spaces: far after every input
// time, so that a time taken from it cannot pass for an input time. spaceLaterClock reads a
// day later, for the fixed points.
var (
	spaceClock      = farFuture
	spaceLaterClock = farFuture.Add(24 * time.Hour)
)

func checkPhaseAndLastOperation(s space) func() checkFunc {
	points := s.points()
	return func() checkFunc {
		var build [2]builder
		return func(t *testing.T, i int, p point, cov *coverage) bool {
			return checkPoint(t, p, points(i, 1), &build, cov)
		}
	}
}

// checkPoint checks Phase and LastOperation on p, and that sibling (p with other values of the
// dimensions hashed) gives the same.
func checkPoint(t *testing.T, p, sp point, build *[2]builder, cov *coverage) bool {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	m := build[0].build(p, false)
	prev := m.Status.LastOperation.DeepCopy()
	got := aggregate.LastOperation(m, spaceClock)
	phase := aggregate.Phase(m)

	// The Machine carrying the result is what Summarize computes the phase from and what
	// the next reconcile sees: nothing may move. (Phase reads the lastOperation only
	// through LastOperation, so the fixed point keeps the phase too.)
	carried := *m
	carried.Status.LastOperation = got.DeepCopy()
	if again := aggregate.LastOperation(&carried, spaceLaterClock); !sameOp(got, again) {
		fail("LastOperation is not a fixed point (-first +second):\n%s", cmp.Diff(got, again, strictTime))
	}

	// A fresh Machine, its conditions in the opposite order and differing only in inputs
	// the functions do not read (see the space), gives the same result.
	sibling := build[1].build(sp, true)
	if again := aggregate.LastOperation(sibling, spaceClock); !sameOp(got, again) {
		fail("LastOperation differs on the sibling %s (-here +sibling):\n%s", sp, cmp.Diff(got, again, strictTime))
	}
	if again := aggregate.Phase(sibling); again != phase {
		fail("Phase differs on the sibling %s: %s, then %s", sp, phase, again)
	}

	checkPhase(m, phase, fail)
	checkLastOperation(m, prev, got, fail)

	cov.phases[phase]++
	cov.addOp(prev, got)
	if len(problems) > 0 {
		t.Errorf("%s: phase %s, lastOperation %+v:\n  %s", p, phase, got, strings.Join(problems, "\n  "))
		return false
	}
	return true
}

// checkPhase checks the phase's invariants: a valid phase; Deleting and Deleted exactly with a
// deletionTimestamp; without one, Failed exactly while a terminal signal is present. (The
// rows themselves are pinned by the literal tables of phase_test.go.)
func checkPhase(m *v1alpha1.Machine, phase v1alpha1.MachinePhase, fail func(string, ...any)) {
	if !slices.Contains(v1alpha1.MachinePhases(), phase) {
		fail("phase %q is not a valid phase", phase)
	}
	ts := m.DeletionTimestamp != nil
	terminal := hasTerminalSignal(m)
	if (phase == v1alpha1.MachinePhaseDeleting || phase == v1alpha1.MachinePhaseDeleted) != ts {
		fail("phase %s with deletionTimestamp %v", phase, m.DeletionTimestamp)
	}
	if !ts && (phase == v1alpha1.MachinePhaseFailed) != terminal {
		fail("phase %s, terminal signal present: %v", phase, terminal)
	}
}

// checkLastOperation checks the operation against the lastOperation rules and its lastUpdated
// against the input that decided it.
func checkLastOperation(m *v1alpha1.Machine, prev, got *v1alpha1.LastOperation, fail func(string, ...any)) {
	if got == nil {
		fail("LastOperation() = nil")
		return
	}
	if !slices.Contains(v1alpha1.MachineOperationTypes(), got.Type) || !slices.Contains(v1alpha1.MachineOperationStates(), got.State) {
		fail("invalid type or state %s/%s", got.Type, got.State)
	}
	if n := len(got.Description); n == 0 || n > 1024 || !utf8.ValidString(got.Description) {
		fail("description of %d bytes (valid UTF-8: %v)", n, utf8.ValidString(got.Description))
	}

	ts := m.DeletionTimestamp != nil
	terminal := hasTerminalSignal(m)
	nodeReadyTrue := statusOf(m, nodeReady) == T
	creating := prev == nil || (prev.Type == create && prev.State != successful)
	kept := prev != nil && prev.Type == got.Type && prev.State == got.State
	drainFailed := reasonOf(m, draining) == v1alpha1.MachineDrainingFailedReason
	switch {
	case ts:
		want, ok := wantDeletion(m)
		if !ok {
			fail("no row of deletionOutcomes for Deleting %s/%s", statusOf(m, deleting), reasonOf(m, deleting))
		}
		if got.Type != deleteOp || got.State != want.state {
			fail("with a deletionTimestamp: %s/%s, want Delete/%s", got.Type, got.State, want.state)
		}
	case got.Type == deleteOp && !kept:
		fail("Delete derived without a deletionTimestamp")
	case terminal && got.State != failed:
		fail("a terminal signal is present, but %s/%s is not Failed", got.Type, got.State)
	case got.State == failed && !terminal && !drainFailed && (!kept || got.Type != deleteOp):
		fail("Failed without a terminal signal or a drain failure")
	}

	// Without a deletionTimestamp, Processing means the operation is happening now.
	if !ts && got.State == processing {
		upd, drn := statusOf(m, updating) == T, statusOf(m, draining) == T
		ok := true
		switch got.Type {
		case create:
			ok = creating && !nodeReadyTrue && !terminal
		case update:
			ok = upd && !terminal && !drainFailed
		case drainNode:
			ok = drn && !upd && !terminal && !drainFailed
		case healthCheck:
			ok = !nodeReadyTrue && !upd && !drn && !terminal && !drainFailed
		}
		if !ok {
			fail("%s Processing, but the conditions say otherwise", got.Type)
		}
	}
	if !ts && !kept && got.State == successful {
		ok := true
		switch got.Type {
		case create, healthCheck:
			ok = nodeReadyTrue
		case update:
			ok = statusOf(m, updating) != T
		case drainNode:
			ok = statusOf(m, draining) != T && !drainFailed
		}
		if !ok {
			fail("%s Successful, but its condition has not cleared", got.Type)
		}
	}

	// lastUpdated: kept while (type, state) stays; else an input time or the clock's, after the
	// previous one. (Which input dates which change is pinned by lastoperation_test.go.)
	if kept && !got.LastUpdated.Equal(&prev.LastUpdated) {
		fail("(type, state) kept but lastUpdated moved from %s to %s", prev.LastUpdated.Format(time.RFC3339), got.LastUpdated.Format(time.RFC3339))
	}
	if !isInputTime(m, got.LastUpdated) && !isClockTime(got.LastUpdated) &&
		(prev == nil || !got.LastUpdated.Equal(&metav1.Time{Time: prev.LastUpdated.Add(time.Second)})) {
		fail("lastUpdated %s is neither an input time, the clock's, nor one second after the previous", got.LastUpdated.Format(time.RFC3339))
	}
	if !kept && prev != nil && !got.LastUpdated.After(prev.LastUpdated.Time) {
		fail("(type, state) changed from %s/%s but lastUpdated %s is not after the previous %s",
			prev.Type, prev.State, got.LastUpdated.Format(time.RFC3339), prev.LastUpdated.Format(time.RFC3339))
	}
}

// isClockTime reports whether t is spaceClock's time, in time.Local as LastOperation gives it.
func isClockTime(t metav1.Time) bool {
	return t.Time.Equal(farFuture) && t.Location() == time.Local
}

// deletionOutcome is the lastOperation of a Machine with a deletionTimestamp: Delete in state,
// and for Failed the condition whose message the description quotes (cause).
type deletionOutcome struct {
	state v1alpha1.MachineOperationState
	cause string
}

var (
	deleteInProgress = deletionOutcome{state: processing}
	deleteCompleted  = deletionOutcome{state: successful}
	drainFailedIt    = deletionOutcome{state: failed, cause: draining}
	infraFailedIt    = deletionOutcome{state: failed, cause: infraReady}
)

// deletionOutcomes states the expected lastOperation of a deleted Machine for each Deleting
// condition the state space holds (status and reason; "" for a missing one), by hand, not from
// the rule: want[0] with neither failure, want[1] with InfrastructureReady reason
// InfrastructureFailed, want[2] with Draining reason DrainingFailed, want[3] with both.
var deletionOutcomes = []struct {
	status metav1.ConditionStatus
	reason string
	want   [4]deletionOutcome
}{
	// Requested, not started (no Deleting, or one not True): the Node is still to be drained
	// and the infrastructure exists, so either failure fails it; the drain's is reported first.
	{"", "", [4]deletionOutcome{deleteInProgress, infraFailedIt, drainFailedIt, drainFailedIt}},
	{F, v1alpha1.MachineNotDeletingReason, [4]deletionOutcome{deleteInProgress, infraFailedIt, drainFailedIt, drainFailedIt}},
	// Draining the Node: the same.
	{T, v1alpha1.MachineDeletingDrainingNodeReason, [4]deletionOutcome{deleteInProgress, infraFailedIt, drainFailedIt, drainFailedIt}},
	// Drained, the infrastructure being deleted: a drain failure is stale, the infrastructure's
	// is not.
	{T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, [4]deletionOutcome{deleteInProgress, infraFailedIt, deleteInProgress, infraFailedIt}},
	// The infrastructure is gone: neither failure is this deletion's.
	{T, v1alpha1.MachineDeletingWaitingForNodeDeletionReason, [4]deletionOutcome{deleteInProgress, deleteInProgress, deleteInProgress, deleteInProgress}},
	// Completed, whatever else is left over; also when a leftover DeletionCompleted is not True.
	{T, v1alpha1.MachineDeletingDeletionCompletedReason, [4]deletionOutcome{deleteCompleted, deleteCompleted, deleteCompleted, deleteCompleted}},
	{F, v1alpha1.MachineDeletingDeletionCompletedReason, [4]deletionOutcome{deleteCompleted, deleteCompleted, deleteCompleted, deleteCompleted}},
}

// wantDeletion looks up the expected lastOperation of m, which has a deletionTimestamp, in
// deletionOutcomes; ok is false when the table has no row for m's Deleting condition.
func wantDeletion(m *v1alpha1.Machine) (want deletionOutcome, ok bool) {
	i := 0
	if reasonOf(m, infraReady) == v1alpha1.MachineInfrastructureFailedReason {
		i++
	}
	if reasonOf(m, draining) == v1alpha1.MachineDrainingFailedReason {
		i += 2
	}
	for _, row := range deletionOutcomes {
		if row.status == statusOf(m, deleting) && row.reason == reasonOf(m, deleting) {
			return row.want[i], true
		}
	}
	return deletionOutcome{}, false
}

// TestDeletionOutcomes runs LastOperation on a deleted Machine for every row of
// deletionOutcomes crossed with every Draining and InfrastructureReady choice of the state
// space, and compares its type, state and, for Failed, the cause quoted.
func TestDeletionOutcomes(t *testing.T) {
	// A choice, and whether it fails a deletion that has not passed its step.
	type choice struct {
		c     condChoice
		fails bool
	}
	drainings := []choice{
		{missing, false},
		{condChoice{T, v1alpha1.MachineNodeCordonedReason, "Node m is unschedulable"}, false},
		{condChoice{F, v1alpha1.MachineNotDrainingReason, ""}, false},
		{condChoice{T, v1alpha1.MachineDrainingFailedReason, "Cannot evict pod web-0"}, true},
	}
	infras := []choice{
		{missing, false},
		{condChoice{T, v1alpha1.MachineInfrastructureProvisionedReason, ""}, false},
		{condChoice{F, v1alpha1.MachineInfrastructureNotProvisionedReason, "DockerMachine m is not provisioned"}, false},
		{condChoice{U, v1alpha1.MachineInfrastructureDoesNotExistReason, ""}, false},
		{condChoice{F, v1alpha1.MachineInfrastructureFailedReason, "quota exceeded"}, true},
	}
	for _, row := range deletionOutcomes {
		for _, d := range drainings {
			for _, in := range infras {
				var cs []metav1.Condition
				add := func(typ string, c condChoice, minutes int) {
					if c.status != "" {
						cs = append(cs, cond(typ, c.status, c.reason, minutes, c.message))
					}
				}
				add(draining, d.c, 52)
				add(infraReady, in.c, 53)
				add(deleting, condChoice{row.status, row.reason, ""}, 51)
				m := machine(cs, deleted(50))
				want := row.want[0]
				switch {
				case d.fails && in.fails:
					want = row.want[3]
				case d.fails:
					want = row.want[2]
				case in.fails:
					want = row.want[1]
				}
				name := fmt.Sprintf("Deleting=%s/%s Draining=%s/%s InfrastructureReady=%s/%s",
					row.status, row.reason, d.c.status, d.c.reason, in.c.status, in.c.reason)
				got := aggregate.LastOperation(m, spaceClock)
				if got.Type != deleteOp || got.State != want.state {
					t.Errorf("%s: %s %s, want Delete %s (%s)", name, got.Type, got.State, want.state, got.Description)
					continue
				}
				if want.cause != "" {
					msg := find(m, want.cause).Message
					if !strings.Contains(got.Description, msg) {
						t.Errorf("%s: description %q does not quote %s's message %q", name, got.Description, want.cause, msg)
					}
				}
			}
		}
	}
}

// hasTerminalSignal reports whether m carries a terminal signal: a condition whose reason is one
// of the three terminal reasons, or a False HealthCheckSucceeded.
func hasTerminalSignal(m *v1alpha1.Machine) bool {
	for _, c := range m.Status.Conditions {
		switch c.Reason {
		case v1alpha1.MachineInfrastructureFailedReason, v1alpha1.MachineBootstrapFailedReason, v1alpha1.MachineUpdateFailedReason:
			return true
		}
	}
	return statusOf(m, hcSucceeded) == F
}

// find, statusOf and reasonOf read m's conditions directly, not through package conditions.
func find(m *v1alpha1.Machine, t string) *metav1.Condition {
	for i := range m.Status.Conditions {
		if m.Status.Conditions[i].Type == t {
			return &m.Status.Conditions[i]
		}
	}
	return nil
}

func statusOf(m *v1alpha1.Machine, t string) metav1.ConditionStatus {
	if c := find(m, t); c != nil {
		return c.Status
	}
	return ""
}

func reasonOf(m *v1alpha1.Machine, t string) string {
	if c := find(m, t); c != nil {
		return c.Reason
	}
	return ""
}

// isInputTime reports whether t is one of the times a lastUpdated may come from, location
// included: a condition's lastTransitionTime, creationTimestamp, deletionTimestamp or the
// previous lastUpdated.
func isInputTime(m *v1alpha1.Machine, t metav1.Time) bool {
	same := func(u metav1.Time) bool { return t.Time.Equal(u.Time) && t.Location() == u.Location() }
	for _, c := range m.Status.Conditions {
		if same(c.LastTransitionTime) {
			return true
		}
	}
	return same(m.CreationTimestamp) ||
		(m.DeletionTimestamp != nil && same(*m.DeletionTimestamp)) ||
		(m.Status.LastOperation != nil && same(m.Status.LastOperation.LastUpdated))
}

// sameOp reports whether a and b are equal, times by instant and location (like
// reflect.DeepEqual, faster).
func sameOp(a, b *v1alpha1.LastOperation) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// strictTime compares times by instant and location, unlike metav1.Time's Equal method.
var strictTime = cmp.Comparer(func(a, b metav1.Time) bool {
	return a.Time.Equal(b.Time) && a.Location() == b.Location()
})

// TestSummarizeStateSpace runs Summarize on every point of the summarize space with a clock
// far in the future and checks: Ready is the summary the catalog defines (severity
// False > Unknown > True, missing in-scope conditions Unknown and named, fixed reasons, the
// message format); a missing in-scope condition never leaves Ready True; changed is true
// exactly when the status changed; the result equals LastOperation and Phase; lastUpdated
// comes from an input, never the clock; a second Summarize with a later clock returns false
// and changes nothing; a fresh copy with its conditions in the opposite order gives the same
// status; a clock behind every input time (conditions written by clocks ahead of it) gives the
// same status but for the times taken from the clock; and the status survives a JSON round
// trip, compared strictly.
func TestSummarizeStateSpace(t *testing.T) {
	cov := newCoverage()
	t.Run("spaces", func(t *testing.T) {
		summarizeSpace.run(t, cov, func() checkFunc { return checkSummarize })
	})
	if t.Failed() {
		return
	}
	t.Logf("%d points; Ready reasons %v", cov.cases, cov.readyReasons)
	checkPhaseCoverage(t, cov)
	for _, r := range []string{
		conditions.NoIssuesReportedReason, conditions.IssueReportedReason, conditions.MultipleIssuesReportedReason,
		conditions.UnknownReportedReason, conditions.NotYetReportedReason, conditions.MultipleUnknownReportedReason,
	} {
		if cov.readyReasons[r] == 0 {
			t.Errorf("Ready reason %s never reached", r)
		}
	}
}

var summaryReasons = []string{
	conditions.NoIssuesReportedReason, conditions.IssueReportedReason, conditions.MultipleIssuesReportedReason,
	conditions.UnknownReportedReason, conditions.NotYetReportedReason, conditions.MultipleUnknownReportedReason,
	conditions.NoConditionsReportedReason,
}

func checkSummarize(t *testing.T, _ int, p point, cov *coverage) bool {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	clock := farFuture
	later := farFuture.Add(24 * time.Hour)

	m := p.machine(false)
	before := m.DeepCopy()
	changed := aggregate.Summarize(m, clock)

	fresh := p.machine(true)
	aggregate.Summarize(fresh, clock)
	if !reflect.DeepEqual(m.Status, fresh.Status) {
		fail("a fresh copy gives another status (-first +fresh):\n%s", cmp.Diff(m.Status, fresh.Status, strictTime))
	}
	if changed == reflect.DeepEqual(before.Status, m.Status) {
		fail("Summarize() = %v, but the status changed: %v", changed, !reflect.DeepEqual(before.Status, m.Status))
	}

	// Ready.
	ready := find(m, v1alpha1.MachineReadyCondition)
	if ready == nil {
		fail("no Ready condition")
		ready = &metav1.Condition{}
	}
	if ready.Status == T && missingInScope(before) {
		fail("Ready is True although a condition in scope is missing")
	}
	if !slices.Contains(summaryReasons, ready.Reason) {
		fail("Ready reason %q is not a summary reason", ready.Reason)
	}
	if len(ready.Message) > conditions.MaxMessageBytes {
		fail("Ready message of %d bytes", len(ready.Message))
	}
	if err := conditions.Validate(*ready); err != nil {
		fail("invalid Ready written: %v", err)
	}

	// Operation and phase are those of the pure functions with the same clock; lastUpdated is
	// an input time or the clock's.
	if want := aggregate.LastOperation(before, clock); !reflect.DeepEqual(want, m.Status.LastOperation) {
		fail("lastOperation differs from LastOperation() (-want +got):\n%s", cmp.Diff(want, m.Status.LastOperation, strictTime))
	}
	if want := aggregate.Phase(m); want != m.Status.Phase {
		fail("phase %s, Phase() = %s", m.Status.Phase, want)
	}
	if op := m.Status.LastOperation; op == nil {
		fail("no lastOperation")
	} else if !isInputTime(before, op.LastUpdated) && !isClockTime(op.LastUpdated) {
		fail("lastUpdated %s is neither an input time nor the clock's", op.LastUpdated.UTC().Format(time.RFC3339))
	}

	// Stalled mirrors phase Failed for kstatus, and nothing derived reads it.
	stalled := find(m, v1alpha1.MachineStalledCondition)
	switch {
	case m.Status.Phase == v1alpha1.MachinePhaseFailed && (stalled == nil || stalled.Status != T ||
		stalled.Reason != v1alpha1.MachineFailedReason || stalled.Message != m.Status.LastOperation.Description):
		fail("phase Failed, lastOperation %+v, but Stalled is %+v", m.Status.LastOperation, stalled)
	case m.Status.Phase != v1alpha1.MachinePhaseFailed && stalled != nil:
		fail("phase %s, but Stalled is %+v", m.Status.Phase, stalled)
	}
	if stalled != nil {
		if err := conditions.Validate(*stalled); err != nil {
			fail("invalid Stalled written: %v", err)
		}
		if slices.Contains(v1alpha1.TerminalReasons(), stalled.Reason) {
			fail("Stalled reason %q is a terminal reason", stalled.Reason)
		}
	}

	// Idempotent, even with a later clock.
	first := m.DeepCopy()
	if aggregate.Summarize(m, later) {
		fail("second Summarize() = true")
	}
	if !reflect.DeepEqual(first, m) {
		fail("second Summarize() changed the Machine (-first +second):\n%s", cmp.Diff(first, m, strictTime))
	}

	// JSON round trip.
	data, err := json.Marshal(m)
	if err != nil {
		fail("json.Marshal() error = %v", err)
	}
	back := &v1alpha1.Machine{}
	if err := json.Unmarshal(data, back); err != nil {
		fail("json.Unmarshal() error = %v", err)
	}
	if !reflect.DeepEqual(m.Status, back.Status) {
		fail("status changed in a JSON round trip (-before +after):\n%s", cmp.Diff(m.Status, back.Status, strictTime))
	}

	// Other clocks: the conditions and the previous lastOperation may have been written by
	// clocks ahead of Summarize's. With a clock before every input time the status is the same,
	// but for the times Summarize takes from its clock: the lastTransitionTimes of Ready and
	// Stalled when their status changes, and a lastUpdated the clock dates, which is then one
	// second after the previous lastUpdated (it never goes back), or the clock's time when
	// there is none. Nothing derived compares the clock with a condition's time.
	behind := p.machine(false)
	aggregate.Summarize(behind, farPast)
	wantBehind := withoutClockTimes(first.Status, farFuture)
	if op := wantBehind.LastOperation; op != nil && isClockTime(op.LastUpdated) {
		op.LastUpdated = metav1.NewTime(farPast.Local())
		if prev := before.Status.LastOperation; prev != nil {
			op.LastUpdated = metav1.NewTime(prev.LastUpdated.Add(time.Second).Local())
		}
	}
	if diff := cmp.Diff(wantBehind, withoutClockTimes(behind.Status, farPast), strictTime); diff != "" {
		fail("a clock behind the conditions' times gives another status (-want +behind):\n%s", diff)
	}

	cov.phases[m.Status.Phase]++
	cov.readyReasons[ready.Reason]++
	if m.Status.LastOperation != nil {
		cov.addOp(before.Status.LastOperation, m.Status.LastOperation)
	}
	if len(problems) > 0 {
		t.Errorf("%s:\n  %s", p, strings.Join(problems, "\n  "))
		return false
	}
	return true
}

// farPast is a clock reading before every input time.
var farPast = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)

// withoutClockTimes returns a copy of s whose condition lastTransitionTimes equal to clock
// are zero.
func withoutClockTimes(s v1alpha1.MachineStatus, clock time.Time) v1alpha1.MachineStatus {
	out := *s.DeepCopy()
	for i := range out.Conditions {
		if out.Conditions[i].LastTransitionTime.Time.Equal(clock) {
			out.Conditions[i].LastTransitionTime = metav1.Time{}
		}
	}
	return out
}

// readyScope is one condition type in the scope of a Machine's Ready.
type readyScope struct {
	conditionType   string
	negative        bool
	ignoreIfMissing bool
}

// scopeOf is the scope of m's Ready, written here again from the catalog: the built-in types,
// BootstrapConfigReady when spec.bootstrap is set, Deleting (negative, ignored when missing
// unless a deletionTimestamp is set) and the readiness gates.
func scopeOf(m *v1alpha1.Machine) []readyScope {
	scope := []readyScope{{conditionType: infraReady}, {conditionType: nodeReady}, {conditionType: nodeHealthy},
		{conditionType: hcSucceeded}, {conditionType: deleting, negative: true, ignoreIfMissing: m.DeletionTimestamp == nil}}
	if m.Spec.Bootstrap != nil {
		scope = append(scope, readyScope{conditionType: bootstrapReady})
	}
	for _, g := range m.Spec.ReadinessGates {
		scope = append(scope, readyScope{conditionType: g.ConditionType, negative: g.Polarity == v1alpha1.NegativeConditionPolarity})
	}
	sort.Slice(scope, func(i, j int) bool { return scope[i].conditionType < scope[j].conditionType })
	return scope
}

func missingInScope(m *v1alpha1.Machine) bool {
	for _, s := range scopeOf(m) {
		if !s.ignoreIfMissing && find(m, s.conditionType) == nil {
			return true
		}
	}
	return false
}
