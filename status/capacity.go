package status

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// FitConditions applies the capacity rule to m's computed status: when our conditions and the
// other writers' together exceed v1alpha1.MaxConditions, ours are removed from m, highest
// catalog Priority first, until they fit (all of them when others hold MaxConditions or more).
// Other writers' conditions are never touched. It returns the omitted types, nil when all fit.
func FitConditions(m *v1alpha1.Machine) []string {
	over := len(m.Status.Conditions) - v1alpha1.MaxConditions
	if over <= 0 {
		return nil
	}
	catalog := v1alpha1.Catalog()
	slices.SortFunc(catalog, func(a, b v1alpha1.ConditionInfo) int { return b.Priority - a.Priority })
	var omitted []string
	for _, c := range catalog {
		if over == 0 {
			break
		}
		i := slices.IndexFunc(m.Status.Conditions, func(mc metav1.Condition) bool { return mc.Type == c.Type })
		if !c.Owned.Applies(&m.Spec) || i < 0 {
			continue
		}
		m.Status.Conditions = slices.Delete(m.Status.Conditions, i, i+1)
		omitted = append(omitted, c.Type)
		over--
	}
	return omitted
}
