package aggregate

import (
	"slices"

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
//     missing condition makes Ready Unknown/NotYetReported, never True. A readiness gate that
//     reports fine for an older generation (0 < observedGeneration < metadata.generation)
//     counts as Unknown, its line saying e.g. "True for generation 2, not yet observed for
//     generation 3", so Ready is not True until the gate's owner has observed the current
//     spec; a gate without observedGeneration is read as it is. It is written with
//     conditions.Set and the given options (e.g. conditions.WithClock);
//  2. status.lastOperation, from LastOperation with the same options (its clock dates a change
//     no lastTransitionTime dates);
//  3. status.phase, from Phase;
//  4. the Stalled condition, True (reason MachineFailed, lastOperation's description as message)
//     while the phase is Failed and absent otherwise, so kstatus
//     (sigs.k8s.io/cli-utils/pkg/kstatus) reports a Failed Machine as Failed. Nothing above
//     reads Stalled.
//
// Every type's polarity is ConditionPolarity's: a built-in type of the scope keeps the built-in
// polarity, a gate's declared polarity wins over the catalog's, and a gate without one takes the
// catalog's (v1alpha1.NegativePolarityConditions). A gate named Ready or Stalled (both derived by
// Summarize) or with an invalid condition type (all rejected by the CRD) is skipped, so
// Summarize cannot be misconfigured.
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
	var scope, negative [readyScopeArray]string
	o := readyOptions(m, opts, scope[:0], negative[:0])
	changed, _ := setReady(m, &o)
	// LastOperation and Phase, sharing the terminal signal (it depends on the conditions only,
	// which they do not change).
	signal := terminalSignal(m)
	op := lastOperationWith(m, signal, opts)
	if !sameLastOperation(op, m.Status.LastOperation) {
		m.Status.LastOperation = op
		changed = true
	}
	derived := func() *v1alpha1.LastOperation { return op }
	if p := phaseWith(m, signal, derived); p != m.Status.Phase {
		m.Status.Phase = p
		changed = true
	}
	if setStalledCondition(m, opts) {
		changed = true
	}
	return changed
}

// setReady writes the Ready condition of m, a summary of its conditions as staleGatesView
// presents them, with conditions.Set.
func setReady(m *v1alpha1.Machine, o *SummaryOptions) (bool, error) {
	var from conditions.Getter = m
	if view := staleGatesView(m, o); view != nil {
		from = conditions.List(view)
	}
	// readyOptions builds a scope summaryScope accepts (TestReadyScopeIsValid): no check here.
	c := summarizeScope(from, v1alpha1.MachineReadyCondition, o.ConditionTypes, o)
	return conditions.Set(m, c, o.SetOptions...)
}

// readyScopeArray is the size of the arrays Summarize lends readyOptions: the built-in types
// and a few readiness gates fit without allocating.
const readyScopeArray = 16

// readyOptions are the summary options of m's Ready condition. The scope and the negative
// types are appended to the given slices.
func readyOptions(m *v1alpha1.Machine, setOpts []conditions.SetOption, scope, negative []string) SummaryOptions {
	// In catalog order (the order the message lists them in; the summary does not need it).
	for _, t := range readyBuiltinTypes {
		if t != v1alpha1.MachineBootstrapConfigReadyCondition || m.Spec.Bootstrap != nil {
			scope = append(scope, t)
		}
	}
	for _, g := range m.Spec.ReadinessGates {
		t := g.ConditionType
		if t == v1alpha1.MachineReadyCondition || t == v1alpha1.MachineStalledCondition || slices.Contains(scope, t) || !isValidType(t) {
			continue
		}
		scope = append(scope, t)
	}
	for _, t := range scope {
		if ConditionPolarity(t, m.Spec.ReadinessGates) == v1alpha1.NegativeConditionPolarity {
			negative = append(negative, t)
		}
	}
	o := SummaryOptions{
		ConditionTypes:                 scope,
		NegativePolarityConditionTypes: negative,
		SetOptions:                     setOpts,
	}
	if m.DeletionTimestamp == nil {
		o.IgnoreTypesIfMissing = ignoreDeletingIfMissing
	}
	return o
}

// isValidType reports whether t can be a condition type: the same rule as the summary's scope
// (conditions.ValidateType), so a gate the summary would refuse is skipped rather than making
// Summarize leave Ready unwritten.
func isValidType(t string) bool {
	return conditions.ValidateType(t) == nil
}

// ignoreDeletingIfMissing is the IgnoreTypesIfMissing of a Machine without a deletionTimestamp.
var ignoreDeletingIfMissing = []string{v1alpha1.MachineDeletingCondition}

// sameLastOperation reports whether a and b are equal field by field, times compared by
// instant (time.Time.Equal: location and monotonic reading ignored), without reflection.
func sameLastOperation(a, b *v1alpha1.LastOperation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.State == b.State && a.Description == b.Description &&
		a.LastUpdated.Time.Equal(b.LastUpdated.Time)
}
