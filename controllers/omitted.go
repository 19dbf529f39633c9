package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/status"
)

// ConditionsOmittedEventReason is the reason of the Warning event emitted when other writers'
// conditions leave too little room in status.conditions for all of ours.
const ConditionsOmittedEventReason = "ConditionsOmitted"

// reportOmitted surfaces conditions status.FitConditions omitted from a status about to be written:
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
	owned := status.OwnedTypes(m)
	n := 0
	for _, c := range m.Status.Conditions {
		if owned[c.Type] {
			n++
		}
	}
	return n
}
