package aggregate

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Phase returns the phase of the first row of the phase table (PhaseRows) that m matches:
// Pending for a nil m. It reads m's conditions, its deletionTimestamp and, for the Unknown row,
// its lastOperation as LastOperation computes it. Nothing is sticky: Failed lasts exactly as long
// as its signal, and Deleting and Deleted never appear without a deletionTimestamp.
func Phase(m *v1alpha1.Machine) v1alpha1.MachinePhase {
	if m == nil {
		return v1alpha1.MachinePhasePending
	}
	for _, r := range phaseRows {
		if r.match(m) {
			return r.phase
		}
	}
	return v1alpha1.MachinePhasePending // not reached: the last row matches every Machine
}

// PhaseRow is a row of the phase table: a phase and, in words, when a Machine has it.
type PhaseRow struct {
	Phase v1alpha1.MachinePhase
	When  string
}

// PhaseRows returns the phase table in the order Phase checks it: the first row a Machine
// matches gives its phase.
func PhaseRows() []PhaseRow {
	rows := make([]PhaseRow, len(phaseRows))
	for i, r := range phaseRows {
		rows[i] = PhaseRow{Phase: r.phase, When: r.when}
	}
	return rows
}

// phaseRow is a row of the phase table: its phase, when it applies in words, and the rule.
type phaseRow struct {
	phase v1alpha1.MachinePhase
	when  string
	match func(m *v1alpha1.Machine) bool
}

// phaseRows is the phase table, in the order Phase checks it.
var phaseRows = [...]phaseRow{
	{v1alpha1.MachinePhaseDeleted, "a deletionTimestamp is set and the Deleting reason is DeletionCompleted",
		func(m *v1alpha1.Machine) bool {
			return m.DeletionTimestamp != nil && hasReason(condition(m, v1alpha1.MachineDeletingCondition), v1alpha1.MachineDeletingDeletionCompletedReason)
		}},
	{v1alpha1.MachinePhaseDeleting, "a deletionTimestamp is set (also while the deletion is failing: it is retried)",
		func(m *v1alpha1.Machine) bool { return m.DeletionTimestamp != nil }},
	{v1alpha1.MachinePhaseFailed, failedWhen,
		func(m *v1alpha1.Machine) bool { return terminalSignal(m) != nil }},
	{v1alpha1.MachinePhaseStandby, "Standby is True",
		func(m *v1alpha1.Machine) bool { return isTrue(condition(m, v1alpha1.MachineStandbyCondition)) }},
	{v1alpha1.MachinePhaseDraining, "Draining is True (also with reason DrainingFailed: drainers retry, so a failed drain is not terminal)",
		func(m *v1alpha1.Machine) bool { return isTrue(condition(m, v1alpha1.MachineDrainingCondition)) }},
	{v1alpha1.MachinePhaseUpdating, "Updating is True",
		func(m *v1alpha1.Machine) bool { return isTrue(condition(m, v1alpha1.MachineUpdatingCondition)) }},
	{v1alpha1.MachinePhaseRunning, "NodeReady is True",
		func(m *v1alpha1.Machine) bool { return isTrue(condition(m, v1alpha1.MachineNodeReadyCondition)) }},
	{v1alpha1.MachinePhaseUnknown, "creation has finished (lastOperation is not an unfinished Create) and NodeReady is not True: the Node lost contact or is NotReady, within the health-check timeout",
		func(m *v1alpha1.Machine) bool { return creationFinished(LastOperation(m, time.Time{})) }},
	{v1alpha1.MachinePhaseProvisioned, "InfrastructureReady is True",
		func(m *v1alpha1.Machine) bool {
			return isTrue(condition(m, v1alpha1.MachineInfrastructureReadyCondition))
		}},
	{v1alpha1.MachinePhaseProvisioning, "BootstrapConfigReady is True, or InfrastructureReady is False (the object exists and is being provisioned; Unknown or missing, e.g. InfrastructureDoesNotExist, is not provisioning)",
		func(m *v1alpha1.Machine) bool {
			return isTrue(condition(m, v1alpha1.MachineBootstrapConfigReadyCondition)) ||
				hasStatus(condition(m, v1alpha1.MachineInfrastructureReadyCondition), metav1.ConditionFalse)
		}},
	{v1alpha1.MachinePhasePending, "otherwise",
		func(*v1alpha1.Machine) bool { return true }},
}

// failedWhen says when the phase is Failed, naming the terminal reasons.
var failedWhen = "a terminal signal is present now: HealthCheckSucceeded is False, or any condition has a terminal reason (" +
	strings.Join(v1alpha1.TerminalReasons(), ", ") + ")"

// condition returns m's condition of type t, or nil.
func condition(m *v1alpha1.Machine, t string) *metav1.Condition {
	return meta.FindStatusCondition(m.Status.Conditions, t)
}

// creationFinished reports whether op is anything but a Create that has not succeeded.
func creationFinished(op *v1alpha1.LastOperation) bool {
	return op != nil && (op.Type != v1alpha1.MachineOperationCreate || op.State == v1alpha1.MachineOperationStateSuccessful)
}

// terminal is a terminal signal: the condition that carries it and whether it is an update
// failure.
type terminal struct {
	condition metav1.Condition
	update    bool
}

// terminalSignal returns the terminal signal present on m, or nil. Of several, the one reported
// is, first match wins: a condition with reason UpdateFailed, then any other condition with a
// terminal reason, then a False HealthCheckSucceeded; ties in catalog order.
func terminalSignal(m *v1alpha1.Machine) *terminal {
	sorted := slices.SortedStableFunc(slices.Values(m.Status.Conditions), func(a, b metav1.Condition) int {
		return conditions.Compare(a.Type, b.Type)
	})
	updateFailed := func(c metav1.Condition) bool { return c.Reason == v1alpha1.MachineUpdateFailedReason }
	if i := slices.IndexFunc(sorted, updateFailed); i >= 0 {
		return &terminal{condition: sorted[i], update: true}
	}
	terminalReason := func(c metav1.Condition) bool { return v1alpha1.IsTerminalReason(c.Reason) }
	if i := slices.IndexFunc(sorted, terminalReason); i >= 0 {
		return &terminal{condition: sorted[i]}
	}
	if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineHealthCheckSucceededCondition); hasStatus(c, metav1.ConditionFalse) {
		return &terminal{condition: *c}
	}
	return nil
}

// isTrue reports whether c is present and True.
func isTrue(c *metav1.Condition) bool { return hasStatus(c, metav1.ConditionTrue) }

// hasStatus reports whether c is present with status s.
func hasStatus(c *metav1.Condition, s metav1.ConditionStatus) bool { return c != nil && c.Status == s }

// hasReason reports whether c is present with the given reason.
func hasReason(c *metav1.Condition, reason string) bool { return c != nil && c.Reason == reason }
