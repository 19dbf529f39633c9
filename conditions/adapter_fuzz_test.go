package conditions_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/conditions"
)

// FuzzFromUnstructured feeds FromUnstructured any JSON object, decoded as an API client decodes
// it (integers as int64), plus one condition item built from the other arguments and appended to
// status.conditions and/or status.v1beta2.conditions (bits 1 and 2 of where; bit 4 drops reason
// and observedGeneration, bit 8 adds a severity: the v1beta1 shape). It checks that
// FromUnstructured never panics and that:
//   - it is deterministic and leaves its input unchanged;
//   - when the list cannot be read it returns no conditions and an *AdapterError naming the
//     object and a field; entries other writers left invalid are skipped (a *SkippedError naming
//     each) and the others returned;
//   - on success every condition passes Validate, types are unique, the order is the package's,
//     and the list survives a JSON round trip unchanged.
//
// Its name is no regexp match of another target's, nor theirs of it. The seeds are the committed
// corpus (testdata/fuzz/FuzzFromUnstructured) and every fixture of testdata/adapters.
func FuzzFromUnstructured(f *testing.F) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "adapters", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for i, name := range fixtures {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		f.Add(js, "Ready", "True", "Ready", "", "2026-03-14T15:09:26Z", 1.0, uint8(i%16))
	}

	f.Fuzz(func(t *testing.T, object []byte, typ, status, reason, message, since string, generation float64, where uint8) {
		var obj map[string]any
		if err := utiljson.Unmarshal(object, &obj); err != nil || obj == nil {
			obj = map[string]any{}
		}
		if where&3 != 0 {
			item := map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": since}
			switch {
			case where&4 != 0:
				delete(item, "reason")
			case generation == math.Trunc(generation) && math.Abs(generation) < 1<<53:
				item["observedGeneration"] = int64(generation) // as apimachinery decodes integers
			case !math.IsNaN(generation): // NaN is no JSON value, and never DeepEqual to itself
				item["observedGeneration"] = generation
			}
			if where&8 != 0 {
				item["severity"] = "Warning"
			}
			if where&1 != 0 {
				appendItem(obj, item, "status")
			}
			if where&2 != 0 {
				appendItem(obj, item, "status", "v1beta2")
			}
		}
		u := &unstructured.Unstructured{Object: obj}
		before := u.DeepCopy()

		got, err := conditions.FromUnstructured(u)
		again, errAgain := conditions.FromUnstructured(u)
		if !reflect.DeepEqual(got, again) || errString(err) != errString(errAgain) {
			t.Fatalf("not deterministic: (%v, %v) then (%v, %v)", got, err, again, errAgain)
		}
		if !reflect.DeepEqual(before.Object, u.Object) {
			t.Fatalf("modified its input (-before +after):\n%s", cmp.Diff(before.Object, u.Object))
		}

		var skipped *conditions.SkippedError
		switch {
		case errors.As(err, &skipped):
			// Entries other writers left invalid are skipped; the others are returned.
			if len(skipped.Skipped) == 0 || !strings.Contains(err.Error(), skipped.Object) {
				t.Fatalf("SkippedError %#v names no skipped entry or object", skipped)
			}
			for _, aerr := range skipped.Skipped {
				if aerr.Object != skipped.Object || aerr.Field == "" || aerr.Err == nil || !strings.Contains(err.Error(), aerr.Field) {
					t.Fatalf("skipped entry %#v: want the object, a field and why", aerr)
				}
			}
		case err != nil:
			var aerr *conditions.AdapterError
			if !errors.As(err, &aerr) {
				t.Fatalf("error = %v (%T), want an *AdapterError", err, err)
			}
			if got != nil || aerr.Object == "" || aerr.Field == "" || aerr.Err == nil ||
				!strings.Contains(err.Error(), aerr.Object) || !strings.Contains(err.Error(), aerr.Field) {
				t.Fatalf("FromUnstructured() = %v, %#v: want no conditions and an error naming the object and the field", got, aerr)
			}
			return
		}

		seen := map[string]bool{}
		for i, c := range got {
			if err := conditions.Validate(c); err != nil {
				t.Errorf("condition %d is invalid: %v", i, err)
			}
			if seen[c.Type] {
				t.Errorf("type %q returned twice", c.Type)
			}
			seen[c.Type] = true
			if i > 0 && !conditions.Less(got[i-1].Type, c.Type) {
				t.Errorf("%q before %q: not in the package's order", got[i-1].Type, c.Type)
			}
		}

		js, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("json.Marshal() error = %v", err)
		}
		var back conditions.List
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("json.Unmarshal() error = %v", err)
		}
		if diff := cmp.Diff(got, back, strictTime); diff != "" {
			t.Errorf("JSON round trip changed the conditions (-before +after):\n%s", diff)
		}
	})
}

// appendItem appends item to the conditions list of the object at path in obj, replacing
// whatever on the way is not an object or a list.
func appendItem(obj map[string]any, item map[string]any, path ...string) {
	for _, key := range path {
		next, ok := obj[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[key] = next
		}
		obj = next
	}
	list, _ := obj["conditions"].([]any)
	obj["conditions"] = append(list, item)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
