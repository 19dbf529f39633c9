package jsontype

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNested: found, not found (missing or null, on the way or at the end) and each wrong type,
// with the path of the offending field.
func TestNested(t *testing.T) {
	obj := map[string]any{
		"spec":     map[string]any{"providerID": "aws:///i-1", "paused": true, "count": int64(3)},
		"status":   map[string]any{"ready": nil, "initialization": "yes", "conditions": []any{}},
		"metadata": nil,
	}
	type result struct {
		Value any
		Found bool
		Err   string
	}
	run := func(v any, found bool, err error) result {
		r := result{Value: v, Found: found}
		if err != nil {
			r.Err = err.Error()
			var fe *FieldError
			var te *TypeError
			if !errors.As(err, &fe) || !errors.As(err, &te) {
				t.Errorf("%v: not a *FieldError wrapping a *TypeError", err)
			}
		}
		return r
	}
	cases := []struct {
		name string
		got  result
		want result
	}{
		{"string", run(Nested(obj, String, "spec", "providerID")), result{"aws:///i-1", true, ""}},
		{"bool", run(Nested(obj, Bool, "spec", "paused")), result{true, true, ""}},
		{"list", run(Nested(obj, List, "status", "conditions")), result{[]any{}, true, ""}},
		{"object", run(Nested(obj, Object, "spec")), result{obj["spec"], true, ""}},
		{"missing at the end", run(Nested(obj, String, "spec", "version")), result{"", false, ""}},
		{"null at the end", run(Nested(obj, Bool, "status", "ready")), result{false, false, ""}},
		{"missing on the way", run(Nested(obj, Bool, "nope", "ready")), result{false, false, ""}},
		{"null on the way", run(Nested(obj, String, "metadata", "name")), result{"", false, ""}},
		{"number for a string", run(Nested(obj, String, "spec", "count")), result{"", false, "spec.count: must be a string, not a number"}},
		{"string for a boolean", run(Nested(obj, Bool, "spec", "providerID")), result{false, false, "spec.providerID: must be a boolean, not a string"}},
		{"list for an object", run(Nested(obj, Object, "status", "conditions")), result{map[string]any(nil), false, "status.conditions: must be an object, not a list"}},
		{"not an object on the way", run(Nested(obj, Bool, "status", "initialization", "provisioned")), result{false, false, "status.initialization: must be an object, not a string"}},
		{"object for a list", run(Nested(obj, List, "spec")), result{[]any(nil), false, "spec: must be a list, not an object"}},
		{"no path", run(Nested(obj, String)), result{"", false, ""}},
	}
	for _, tc := range cases {
		if d := cmp.Diff(tc.want, tc.got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}
