package conditions_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"equal", "NodeReady", "NodeReady", 0},
		{"Ready equals Ready", "Ready", "Ready", 0},
		{"Ready before a type that sorts earlier alphabetically", "Ready", "BootstrapConfigReady", -1},
		{"any other type after Ready", "BootstrapConfigReady", "Ready", 1},
		{"Ready before a type that sorts later alphabetically", "Ready", "Updating", -1},
		{"alphabetical", "Deleting", "NodeReady", -1},
		{"alphabetical, reversed", "NodeReady", "Deleting", 1},
		{"by bytes: upper case before lower case", "Zebra", "apple", -1},
		{"by bytes: prefixed types after upper-case names", "example.com/A", "NodeReady", 1},
		{"only the exact type Ready is special", "ready", "Deleting", 1},
		{"a prefixed Ready is not special", "example.com/Ready", "Deleting", 1},
		{"prefix of another type first", "Node", "NodeReady", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := struct {
				Compare, Reverse int
				Less             bool
			}{conditions.Compare(tt.a, tt.b), conditions.Compare(tt.b, tt.a), conditions.Less(tt.a, tt.b)}
			want := struct {
				Compare, Reverse int
				Less             bool
			}{tt.want, -tt.want, tt.want < 0}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Compare(%q, %q) (-want +got):\n%s", tt.a, tt.b, diff)
			}
		})
	}
}

func TestSort(t *testing.T) {
	tests := []struct {
		name        string
		in          []string
		want        []string
		wantChanged bool
	}{
		{"nil", nil, []string{}, false},
		{"one", []string{"NodeReady"}, []string{"NodeReady"}, false},
		{"already sorted", []string{"Ready", "Deleting", "NodeReady"}, []string{"Ready", "Deleting", "NodeReady"}, false},
		{"Ready last", []string{"Deleting", "NodeReady", "Ready"}, []string{"Ready", "Deleting", "NodeReady"}, true},
		{"reversed", []string{"Updating", "NodeReady", "Deleting", "Ready"}, []string{"Ready", "Deleting", "NodeReady", "Updating"}, true},
		{"no Ready", []string{"b", "a", "example.com/c", "C"}, []string{"C", "a", "b", "example.com/c"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := make([]metav1.Condition, 0, len(tt.in))
			for _, typ := range tt.in {
				list = append(list, metav1.Condition{Type: typ})
			}
			changed := conditions.Sort(list)
			if changed != tt.wantChanged {
				t.Errorf("Sort() = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, types(list)); diff != "" {
				t.Errorf("order after Sort (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortIsStable checks that conditions of the same type (which Set never stores, but a
// foreign list may hold) keep their relative order.
func TestSortIsStable(t *testing.T) {
	list := []metav1.Condition{
		{Type: "NodeReady", Reason: "First"},
		{Type: "Deleting", Reason: "Only"},
		{Type: "NodeReady", Reason: "Second"},
	}
	conditions.Sort(list)
	var got []string
	for _, c := range list {
		got = append(got, c.Type+"/"+c.Reason)
	}
	want := []string{"Deleting/Only", "NodeReady/First", "NodeReady/Second"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order after Sort (-want +got):\n%s", diff)
	}
}
