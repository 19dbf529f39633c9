package conditions_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/conditions"
)

// capiMachine builds a Cluster API v1beta2 Machine fleet/worker-0 with the given conditions.
func capiMachine(conds ...metav1.Condition) *clusterv1.Machine {
	return &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "fleet", Generation: 3},
		Status:     clusterv1.MachineStatus{Conditions: conds},
	}
}

// runningMachineV1Beta2 is what the adapters read from testdata/adapters/machine-v1beta2.yaml.
var runningMachineV1Beta2 = conditions.List{
	cond("Ready", T, "Ready", at("2026-03-14T14:58:50Z"), 3),
	cond("Available", T, "Available", at("2026-03-14T14:58:50Z"), 3),
	cond("BootstrapConfigReady", T, "Ready", at("2026-03-14T14:57:31Z"), 3),
	cond("Deleting", F, "NotDeleting", at("2026-03-14T14:55:30Z"), 3),
	cond("InfrastructureReady", T, "Ready", at("2026-03-14T14:57:48Z"), 3),
	cond("NodeHealthy", T, "NodeHealthy", at("2026-03-14T14:58:50Z"), 3),
	cond("NodeReady", T, "NodeReady", at("2026-03-14T14:58:50Z"), 3),
	cond("Paused", F, "NotPaused", at("2026-03-14T14:55:30Z"), 3),
	cond("UpToDate", T, "UpToDate", at("2026-03-14T14:55:30Z"), 3),
}

func TestFromClusterAPIMachine(t *testing.T) {
	running := &clusterv1.Machine{}
	decodeFixture(t, "machine-v1beta2.yaml", running)

	tests := []struct {
		name    string
		machine *clusterv1.Machine
		want    conditions.List
	}{
		{name: "nil Machine", machine: nil, want: nil},
		{name: "no conditions", machine: capiMachine(), want: nil},
		// The deprecated v1beta1 conditions in status.deprecated.v1beta1 are not read.
		{name: "running Machine (machine-v1beta2.yaml)", machine: running, want: runningMachineV1Beta2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conditions.FromClusterAPIMachine(tt.machine)
			if err != nil {
				t.Fatalf("FromClusterAPIMachine() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, strictTime); diff != "" {
				t.Errorf("FromClusterAPIMachine() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromClusterAPIMachineAgreesWithFromUnstructured checks that the typed and the unstructured
// reading of one Machine give the same conditions: there is one library, whatever the shape.
func TestFromClusterAPIMachineAgreesWithFromUnstructured(t *testing.T) {
	typed := &clusterv1.Machine{}
	decodeFixture(t, "machine-v1beta2.yaml", typed)
	fromTyped, err := conditions.FromClusterAPIMachine(typed)
	if err != nil {
		t.Fatalf("FromClusterAPIMachine() error = %v", err)
	}
	fromUnstructured, err := conditions.FromUnstructured(unstructuredFixture(t, "machine-v1beta2.yaml"))
	if err != nil {
		t.Fatalf("FromUnstructured() error = %v", err)
	}
	if diff := cmp.Diff(fromTyped, fromUnstructured, strictTime); diff != "" {
		t.Errorf("FromClusterAPIMachine() vs FromUnstructured() (-typed +unstructured):\n%s", diff)
	}
}

func TestFromClusterAPIMachineErrors(t *testing.T) {
	ok := metav1.Condition{Type: "Ready", Status: T, Reason: "Ready", LastTransitionTime: metav1.NewTime(t0)}
	with := func(edit func(*metav1.Condition)) metav1.Condition {
		c := ok
		edit(&c)
		return c
	}
	tests := []struct {
		name      string
		condition metav1.Condition
		wantField string
		wantErr   string
	}{
		{"empty status", with(func(c *metav1.Condition) { c.Status = "" }), "status.conditions[1].status", `must be True, False or Unknown, not ""`},
		{"lower-case status", with(func(c *metav1.Condition) { c.Status = "true" }), "status.conditions[1].status", `not "true"`},
		{"empty type", with(func(c *metav1.Condition) { c.Type = "" }), "status.conditions[1].type", "missing"},
		{"invalid type", with(func(c *metav1.Condition) { c.Type = "Node Ready" }), "status.conditions[1].type", `"Node Ready" is not a valid condition type`},
		{"type too long", with(func(c *metav1.Condition) { c.Type = "example.com/" + strings.Repeat("a", 310) }), "status.conditions[1].type", "may not be more than 316 bytes"},
		{"no lastTransitionTime", with(func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} }), "status.conditions[1].lastTransitionTime", "missing"},
		{"negative observedGeneration", with(func(c *metav1.Condition) { c.ObservedGeneration = -1 }), "status.conditions[1].observedGeneration", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodeReady := metav1.Condition{Type: "NodeReady", Status: T, Reason: "NodeReady", LastTransitionTime: metav1.NewTime(t0)}
			got, err := conditions.FromClusterAPIMachine(capiMachine(nodeReady, tt.condition))
			checkSkipped(t, got, err, 1)
			checkAdapterError(t, err, "Machine fleet/worker-0", tt.wantField, tt.wantErr)
		})
	}
}

// checkSkipped fails t unless err is a *conditions.SkippedError and got holds the kept valid
// entries, kept of them; an error that is no SkippedError (the list cannot be read) must come
// with no conditions.
func checkSkipped(t *testing.T, got conditions.List, err error, kept int) {
	t.Helper()
	var skipped *conditions.SkippedError
	if !errors.As(err, &skipped) {
		if got != nil {
			t.Errorf("got %v with %v, want no conditions", got, err)
		}
		return
	}
	if len(got) != kept {
		t.Errorf("got %d conditions %v besides the skipped entries, want %d", len(got), got, kept)
	}
	for _, c := range got {
		if err := conditions.Validate(c); err != nil {
			t.Errorf("kept an invalid condition: %v", err)
		}
	}
}

// checkAdapterError fails t unless err is an *AdapterError about object and field whose message
// names both and contains wantErr.
func checkAdapterError(t *testing.T, err error, object, field, wantErr string) {
	t.Helper()
	var aerr *conditions.AdapterError
	if !errors.As(err, &aerr) {
		t.Fatalf("error = %v (%T), want an *AdapterError", err, err)
	}
	if diff := cmp.Diff([]string{object, field}, []string{aerr.Object, aerr.Field}); diff != "" {
		t.Errorf("AdapterError object and field (-want +got):\n%s", diff)
	}
	for _, s := range []string{object, field, wantErr} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}
