package conditions

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IsNil reports whether g is nil or a typed nil (a nil pointer, map, slice, func, channel or
// interface). The functions of this package and of aggregate read such a Getter as an object
// without conditions and never call its methods, except aggregate.NewAggregateCondition, which
// refuses a nil object in its list with an *aggregate.AggregateConfigError.
func IsNil(g Getter) bool {
	if g == nil {
		return true
	}
	v := reflect.ValueOf(g)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// GetAll returns the conditions of from as it holds them (not a copy: the caller must not modify
// them), or nil when from IsNil.
func GetAll(from Getter) []metav1.Condition {
	if IsNil(from) {
		return nil
	}
	return from.GetConditions()
}
