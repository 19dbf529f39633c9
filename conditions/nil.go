package conditions

import "reflect"

// isNil reports whether g is nil or a typed nil pointer, so that the free functions are nil-safe.
func isNil(g any) bool {
	if g == nil {
		return true
	}
	v := reflect.ValueOf(g)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
