package conditions

import "fmt"

// jsonType names the JSON type of a decoded value ("null", "a string", "a boolean", "a number",
// "an object", "a list"), or "a <Go type>" for any other value, so that an error says what was
// found without quoting a value of unbounded size.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int, int32, float64, float32:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}

// jsonField returns m[key] as a T, want naming T as jsonType does: missing or null is not found,
// another type an error "must be <want>, not <type>".
func jsonField[T any](m map[string]any, key, want string) (T, bool, error) {
	var zero T
	v, ok := m[key]
	if !ok || v == nil {
		return zero, false, nil
	}
	t, ok := v.(T)
	if !ok {
		return zero, false, fmt.Errorf("must be %s, not %s", want, jsonType(v))
	}
	return t, true, nil
}
