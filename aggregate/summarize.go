package aggregate

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Summarize derives everything derived on m.Status from m's conditions, in this order, and
// reports whether anything changed:
//
//  1. the Ready condition, a summary (see NewSummaryCondition) of InfrastructureReady,
//     NodeReady, NodeHealthy, HealthCheckSucceeded, Deleting (negative polarity),
//     BootstrapConfigReady when spec.bootstrap is set, and every readiness gate with its
//     polarity. Deleting is ignored when missing unless a deletionTimestamp is set, so that a
//     Machine nobody deletes is not Unknown for want of a Deleting condition; every other
//     missing condition makes Ready Unknown/NotYetReported, never True. It is written with
//     conditions.Set and the given options (e.g. conditions.WithClock);
//  2. status.lastOperation, from LastOperation;
//  3. status.phase, from Phase.
//
// A readiness gate that is a built-in type of the scope keeps the built-in polarity; a gate
// whose polarity is empty takes the catalog's (Negative for the types in
// the conditions polarity registry, else Positive); a gate named Ready or with an invalid
// condition type (both rejected by the CRD) is skipped, so Summarize cannot be misconfigured.
// Ready is left as it was only if conditions.Set rejects it, which needs a negative
// metadata.generation or a clock that reads the zero time.
//
// Summarize is idempotent: called again on its own result it returns false and changes
// nothing. A nil m returns false.
func Summarize(m *v1alpha1.Machine, opts ...conditions.SetOption) bool {
	if m == nil {
		return false
	}
	// readyOptions cannot build a misconfiguration; conditions.Set rejects Ready only for a
	// negative metadata.generation or a clock that reads the zero time, and then writes nothing.
	changed, _ := SetSummaryCondition(m, v1alpha1.MachineReadyCondition, readyOptions(m, opts)...)
	if op := LastOperation(m); !equality.Semantic.DeepEqual(op, m.Status.LastOperation) {
		m.Status.LastOperation = op
		changed = true
	}
	if p := Phase(m); p != m.Status.Phase {
		m.Status.Phase = p
		changed = true
	}
	return changed
}

// readyOptions are the summary options of m's Ready condition.
func readyOptions(m *v1alpha1.Machine, setOpts []conditions.SetOption) []SummaryOption {
	scope := []string{
		v1alpha1.MachineInfrastructureReadyCondition,
		v1alpha1.MachineNodeReadyCondition,
		v1alpha1.MachineNodeHealthyCondition,
		v1alpha1.MachineHealthCheckSucceededCondition,
		v1alpha1.MachineDeletingCondition,
	}
	if m.Spec.Bootstrap != nil {
		scope = append(scope, v1alpha1.MachineBootstrapConfigReadyCondition)
	}
	negative := []string{v1alpha1.MachineDeletingCondition}
	for _, g := range m.Spec.ReadinessGates {
		t := g.ConditionType
		if t == v1alpha1.MachineReadyCondition || slices.Contains(scope, t) || len(validation.IsQualifiedName(t)) > 0 {
			continue
		}
		scope = append(scope, t)
		if g.Polarity == v1alpha1.NegativeConditionPolarity ||
			(g.Polarity == "" && conditions.IsNegativePolarity(t)) {
			negative = append(negative, t)
		}
	}
	opts := []SummaryOption{
		ForConditionTypes(scope...),
		NegativePolarityConditionTypes(negative...),
		WithSetOptions(setOpts...),
	}
	if m.DeletionTimestamp == nil {
		opts = append(opts, IgnoreTypesIfMissing(v1alpha1.MachineDeletingCondition))
	}
	return opts
}
