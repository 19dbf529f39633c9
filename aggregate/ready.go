package aggregate

import (
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// readyCondition returns m's Ready condition without a time: a summary
// (conditions.NewSummaryCondition) of the catalog's types that Ready includes for m's spec and
// of every readiness gate, each with its ConditionPolarity. Deleting is ignored when missing
// unless a deletionTimestamp is set. A gate named Ready or Stalled, or with an invalid type (all
// rejected by the CRD), is skipped. A readiness gate that reports fine for an older generation
// (0 < observedGeneration < metadata.generation) counts as Unknown, its line saying e.g. "True
// for generation 2, not yet observed for generation 3"; a gate without observedGeneration is
// read as it is.
func readyCondition(m *v1alpha1.Machine) (*metav1.Condition, error) {
	var scope, negative []string
	for _, c := range v1alpha1.Catalog() {
		if c.InReady.Applies(&m.Spec) {
			scope = append(scope, c.Type)
		}
	}
	for _, g := range m.Spec.ReadinessGates {
		t := g.ConditionType
		if t == v1alpha1.MachineReadyCondition || t == v1alpha1.MachineStalledCondition ||
			slices.Contains(scope, t) || conditions.ValidateType(t) != nil {
			continue
		}
		scope = append(scope, t)
	}
	for _, t := range scope {
		if ConditionPolarity(t, m.Spec.ReadinessGates) == v1alpha1.NegativeConditionPolarity {
			negative = append(negative, t)
		}
	}
	opts := []conditions.SummaryOption{conditions.ForConditionTypes(scope), conditions.NegativePolarityConditionTypes(negative)}
	if m.DeletionTimestamp == nil {
		opts = append(opts, conditions.IgnoreTypesIfMissing{v1alpha1.MachineDeletingCondition})
	}
	return conditions.NewSummaryCondition(conditions.List(readyInputs(m, negative)), v1alpha1.MachineReadyCondition, opts...)
}

// readyInputs returns a copy of m's conditions in which every readiness gate that reports fine
// (True, or False for a type in negative) for a generation older than m's is Unknown, its
// message naming the generation observed.
func readyInputs(m *v1alpha1.Machine, negative []string) []metav1.Condition {
	list := slices.Clone(m.Status.Conditions)
	for _, g := range m.Spec.ReadinessGates {
		i := slices.IndexFunc(list, func(c metav1.Condition) bool { return c.Type == g.ConditionType })
		if i < 0 {
			continue
		}
		c := &list[i]
		fine := metav1.ConditionTrue
		if slices.Contains(negative, c.Type) {
			fine = metav1.ConditionFalse
		}
		if c.Status != fine || c.ObservedGeneration <= 0 || c.ObservedGeneration >= m.Generation {
			continue
		}
		c.Message = string(c.Status) + " for generation " + strconv.FormatInt(c.ObservedGeneration, 10) +
			", not yet observed for generation " + strconv.FormatInt(m.Generation, 10)
		c.Status = metav1.ConditionUnknown
	}
	return list
}
