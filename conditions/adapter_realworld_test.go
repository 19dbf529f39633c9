package conditions_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
)

// TestAdaptersOnRealWorldLists: the lists other writers leave on the objects the adapters read
// (issue 12 part 5) — duplicate types, an empty reason, an unknown status, no lastTransitionTime,
// odd times. Every adapter returns the valid entries (the first of a duplicated type, an empty
// reason as NoReasonReported, a future time as it is) and skips the invalid ones, naming each in
// a *SkippedError: one broken entry never hides the others, and the object is left as it was.
func TestAdaptersOnRealWorldLists(t *testing.T) {
	const since = "2026-03-14T15:09:26Z"
	ready := map[string]any{"type": "Ready", "status": "False", "reason": "NotReady", "message": "waiting", "lastTransitionTime": since}
	with := func(edits map[string]any) map[string]any {
		m := map[string]any{"type": "InstanceReady", "status": "True", "reason": "InstanceRunning", "message": "", "lastTransitionTime": since}
		for k, v := range edits {
			if v == nil {
				delete(m, k)
				continue
			}
			m[k] = v
		}
		return m
	}
	readyWant := cond("Ready", F, "NotReady", at(since), 0)
	readyWant.Message = "waiting"
	instance := func(reason, s string) metav1.Condition {
		return cond("InstanceReady", metav1.ConditionStatus(s), reason, at(since), 0)
	}
	tests := []struct {
		name        string
		items       []any
		want        conditions.List
		wantSkipped []string // fields
	}{
		{
			name:  "duplicate types (a writer that appends): the first is read, as Get reads it",
			items: []any{ready, with(nil), with(map[string]any{"status": "False", "reason": "InstanceStopped"})},
			want:  conditions.List{readyWant, instance("InstanceRunning", "True")},
		},
		{
			name:  "empty reason (usual on a Cluster API v1beta1 True condition)",
			items: []any{ready, with(map[string]any{"reason": ""})},
			want:  conditions.List{readyWant, instance(conditions.NoReasonReportedReason, "True")},
		},
		{
			name:        "unknown status: skipped, Ready still read",
			items:       []any{with(map[string]any{"status": "Healthy"}), ready},
			want:        conditions.List{readyWant},
			wantSkipped: []string{"status.conditions[0].status"},
		},
		{
			name:        "lower-case status: skipped",
			items:       []any{ready, with(map[string]any{"status": "true"})},
			want:        conditions.List{readyWant},
			wantSkipped: []string{"status.conditions[1].status"},
		},
		{
			name:        "no lastTransitionTime: skipped",
			items:       []any{ready, with(map[string]any{"lastTransitionTime": nil})},
			want:        conditions.List{readyWant},
			wantSkipped: []string{"status.conditions[1].lastTransitionTime"},
		},
		{
			name:        "zero lastTransitionTime (a Go client's unset time written as a string): skipped",
			items:       []any{ready, with(map[string]any{"lastTransitionTime": "0001-01-01T00:00:00Z"})},
			want:        conditions.List{readyWant},
			wantSkipped: []string{"status.conditions[1].lastTransitionTime"},
		},
		{
			name:  "a time in the future (a writer's clock ahead): read as it is",
			items: []any{ready, with(map[string]any{"lastTransitionTime": "2999-01-01T00:00:00Z"})},
			want: conditions.List{readyWant, cond("InstanceReady", T, "InstanceRunning",
				time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC), 0)},
		},
		{
			name:        "an invalid type and a broken duplicate of Ready: both skipped, the valid Ready read",
			items:       []any{with(map[string]any{"type": "Instance Ready"}), ready, map[string]any{"type": "Ready", "status": "Maybe", "lastTransitionTime": since}},
			want:        conditions.List{readyWant},
			wantSkipped: []string{"status.conditions[0].type", "status.conditions[2].status"},
		},
		{
			name:        "every entry broken: no conditions, each named",
			items:       []any{"Ready=True", with(map[string]any{"observedGeneration": int64(-1)})},
			wantSkipped: []string{"status.conditions[0]", "status.conditions[1].observedGeneration"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := foreign(map[string]any{"conditions": tt.items})
			before := obj.DeepCopy()
			got, err := conditions.FromUnstructured(obj)
			checkRealWorld(t, "FromUnstructured", got, err, tt.want, tt.wantSkipped, false)
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("FromUnstructured modified the object (-before +after):\n%s", diff)
			}

			// The same list on a Cluster API v1beta2 Machine (typed: the entries that are not
			// conditions at all cannot be there) and on a Node.
			var typed []metav1.Condition
			var nodeConds []corev1.NodeCondition
			var typedSkipped []string
			nodeToo := true // a Node's conditions carry no observedGeneration of their own
			for _, it := range tt.items {
				m, ok := it.(map[string]any)
				if !ok {
					continue
				}
				u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{m}}}}
				one, oneErr := conditions.FromUnstructured(u)
				c := metav1.Condition{}
				c.Type, _ = m["type"].(string)
				c.Status = metav1.ConditionStatus(str(m["status"]))
				c.Reason, c.Message = str(m["reason"]), str(m["message"])
				if ts, err := time.Parse(time.RFC3339, str(m["lastTransitionTime"])); err == nil {
					c.LastTransitionTime = metav1.NewTime(ts)
				}
				if g, ok := m["observedGeneration"].(int64); ok {
					c.ObservedGeneration = g
					nodeToo = false
				}
				if oneErr != nil || len(one) == 0 {
					typedSkipped = append(typedSkipped, "status.conditions["+strconv.Itoa(len(typed))+"]")
				}
				typed = append(typed, c)
				nodeConds = append(nodeConds, corev1.NodeCondition{Type: corev1.NodeConditionType(c.Type),
					Status: corev1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime})
			}
			capi, err := conditions.FromClusterAPIMachine(capiMachine(typed...))
			checkRealWorld(t, "FromClusterAPIMachine", capi, err, tt.want, typedSkipped, true)
			if nodeToo {
				nodeList, err := conditions.FromNode(node(0, nodeConds...))
				checkRealWorld(t, "FromNode", nodeList, err, tt.want, typedSkipped, true)
			}
		})
	}
}

// checkRealWorld compares an adapter's result with want and the fields its *SkippedError names
// with wantSkipped (none: no error). With entriesOnly, fields are compared up to the entry
// ("status.conditions[1]"): the typed adapters name a broken entry's sub-field differently.
func checkRealWorld(t *testing.T, adapter string, got conditions.List, err error, want conditions.List, wantSkipped []string, entriesOnly bool) {
	t.Helper()
	if diff := cmp.Diff(want, got, strictTime); diff != "" {
		t.Errorf("%s (-want +got):\n%s", adapter, diff)
	}
	var fields []string
	var skipped *conditions.SkippedError
	switch {
	case errors.As(err, &skipped):
		for _, s := range skipped.Skipped {
			f := s.Field
			if i := strings.IndexByte(f, ']'); entriesOnly && i >= 0 {
				f = f[:i+1]
			}
			fields = append(fields, f)
		}
	case err != nil:
		t.Fatalf("%s: %v, want the broken entries skipped", adapter, err)
	}
	if diff := cmp.Diff(wantSkipped, fields); diff != "" {
		t.Errorf("%s skipped (-want +got):\n%s", adapter, diff)
	}
}

// str is v when it is a string, else "".
func str(v any) string { s, _ := v.(string); return s }
