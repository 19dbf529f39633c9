package aggregate

import (
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Summarize derives everything derived on m.Status from m's conditions, in this order, and
// reports whether anything changed:
//
//  1. the Ready condition (readyCondition: a summary of the catalog's types in Ready's scope and
//     the readiness gates), written with conditions.Set;
//  2. status.lastOperation, from LastOperation;
//  3. status.phase, from Phase;
//  4. the Stalled condition, True (reason MachineFailed, lastOperation's description as
//     message) while the phase is Failed and absent otherwise, so that kstatus
//     (sigs.k8s.io/cli-utils/pkg/kstatus) reports a Failed Machine as Failed. Nothing above
//     reads Stalled.
//
// now is the instant of a change (a reconcile's): the lastTransitionTime of Ready or Stalled
// when its status changes, and lastOperation's lastUpdated when no condition dates the change.
//
// Summarize is idempotent: called again on its own result it returns false. A nil m returns
// false. Ready is left as it is only when conditions.Set rejects it (a negative
// metadata.generation).
func Summarize(m *v1alpha1.Machine, now time.Time) bool {
	if m == nil {
		return false
	}
	changed := false
	if ready, err := readyCondition(m); err == nil {
		ready.LastTransitionTime = metav1.NewTime(now)
		changed, _ = conditions.Set(m, *ready)
	}
	if op := LastOperation(m, now); !equality.Semantic.DeepEqual(op, m.Status.LastOperation) {
		m.Status.LastOperation = op
		changed = true
	}
	if p := Phase(m); p != m.Status.Phase {
		m.Status.Phase = p
		changed = true
	}
	return setStalledCondition(m, now) || changed
}

// setStalledCondition mirrors status.phase Failed into the Stalled condition (kstatus's
// "abnormal-true" convention: absent when not stalled) and reports whether the conditions
// changed. Its reason is not a terminal reason, so it cannot keep the phase Failed.
func setStalledCondition(m *v1alpha1.Machine, now time.Time) bool {
	if m.Status.Phase != v1alpha1.MachinePhaseFailed {
		return conditions.Delete(m, v1alpha1.MachineStalledCondition)
	}
	message := ""
	if op := m.Status.LastOperation; op != nil {
		message = op.Description
	}
	changed, _ := conditions.Set(m, metav1.Condition{
		Type: v1alpha1.MachineStalledCondition, Status: metav1.ConditionTrue,
		Reason: v1alpha1.MachineFailedReason, Message: message, LastTransitionTime: metav1.NewTime(now),
	})
	return changed
}
