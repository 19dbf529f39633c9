package conditions

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestHasDuplicate: in a sorted list the conditions of one type are next to each other, so Set
// looks at the next entry only; in an unsorted one it looks at the whole rest of the list.
func TestHasDuplicate(t *testing.T) {
	list := func(types ...string) []metav1.Condition {
		out := make([]metav1.Condition, len(types))
		for i, ct := range types {
			out[i].Type = ct
		}
		return out
	}
	tests := []struct {
		name string
		list []metav1.Condition
		t    string
		want bool
	}{
		{"sorted, alone", list("Ready", "A", "B", "C"), "B", false},
		{"sorted, repeated next to it", list("Ready", "A", "B", "B", "C"), "B", true},
		{"sorted, last, alone", list("A", "B", "C"), "C", false},
		{"sorted, last two", list("A", "B", "C", "C"), "C", true},
		{"sorted, first, repeated", list("Ready", "Ready", "A"), "Ready", true},
		{"unsorted, repeated at the end", list("C", "A", "B", "C"), "C", true},
		{"unsorted, repeated in the middle", list("B", "A", "B", "Z"), "B", true},
		{"unsorted, alone", list("C", "A", "B"), "A", false},
		{"unsorted, last, alone", list("C", "A", "B"), "B", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := indexOf(tt.list, tt.t)
			if at < 0 {
				t.Fatalf("indexOf(%q) = -1", tt.t)
			}
			sorted := typesSorted(tt.list)
			if got := hasDuplicate(tt.list, at, sorted); got != tt.want {
				t.Errorf("hasDuplicate(%q at %d, sorted %v) = %v, want %v", tt.t, at, sorted, got, tt.want)
			}
			// The answer does not depend on the shortcut.
			if got := hasDuplicate(tt.list, at, false); got != tt.want {
				t.Errorf("hasDuplicate(%q at %d, sorted false) = %v, want %v", tt.t, at, got, tt.want)
			}
		})
	}
	if got := indexOf(list("A", "B", "B"), "B"); got != 1 {
		t.Errorf("indexOf finds position %d, want the first of the type, 1", got)
	}
	if got := indexOf(list("A"), "B"); got != -1 {
		t.Errorf("indexOf of a missing type = %d, want -1", got)
	}
}
