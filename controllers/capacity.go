package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ConditionsOmittedEventReason is the reason of the Warning event emitted when other writers'
// conditions leave too little room in status.conditions for all of ours.
const ConditionsOmittedEventReason = "ConditionsOmitted"

// conditionPriority lists every condition type the controller may own, most important first:
// at the limit, the last ones present are omitted first. Ready and the inputs it is derived
// from come first; the health check reads InfrastructureReady's lastTransitionTime, and
// lastOperation its inputs' previous values, so those are omitted last.
var conditionPriority = []string{
	v1alpha1.MachineReadyCondition,
	v1alpha1.MachineInfrastructureReadyCondition,
	v1alpha1.MachineBootstrapConfigReadyCondition,
	v1alpha1.MachineNodeReadyCondition,
	v1alpha1.MachineHealthCheckSucceededCondition,
	v1alpha1.MachineDeletingCondition,
	v1alpha1.MachineUpdatingCondition,
	v1alpha1.MachineDrainingCondition,
	v1alpha1.MachineNodeHealthyCondition,
	v1alpha1.MachineStalledCondition,
	v1alpha1.MachineStandbyCondition,
	v1alpha1.MachinePausedCondition,
}

// fitConditions applies the capacity rule to m's computed status: when our conditions and the
// other writers' together exceed v1alpha1.MaxConditions, ours of lowest conditionPriority are
// removed from m until they fit (all of them when others hold MaxConditions or more). Other
// writers' conditions are never touched. It returns the omitted types, nil when all fit.
func fitConditions(m *v1alpha1.Machine) []string {
	over := len(m.Status.Conditions) - v1alpha1.MaxConditions
	if over <= 0 {
		return nil
	}
	owned := ownedTypes(m)
	var omitted []string
	for i := len(conditionPriority) - 1; i >= 0 && over > 0; i-- {
		t := conditionPriority[i]
		if !owned[t] {
			continue
		}
		for j, c := range m.Status.Conditions {
			if c.Type == t {
				m.Status.Conditions = append(m.Status.Conditions[:j], m.Status.Conditions[j+1:]...)
				omitted = append(omitted, t)
				over--
				break
			}
		}
	}
	return omitted
}

// reportOmitted surfaces conditions fitConditions omitted from a status about to be written:
// machinestatus_conditions_omitted_total, a Warning event ConditionsOmitted naming them, and an
// ERROR log line the first time in a row for the Machine. Nothing when omitted is empty.
func (r *MachineReconciler) reportOmitted(ctx context.Context, m *v1alpha1.Machine, omitted []string) {
	key := types.NamespacedName{Namespace: m.Namespace, Name: m.Name}
	started := r.refusals.setOmitted(key, len(omitted) > 0)
	if len(omitted) == 0 {
		return
	}
	conditionsOmittedMetric.Add(float64(len(omitted)))
	note := fmt.Sprintf("status.conditions may hold %d conditions and other writers hold %d, so %s %s not written; remove other writers' conditions to make room",
		v1alpha1.MaxConditions, len(m.Status.Conditions)-countOwned(m), strings.Join(omitted, ", "), map[bool]string{true: "is", false: "are"}[len(omitted) == 1])
	r.Recorder.Eventf(eventRegarding(v1alpha1.GroupVersion.String(), m), nil, corev1.EventTypeWarning, ConditionsOmittedEventReason, eventAction, "%s", note)
	if started {
		log.FromContext(ctx).Error(nil, "other writers' conditions leave too little room for ours; the status is written without some of them", "omitted", omitted)
	}
}

func countOwned(m *v1alpha1.Machine) int {
	owned := ownedTypes(m)
	n := 0
	for _, c := range m.Status.Conditions {
		if owned[c.Type] {
			n++
		}
	}
	return n
}
