// Package jsontype names the JSON type of a decoded (unstructured) value, for error messages
// that must say what was found without quoting a value of unbounded size.
package jsontype

import "fmt"

// Of returns "null", "a string", "a boolean", "a number", "an object" or "a list" for the values
// encoding/json and apimachinery's unstructured decoding produce, or "a <Go type>" for any other
// value.
func Of(v any) string {
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
