package conditions

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// generationGetter is implemented by every Kubernetes object (metav1.Object).
type generationGetter interface {
	GetGeneration() int64
}

// Set adds or updates the condition of condition.Type on to and reports whether to changed.
//
// Rules, in the order they apply:
//   - observedGeneration is taken from to's GetGeneration() when to has that method (every
//     Kubernetes object: its metadata.generation);
//   - a message longer than MaxMessageBytes is cut at a UTF-8 boundary and ends with
//     TruncationMarker;
//   - lastTransitionTime keeps its old value unless the status changes; on a change it is
//     condition.LastTransitionTime when set, else the clock's now (see WithClock), truncated to
//     seconds;
//   - the condition is validated; an invalid one is not stored and Set returns false and a
//     *ValidationError;
//   - to keeps exactly one condition of condition.Type: the stored one is the first of that
//     type (as Get reads it), and any other entry of the type another writer appended is
//     removed. A stored entry without lastTransitionTime is replaced whole; entries of other
//     types, valid or not, are left as they are and never make Set fail;
//   - the conditions are sorted (Ready first, then alphabetical by type).
//
// A Set with the same status, reason, message and observedGeneration returns false and leaves
// to untouched, however far the clock has moved. Set on a nil to returns false, nil.
func Set(to Setter, condition metav1.Condition, opts ...SetOption) (bool, error) {
	if IsNil(to) {
		return false, nil
	}
	if g, ok := to.(generationGetter); ok {
		condition.ObservedGeneration = g.GetGeneration()
	}
	condition.Message = TruncateMessage(condition.Message)

	stored := to.GetConditions()
	at := indexOf(stored, condition.Type)
	var existing *metav1.Condition
	if at >= 0 {
		existing = &stored[at]
	}
	switch {
	case existing != nil && existing.Status == condition.Status && !existing.LastTransitionTime.IsZero():
		condition.LastTransitionTime = existing.LastTransitionTime
	case condition.LastTransitionTime.IsZero():
		// Options are read only here, on a change, so that an unchanged Set allocates nothing.
		condition.LastTransitionTime = StoredTime((&SetOptions{}).ApplyOptions(opts).now())
	default:
		condition.LastTransitionTime = StoredTime(condition.LastTransitionTime.Time)
	}
	if err := Validate(condition); err != nil {
		return false, err
	}
	sorted := typesSorted(stored)
	duplicated := existing != nil && hasDuplicate(stored, at, sorted)
	if unchanged(existing, condition) && !duplicated && sorted {
		// What follows would copy the list, change nothing in it and find it sorted.
		return false, nil
	}

	list := append([]metav1.Condition(nil), stored...)
	if existing != nil && (existing.LastTransitionTime.IsZero() || duplicated) {
		// A condition stored without a time (never by the API server) is replaced whole, and
		// so is a type stored more than once (by another writer's append): the lastTransitionTime
		// decided above from the first entry is kept.
		meta.RemoveStatusCondition(&list, condition.Type)
	}
	changed := meta.SetStatusCondition(&list, condition) || duplicated
	if sorted := Sort(list); sorted || changed {
		to.SetConditions(list)
		return true, nil
	}
	return false, nil
}

// indexOf returns the position of the first condition of type t in list (the one
// meta.FindStatusCondition and Get find), or -1.
func indexOf(list []metav1.Condition, t string) int {
	return slices.IndexFunc(list, func(c metav1.Condition) bool { return c.Type == t })
}

// hasDuplicate reports whether list holds another condition of the type of list[first], the
// first of its type. In a list sorted by Compare (sorted true) the conditions of one type are
// next to each other, so only list[first+1] is looked at; otherwise the rest of the list is.
func hasDuplicate(list []metav1.Condition, first int, sorted bool) bool {
	t := list[first].Type
	if sorted {
		return first+1 < len(list) && list[first+1].Type == t
	}
	return slices.ContainsFunc(list[first+1:], func(c metav1.Condition) bool { return c.Type == t })
}

// unchanged reports whether meta.SetStatusCondition would leave existing as it is when given
// condition: same status, reason, message and observedGeneration (and, as Set requires for
// keeping a stored condition, a lastTransitionTime).
func unchanged(existing *metav1.Condition, condition metav1.Condition) bool {
	return existing != nil && !existing.LastTransitionTime.IsZero() &&
		existing.Status == condition.Status && existing.Reason == condition.Reason &&
		existing.Message == condition.Message && existing.ObservedGeneration == condition.ObservedGeneration
}

// MarkTrue sets a True condition of the given type; see Set for the rules and errors.
func MarkTrue(to Setter, conditionType, reason, message string, opts ...SetOption) (bool, error) {
	return mark(to, conditionType, metav1.ConditionTrue, reason, message, opts)
}

// MarkFalse sets a False condition of the given type; see Set for the rules and errors.
func MarkFalse(to Setter, conditionType, reason, message string, opts ...SetOption) (bool, error) {
	return mark(to, conditionType, metav1.ConditionFalse, reason, message, opts)
}

// MarkUnknown sets an Unknown condition of the given type; see Set for the rules and errors.
func MarkUnknown(to Setter, conditionType, reason, message string, opts ...SetOption) (bool, error) {
	return mark(to, conditionType, metav1.ConditionUnknown, reason, message, opts)
}

func mark(to Setter, t string, s metav1.ConditionStatus, reason, message string, opts []SetOption) (bool, error) {
	return Set(to, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message}, opts...)
}

// Delete removes the condition of the given type from to and reports whether it was present.
func Delete(to Setter, conditionType string) bool {
	if IsNil(to) {
		return false
	}
	// Nothing to delete costs nothing: no copy, no write.
	if meta.FindStatusCondition(to.GetConditions(), conditionType) == nil {
		return false
	}
	list := append([]metav1.Condition(nil), to.GetConditions()...)
	meta.RemoveStatusCondition(&list, conditionType)
	to.SetConditions(list)
	return true
}
