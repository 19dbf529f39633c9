package conditions

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadyCondition is the summary condition type, always sorted first.
const ReadyCondition = "Ready"

// Less reports whether a condition of type a sorts before one of type b: Ready first, then
// alphabetical by type. This is the one order used by Set, summaries and printers.
func Less(a, b string) bool {
	return Compare(a, b) < 0
}

// Compare orders condition types like Less, returning -1, 0 or +1.
func Compare(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ReadyCondition:
		return -1
	case b == ReadyCondition:
		return 1
	}
	return strings.Compare(a, b)
}

// Sort sorts conditions in place in the order of Less and reports whether the order changed.
func Sort(conditions []metav1.Condition) bool {
	if slices.IsSortedFunc(conditions, compareTypes) {
		return false
	}
	slices.SortStableFunc(conditions, compareTypes)
	return true
}

// compareTypes orders conditions by type like Compare.
func compareTypes(a, b metav1.Condition) int { return Compare(a.Type, b.Type) }
