package conditions_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/conditions"
)

// fixture returns the content of testdata/adapters/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "adapters", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// decodeFixture decodes testdata/adapters/name into a typed object, rejecting unknown fields so
// that a fixture cannot drift from the real API.
func decodeFixture(t testing.TB, name string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(fixture(t, name), into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// nodeFixture returns the Node of testdata/adapters/name.
func nodeFixture(t testing.TB, name string) *corev1.Node {
	t.Helper()
	node := &corev1.Node{}
	decodeFixture(t, name, node)
	return node
}

// unstructuredFixture returns testdata/adapters/name as an API server client would decode it
// (integers as int64).
func unstructuredFixture(t testing.TB, name string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON(fixture(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return obj
}

// at parses an RFC 3339 time of a fixture.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestListIsGetter checks that the free functions read a List like any other Getter.
func TestListIsGetter(t *testing.T) {
	l := conditions.List{
		cond("Ready", F, "NodeNotReady", t0, 1, "kubelet stopped posting node status"),
		cond("NodeHealthy", T, "NodeHealthy", t0, 1),
	}
	got := []any{
		conditions.IsFalse(l, "Ready"), conditions.GetReason(l, "Ready"), conditions.GetMessage(l, "Ready"),
		conditions.IsTrue(l, "NodeHealthy"), conditions.IsUnknown(l, "Missing"), conditions.Has(conditions.List(nil), "Ready"),
	}
	want := []any{true, "NodeNotReady", "kubelet stopped posting node status", true, true, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("getters on a List (-want +got):\n%s", diff)
	}
}

func TestAdapterError(t *testing.T) {
	cause := errors.New("must be True, False or Unknown, not \"Maybe\"")
	err := error(&conditions.AdapterError{Object: "DockerMachine default/worker-0", Field: "status.conditions[2].status", Err: cause})

	want := `cannot read conditions of DockerMachine default/worker-0: status.conditions[2].status: must be True, False or Unknown, not "Maybe"`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() (-want +got):\n%s", diff)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(%v, cause) = false, want true", err)
	}
}

// The longest condition type and reason the API server accepts.
var (
	longestType = strings.Repeat("a", 60) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." +
		strings.Repeat("d", 63) + "/N" + strings.Repeat("x", 61) + "Y"
	longestReason = "R" + strings.Repeat("x", 1023)
)

// TestAdaptersNormalise checks the rules every adapter shares (see conditions.List), through
// FromClusterAPIMachine, the adapter whose input is already metav1.Conditions.
func TestAdaptersNormalise(t *testing.T) {
	subSecond := t0 // has nanoseconds
	long := strings.Repeat("x", conditions.MaxMessageBytes+1)
	tests := []struct {
		name string
		in   []metav1.Condition
		want conditions.List
	}{
		{
			name: "none",
			in:   nil,
			want: nil,
		},
		{
			name: "sorted Ready first, then by type; times truncated to seconds",
			in: []metav1.Condition{
				{Type: "NodeReady", Status: T, Reason: "NodeReady", LastTransitionTime: metav1.NewTime(subSecond)},
				{Type: "Available", Status: T, Reason: "Available", LastTransitionTime: metav1.NewTime(subSecond)},
				{Type: "Ready", Status: T, Reason: "Ready", LastTransitionTime: metav1.NewTime(subSecond)},
			},
			want: conditions.List{
				cond("Ready", T, "Ready", t0, 0),
				cond("Available", T, "Available", t0, 0),
				cond("NodeReady", T, "NodeReady", t0, 0),
			},
		},
		{
			name: "empty reason",
			in:   []metav1.Condition{{Type: "Ready", Status: T, LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", T, conditions.NoReasonReportedReason, t0, 0)},
		},
		{
			name: "invalid reason: kept, quoted, in front of the message",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: "Instance stopped", Message: "stopped by the user", LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, conditions.InvalidReasonReportedReason, t0, 0, `reason "Instance stopped": stopped by the user`)},
		},
		{
			name: "invalid reason, no message",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: "Not-Ready", LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, conditions.InvalidReasonReportedReason, t0, 0, `reason "Not-Ready"`)},
		},
		{
			name: "invalid reason: a long one is cut before quoting",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: strings.Repeat("é", 200), LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, conditions.InvalidReasonReportedReason, t0, 0,
				`reason "`+strings.Repeat("é", 120)+conditions.TruncationMarker+`"`)},
		},
		{
			name: "valid reasons are kept: lower case start, commas, colons, underscores",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: "nodeFailed,Reason_2:x", LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, "nodeFailed,Reason_2:x", t0, 0)},
		},
		{
			name: "long message truncated",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: "NotReady", Message: long, LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, "NotReady", t0, 0, conditions.TruncateMessage(long))},
		},
		{
			name: "a type of the longest length (316 characters: 252-character prefix, 63-character name) is kept",
			in:   []metav1.Condition{{Type: longestType, Status: T, Reason: "Ready", LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond(longestType, T, "Ready", t0, 0)},
		},
		{
			name: "a reason of the longest length (1024 characters) is kept",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: longestReason, LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, longestReason, t0, 0)},
		},
		{
			name: "a reason one character too long is invalid: kept, quoted and cut",
			in:   []metav1.Condition{{Type: "Ready", Status: F, Reason: longestReason + "x", LastTransitionTime: metav1.NewTime(t0)}},
			want: conditions.List{cond("Ready", F, conditions.InvalidReasonReportedReason, t0, 0,
				`reason "`+conditions.TruncateTo(longestReason+"x", 256)+`"`)},
		},
		{
			name: "duplicate types: the first is kept",
			in: []metav1.Condition{
				{Type: "Ready", Status: F, Reason: "First", LastTransitionTime: metav1.NewTime(t0)},
				{Type: "Ready", Status: T, Reason: "Second", LastTransitionTime: metav1.NewTime(t0)},
			},
			want: conditions.List{cond("Ready", F, "First", t0, 0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conditions.FromClusterAPIMachine(capiMachine(tt.in...))
			if err != nil {
				t.Fatalf("FromClusterAPIMachine() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, strictTime); diff != "" {
				t.Errorf("FromClusterAPIMachine() (-want +got):\n%s", diff)
			}
			for _, c := range got {
				if err := conditions.Validate(c); err != nil {
					t.Errorf("returned an invalid condition: %v", err)
				}
			}
		})
	}
}
