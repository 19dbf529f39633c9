package conditions

import (
	"errors"
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FromUnstructured reads the conditions of any object, e.g. a Cluster API infrastructure or
// bootstrap object of any provider and API version. It returns nil, nil for a nil object.
//
// Where, in order of preference:
//   - status.v1beta2.conditions, when present and not null, even if empty: a Cluster API v1beta1
//     object carrying the new conditions next to its old ones;
//   - else status.conditions;
//   - else the object has no conditions: FromUnstructured returns nil and no error.
//
// Each item may be a metav1.Condition or a Cluster API v1beta1 condition; the fields are read
// the same way for both, then the rules shared by every adapter apply (see List):
//   - type, status and lastTransitionTime are required; lastTransitionTime is an RFC 3339 time
//     between the years 1 and 9999 (UTC), not the zero time;
//   - reason and message are optional strings; an empty reason, usual on a True v1beta1
//     condition, becomes NoReasonReportedReason;
//   - observedGeneration is an optional integer; a v1beta1 condition has none and reads as 0,
//     "not reported" (the object's generation would claim an observation nobody made);
//   - severity (v1beta1: Error, Warning, Info) is ignored: metav1.Condition has no such field,
//     and the reason and message tell what it qualifies;
//   - any other field is ignored.
//
// An item of the wrong shape was left by another writer: it is skipped, the others are returned
// with a *SkippedError naming the object and each skipped item's field: an item that is not an
// object; a missing or invalid type, status or lastTransitionTime; a reason or message that is
// not a string; an observedGeneration that is not a non-negative integer. Only a list that
// cannot be read gives no conditions and an *AdapterError: a status or status.v1beta2 that is
// not an object, a conditions field that is not a list.
func FromUnstructured(obj *unstructured.Unstructured) (List, error) {
	if obj == nil {
		return nil, nil
	}
	col := newCollector(obj.GetKind(), obj.GetNamespace(), obj.GetName())
	path, items, err := conditionsOf(obj.Object)
	if err != nil {
		return nil, col.fail(path, err)
	}
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", path, i)
		c, sub, err := readCondition(item)
		if err != nil {
			col.skip(col.fail(field+sub, err))
			continue
		}
		col.add(field, c)
	}
	return col.result()
}

// conditionsOf returns the path and the items of the conditions list of an object, or the path
// of the offending field and why it cannot be read.
func conditionsOf(obj map[string]any) (string, []any, error) {
	status, found, err := jsonField[map[string]any](obj, "status", "an object")
	if err != nil || !found {
		return "status", nil, err
	}
	v1beta2, found, err := jsonField[map[string]any](status, "v1beta2", "an object")
	if err != nil {
		return "status.v1beta2", nil, err
	}
	if found {
		if items, found, err := jsonField[[]any](v1beta2, "conditions", "a list"); err != nil || found {
			return "status.v1beta2.conditions", items, err
		}
	}
	items, _, err := jsonField[[]any](status, "conditions", "a list")
	return "status.conditions", items, err
}

// readCondition reads one item of a conditions list. On error it returns the path of the
// offending field below the item (".status", or "" for the item itself).
func readCondition(item any) (metav1.Condition, string, error) {
	var c metav1.Condition
	m, ok := item.(map[string]any)
	if !ok {
		return c, "", fmt.Errorf("must be an object, not %s", jsonType(item))
	}
	var typ, status, since string
	strs := []struct {
		key      string
		into     *string
		required bool
	}{
		{"type", &typ, true},
		{"status", &status, true},
		{"reason", &c.Reason, false},
		{"message", &c.Message, false},
		{"lastTransitionTime", &since, true},
	}
	for _, s := range strs {
		v, found, err := jsonField[string](m, s.key, "a string")
		if err == nil && !found && s.required {
			err = errors.New("missing")
		}
		if err != nil {
			return c, "." + s.key, err
		}
		*s.into = v
	}
	c.Type, c.Status = typ, metav1.ConditionStatus(status)

	t, err := time.Parse(time.RFC3339, since)
	if err != nil {
		return c, ".lastTransitionTime", fmt.Errorf("must be an RFC 3339 time, not %q", since)
	}
	if t.IsZero() {
		return c, ".lastTransitionTime", fmt.Errorf("must not be the zero time, not %q", since)
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		// A year the API server's JSON cannot write back.
		return c, ".lastTransitionTime", fmt.Errorf("must be between years 1 and 9999, not %q", since)
	}
	c.LastTransitionTime = metav1.NewTime(t)

	if v, ok := m["observedGeneration"]; ok && v != nil {
		g, ok := integer(v)
		if !ok && jsonType(v) == "a number" {
			return c, ".observedGeneration", fmt.Errorf("must be an integer, not %v", v)
		}
		if !ok {
			return c, ".observedGeneration", fmt.Errorf("must be an integer, not %s", jsonType(v))
		}
		c.ObservedGeneration = g
	}
	return c, "", nil
}

// integer returns v as an int64 when it is a whole number in range: unstructured objects hold
// int64 (decoded by apimachinery) or float64 (decoded by encoding/json).
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}
