package aggregate

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// setStalledCondition mirrors status.phase into the Stalled condition, for kstatus
// (sigs.k8s.io/cli-utils/pkg/kstatus), which reports a resource as Failed only through a
// Stalled=True condition. While the phase is Failed, Stalled is True with reason MachineFailed
// and lastOperation's description as message; otherwise it is removed (kstatus's
// "abnormal-true" convention: absent when not stalled). It reports whether the conditions
// changed. Its reason is never a terminal reason (v1alpha1.TerminalReasons), so it cannot keep
// the phase Failed by itself.
func setStalledCondition(m *v1alpha1.Machine, opts []conditions.SetOption) bool {
	if m.Status.Phase != v1alpha1.MachinePhaseFailed {
		return conditions.Delete(m, v1alpha1.MachineStalledCondition)
	}
	message := ""
	if op := m.Status.LastOperation; op != nil {
		message = op.Description
	}
	changed, _ := conditions.Set(m, metav1.Condition{
		Type:    v1alpha1.MachineStalledCondition,
		Status:  metav1.ConditionTrue,
		Reason:  v1alpha1.MachineFailedReason,
		Message: message,
	}, opts...)
	return changed
}
