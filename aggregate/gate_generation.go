package aggregate

import (
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// staleGatesView returns the conditions Ready summarizes for m: m's own, except that a
// readiness gate in scope that reports fine (True, or False for a negative type) for an older
// generation than m's (0 < observedGeneration < metadata.generation) counts as Unknown: its
// owner has not yet said anything about the current spec. Reason and lastTransitionTime are
// kept; the message says which generation was observed. A gate without observedGeneration, a
// gate that reports an issue (an issue reported for an older generation is still an issue) and
// every built-in condition (computed by the controller for the current generation) are read as
// they are.
//
// It returns nil when no gate is stale, so the common case does not allocate; otherwise a copy
// of m's conditions with the stale gates changed, never m's slice modified.
func staleGatesView(m *v1alpha1.Machine, o *SummaryOptions) []metav1.Condition {
	list := m.Status.Conditions
	var view []metav1.Condition
	for _, g := range m.Spec.ReadinessGates {
		t := g.ConditionType
		if !slices.Contains(o.ConditionTypes, t) {
			continue // skipped by readyOptions
		}
		i := slices.IndexFunc(list, func(c metav1.Condition) bool { return c.Type == t })
		if i < 0 || !staleFine(&list[i], m.Generation, slices.Contains(o.NegativePolarityConditionTypes, t)) {
			continue
		}
		if view == nil {
			view = slices.Clone(list)
		}
		view[i].Status = metav1.ConditionUnknown
		view[i].Message = staleGateMessage(&list[i], m.Generation)
	}
	return view
}

// staleFine reports whether c reports fine for a generation older than generation.
func staleFine(c *metav1.Condition, generation int64, negative bool) bool {
	if c.ObservedGeneration <= 0 || c.ObservedGeneration >= generation {
		return false
	}
	fine := metav1.ConditionTrue
	if negative {
		fine = metav1.ConditionFalse
	}
	return c.Status == fine
}

// staleGateMessage is the summary's text for a stale gate, e.g. "True for generation 2, not
// yet observed for generation 3".
func staleGateMessage(c *metav1.Condition, generation int64) string {
	return string(c.Status) + " for generation " + strconv.FormatInt(c.ObservedGeneration, 10) +
		", not yet observed for generation " + strconv.FormatInt(generation, 10)
}
