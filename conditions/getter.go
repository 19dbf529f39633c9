package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Getter is an object that exposes its conditions, e.g. *v1alpha1.Machine.
type Getter interface {
	// GetConditions returns the object's conditions; the caller must not modify them.
	GetConditions() []metav1.Condition
}

// Setter is an object whose conditions can be replaced, e.g. *v1alpha1.Machine.
type Setter interface {
	Getter
	// SetConditions replaces the object's conditions.
	SetConditions([]metav1.Condition)
}

// Get returns a copy of the condition of the given type, or nil when from is nil or has no such
// condition.
func Get(from Getter, conditionType string) *metav1.Condition {
	if IsNil(from) {
		return nil
	}
	c := meta.FindStatusCondition(from.GetConditions(), conditionType)
	if c == nil {
		return nil
	}
	out := *c
	return &out
}

// Has reports whether from has a condition of the given type.
func Has(from Getter, conditionType string) bool {
	return Get(from, conditionType) != nil
}

// IsTrue reports whether the condition is present with status True.
func IsTrue(from Getter, conditionType string) bool {
	return status(from, conditionType) == metav1.ConditionTrue
}

// IsFalse reports whether the condition is present with status False.
func IsFalse(from Getter, conditionType string) bool {
	return status(from, conditionType) == metav1.ConditionFalse
}

// IsUnknown reports whether the condition is Unknown or missing (API conventions: a missing
// condition is Unknown).
func IsUnknown(from Getter, conditionType string) bool {
	return status(from, conditionType) == metav1.ConditionUnknown
}

// GetReason returns the condition's reason, or "" when it is missing.
func GetReason(from Getter, conditionType string) string {
	if c := Get(from, conditionType); c != nil {
		return c.Reason
	}
	return ""
}

// GetMessage returns the condition's message, or "" when it is missing.
func GetMessage(from Getter, conditionType string) string {
	if c := Get(from, conditionType); c != nil {
		return c.Message
	}
	return ""
}

// GetLastTransitionTime returns the condition's lastTransitionTime, or nil when it is missing.
func GetLastTransitionTime(from Getter, conditionType string) *metav1.Time {
	if c := Get(from, conditionType); c != nil {
		return &c.LastTransitionTime
	}
	return nil
}

func status(from Getter, conditionType string) metav1.ConditionStatus {
	if c := Get(from, conditionType); c != nil {
		return c.Status
	}
	return metav1.ConditionUnknown
}
