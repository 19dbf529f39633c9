// Package jsontype reads typed fields of decoded (unstructured) JSON objects, with one error shape
// for a field of the wrong type (*TypeError, wrapped in a *FieldError naming the path), and names
// the JSON type of a value, so that messages say what was found without quoting a value of
// unbounded size. The conditions adapters and the controller's reading of the Cluster API
// contract both read through it.
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
