package conditions

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
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
//   - lastTransitionTime keeps the stored value unless the status changes; on a change it is
//     condition.LastTransitionTime when set, else the clock's now (see WithClock), truncated to
//     seconds;
//   - the condition is validated; an invalid one is not stored and Set returns false and a
//     *ValidationError;
//   - to keeps exactly one condition of condition.Type: the stored one is the first of that
//     type (as Get reads it), and any other entry of the type another writer appended is
//     removed; entries of other types, valid or not, are left as they are;
//   - the conditions are sorted (Ready first, then alphabetical by type).
//
// A Set with the same status, reason, message and observedGeneration leaves to untouched and
// returns false, however far the clock has moved. Set on a nil to returns false, nil.
func Set(to Setter, condition metav1.Condition, opts ...SetOption) (bool, error) {
	if IsNil(to) {
		return false, nil
	}
	if g, ok := to.(generationGetter); ok {
		condition.ObservedGeneration = g.GetGeneration()
	}
	condition.Message = TruncateMessage(condition.Message)
	stored := to.GetConditions()
	existing := meta.FindStatusCondition(stored, condition.Type)
	switch {
	case existing != nil && existing.Status == condition.Status && !existing.LastTransitionTime.IsZero():
		condition.LastTransitionTime = existing.LastTransitionTime
	case condition.LastTransitionTime.IsZero():
		condition.LastTransitionTime = StoredTime((&SetOptions{}).ApplyOptions(opts).now())
	default:
		condition.LastTransitionTime = StoredTime(condition.LastTransitionTime.Time)
	}
	if err := Validate(condition); err != nil {
		return false, err
	}
	list := slices.DeleteFunc(slices.Clone(stored), func(c metav1.Condition) bool { return c.Type == condition.Type })
	list = append(list, condition)
	Sort(list)
	if equality.Semantic.DeepEqual(stored, list) {
		return false, nil
	}
	to.SetConditions(list)
	return true, nil
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
	if meta.FindStatusCondition(to.GetConditions(), conditionType) == nil {
		return false
	}
	list := append([]metav1.Condition(nil), to.GetConditions()...)
	meta.RemoveStatusCondition(&list, conditionType)
	to.SetConditions(list)
	return true
}
