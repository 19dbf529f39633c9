package conditions

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// getterFunc is a Getter of a func kind, to check typed nil funcs.
type getterFunc func() []metav1.Condition

func (f getterFunc) GetConditions() []metav1.Condition { return f() }

// TestIsNilAndGetAll: nil and every typed nil read as an object without conditions; anything
// else is read through GetConditions, as it holds them.
func TestIsNilAndGetAll(t *testing.T) {
	held := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ok"}}
	var nilList List
	var nilPtr *List
	var nilFunc getterFunc
	cases := []struct {
		name string
		g    Getter
		nil  bool
	}{
		{"nil", nil, true},
		{"typed nil pointer", nilPtr, true},
		{"typed nil slice", nilList, true},
		{"typed nil func", nilFunc, true},
		{"empty list", List{}, false},
		{"list", List(held), false},
		{"pointer to a nil list", &nilList, false},
		{"func", getterFunc(func() []metav1.Condition { return held }), false},
	}
	for _, tc := range cases {
		if got := IsNil(tc.g); got != tc.nil {
			t.Errorf("%s: IsNil = %v, want %v", tc.name, got, tc.nil)
		}
		got := GetAll(tc.g)
		switch {
		case tc.nil && got != nil:
			t.Errorf("%s: GetAll = %v, want nil", tc.name, got)
		case !tc.nil && len(got) > 0 && &got[0] != &tc.g.GetConditions()[0]:
			t.Errorf("%s: GetAll copied the conditions", tc.name)
		}
	}
	if got := GetAll(List(held)); len(got) != 1 || &got[0] != &held[0] {
		t.Errorf("GetAll(list) = %v, want the list itself", got)
	}
}
