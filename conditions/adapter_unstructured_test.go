package conditions_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
)

// foreign builds a DockerMachine default/worker-0 with the given status as an unstructured
// object.
func foreign(status any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
		"kind":       "DockerMachine",
		"metadata":   map[string]any{"name": "worker-0", "namespace": "default", "generation": int64(4)},
		"status":     status,
	}}
}

// item builds a valid condition item in metav1 shape, then applies the edits: a nil value
// deletes the key.
func item(edits map[string]any) map[string]any {
	m := map[string]any{
		"type":               "Ready",
		"status":             "True",
		"reason":             "Ready",
		"message":            "",
		"lastTransitionTime": "2026-03-14T15:09:26Z",
		"observedGeneration": int64(4),
	}
	for k, v := range edits {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

// withoutV1Beta2 returns obj without status.v1beta2, as Cluster API before v1.9 wrote it.
func withoutV1Beta2(obj *unstructured.Unstructured) *unstructured.Unstructured {
	unstructured.RemoveNestedField(obj.Object, "status", "v1beta2")
	return obj
}

func TestFromUnstructured(t *testing.T) {
	const (
		waitingForNode = "Waiting for a Node with spec.providerID docker:////worker-md-0-x7k2p-9lq4z to exist"
		awsFailure     = "failed to create AWSMachine instance: failed to run instance: UnauthorizedOperation: " +
			"You are not authorized to perform this operation. Encoded authorization failure message: 4GdG3ZK0kQ " +
			"status code: 403, request id: 0c7d9a52-3e1f-4b8a-9d6c-2f5e8a1b7c40"
	)
	ltt := at("2026-03-14T15:09:26Z")

	tests := []struct {
		name string
		obj  *unstructured.Unstructured
		want conditions.List
	}{
		// Cluster API objects, both condition shapes.
		{
			name: "Machine v1beta1: status.v1beta2.conditions first (machine-v1beta1.yaml)",
			obj:  unstructuredFixture(t, "machine-v1beta1.yaml"),
			want: conditions.List{
				cond("Ready", F, "NotReady", at("2026-03-14T15:00:02Z"), 2, "* NodeHealthy: "+waitingForNode),
				cond("Available", F, "NotReady", at("2026-03-14T15:00:02Z"), 2, "* NodeHealthy: "+waitingForNode),
				cond("BootstrapConfigReady", T, "Ready", at("2026-03-14T15:00:31Z"), 2),
				cond("Deleting", F, "NotDeleting", at("2026-03-14T15:00:02Z"), 2),
				cond("InfrastructureReady", T, "Ready", at("2026-03-14T15:00:58Z"), 2),
				cond("NodeHealthy", U, "NodeDoesNotExist", at("2026-03-14T15:00:02Z"), 2, waitingForNode),
				cond("NodeReady", U, "NodeDoesNotExist", at("2026-03-14T15:00:02Z"), 2, waitingForNode),
				cond("Paused", F, "NotPaused", at("2026-03-14T15:00:02Z"), 2),
				cond("UpToDate", T, "UpToDate", at("2026-03-14T15:00:02Z"), 2),
			},
		},
		{
			name: "Machine v1beta1 without status.v1beta2: v1beta1 conditions, severity dropped, no observedGeneration",
			obj:  withoutV1Beta2(unstructuredFixture(t, "machine-v1beta1.yaml")),
			want: conditions.List{
				cond("Ready", T, conditions.NoReasonReportedReason, at("2026-03-14T15:00:58Z"), 0),
				cond("BootstrapReady", T, conditions.NoReasonReportedReason, at("2026-03-14T15:00:31Z"), 0),
				cond("InfrastructureReady", T, conditions.NoReasonReportedReason, at("2026-03-14T15:00:58Z"), 0),
				cond("NodeHealthy", F, "NodeProvisioning", at("2026-03-14T15:00:58Z"), 0),
			},
		},
		{
			name: "Machine v1beta2: status.conditions, deprecated v1beta1 ones ignored (machine-v1beta2.yaml)",
			obj:  unstructuredFixture(t, "machine-v1beta2.yaml"),
			want: runningMachineV1Beta2,
		},
		{
			name: "DockerMachine v1beta1: status.v1beta2.conditions first (dockermachine-v1beta1.yaml)",
			obj:  unstructuredFixture(t, "dockermachine-v1beta1.yaml"),
			want: conditions.List{
				cond("Ready", F, "NotReady", at("2026-03-14T15:00:33Z"), 1, "* BootstrapExecSucceeded: Running the bootstrap script"),
				cond("BootstrapExecSucceeded", F, "Bootstrapping", at("2026-03-14T15:00:33Z"), 1, "Running the bootstrap script"),
				cond("ContainerProvisioned", T, "Provisioned", at("2026-03-14T15:00:33Z"), 1),
				cond("Deleting", F, "NotDeleting", at("2026-03-14T15:00:03Z"), 1),
				cond("Paused", F, "NotPaused", at("2026-03-14T15:00:03Z"), 1),
			},
		},
		{
			name: "DockerMachine v1beta1 without status.v1beta2: v1beta1 conditions",
			obj:  withoutV1Beta2(unstructuredFixture(t, "dockermachine-v1beta1.yaml")),
			want: conditions.List{
				cond("Ready", F, "Bootstrapping", at("2026-03-14T15:00:33Z"), 0, "1 of 2 completed"),
				cond("BootstrapExecSucceeded", F, "Bootstrapping", at("2026-03-14T15:00:33Z"), 0),
				cond("ContainerProvisioned", T, conditions.NoReasonReportedReason, at("2026-03-14T15:00:33Z"), 0),
			},
		},
		{
			name: "DockerMachine v1beta2 (dockermachine-v1beta2.yaml)",
			obj:  unstructuredFixture(t, "dockermachine-v1beta2.yaml"),
			want: conditions.List{
				cond("Ready", T, "Ready", at("2026-03-14T15:00:58Z"), 1),
				cond("BootstrapExecSucceeded", T, "Succeeded", at("2026-03-14T15:00:58Z"), 1),
				cond("ContainerProvisioned", T, "Provisioned", at("2026-03-14T15:00:33Z"), 1),
				cond("Deleting", F, "NotDeleting", at("2026-03-14T15:00:03Z"), 1),
				cond("Paused", F, "NotPaused", at("2026-03-14T15:00:03Z"), 1),
			},
		},
		{
			name: "AWSMachine v1beta2 API with v1beta1 conditions, failed (awsmachine-failed.yaml)",
			obj:  unstructuredFixture(t, "awsmachine-failed.yaml"),
			want: conditions.List{
				cond("Ready", F, "InstanceProvisionFailed", at("2026-03-14T14:55:44Z"), 0, awsFailure),
				cond("InstanceReady", F, "InstanceProvisionFailed", at("2026-03-14T14:55:44Z"), 0, awsFailure),
				cond("SecurityGroupsReady", T, conditions.NoReasonReportedReason, at("2026-03-14T14:55:40Z"), 0),
			},
		},

		// Where the conditions are.
		{name: "nil object", obj: nil, want: nil},
		{name: "empty object", obj: &unstructured.Unstructured{}, want: nil},
		{name: "no status", obj: foreign(nil), want: nil},
		{name: "status without conditions", obj: foreign(map[string]any{"ready": true}), want: nil},
		{name: "null conditions", obj: foreign(map[string]any{"conditions": nil}), want: nil},
		{name: "empty conditions", obj: foreign(map[string]any{"conditions": []any{}}), want: nil},
		{
			name: "status.v1beta2 without conditions: status.conditions",
			obj: foreign(map[string]any{
				"v1beta2":    map[string]any{},
				"conditions": []any{item(nil)},
			}),
			want: conditions.List{cond("Ready", T, "Ready", ltt, 4)},
		},
		{
			name: "status.v1beta2.conditions present but empty: preferred all the same",
			obj: foreign(map[string]any{
				"v1beta2":    map[string]any{"conditions": []any{}},
				"conditions": []any{item(nil)},
			}),
			want: nil,
		},

		// How an item is read.
		{
			name: "v1beta1 shape: severity dropped, no observedGeneration, no reason",
			obj: foreign(map[string]any{"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-14T15:09:26Z"},
				map[string]any{"type": "InstanceReady", "status": "False", "severity": "Warning", "reason": "InstanceStopped",
					"message": "instance is in stopped state", "lastTransitionTime": "2026-03-14T15:09:26Z"},
			}}),
			want: conditions.List{
				cond("Ready", T, conditions.NoReasonReportedReason, ltt, 0),
				cond("InstanceReady", F, "InstanceStopped", ltt, 0, "instance is in stopped state"),
			},
		},
		{
			name: "unknown fields, null reason and message ignored",
			obj: foreign(map[string]any{"conditions": []any{
				item(map[string]any{"lastHeartbeatTime": "2026-03-14T15:10:00Z", "extra": []any{int64(1)}, "reason": nil, "message": nil}),
			}}),
			want: conditions.List{cond("Ready", T, conditions.NoReasonReportedReason, ltt, 4)},
		},
		{
			name: "observedGeneration decoded by encoding/json (float64), or set as int",
			obj: foreign(map[string]any{"conditions": []any{
				item(map[string]any{"observedGeneration": float64(2)}),
				item(map[string]any{"type": "Paused", "status": "False", "reason": "NotPaused", "observedGeneration": 5}),
			}}),
			want: conditions.List{cond("Ready", T, "Ready", ltt, 2), cond("Paused", F, "NotPaused", ltt, 5)},
		},
		{
			name: "lastTransitionTime in the first and in the last year the API server can write",
			obj: foreign(map[string]any{"conditions": []any{
				item(map[string]any{"lastTransitionTime": "0001-01-01T00:00:01Z"}),
				item(map[string]any{"type": "Paused", "status": "False", "reason": "NotPaused", "lastTransitionTime": "9999-12-31T23:59:59Z"}),
			}}),
			want: conditions.List{
				cond("Ready", T, "Ready", time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), 4),
				cond("Paused", F, "NotPaused", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), 4),
			},
		},
		{
			name: "time with fraction and offset: truncated to seconds",
			obj:  foreign(map[string]any{"conditions": []any{item(map[string]any{"lastTransitionTime": "2026-03-14T16:09:26.535+01:00"})}}),
			want: conditions.List{cond("Ready", T, "Ready", ltt, 4)},
		},
		{
			name: "invalid reason kept in the message",
			obj:  foreign(map[string]any{"conditions": []any{item(map[string]any{"status": "False", "reason": "Instance Stopped", "message": "by the user"})}}),
			want: conditions.List{cond("Ready", F, conditions.InvalidReasonReportedReason, ltt, 4, `reason "Instance Stopped": by the user`)},
		},
		{
			name: "duplicate types: the first is kept",
			obj: foreign(map[string]any{"conditions": []any{
				item(map[string]any{"status": "False", "reason": "First"}),
				item(map[string]any{"reason": "Second"}),
			}}),
			want: conditions.List{cond("Ready", F, "First", ltt, 4)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// JSON, not DeepCopy: DeepCopy panics on the int that one case holds.
			before, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := conditions.FromUnstructured(tt.obj)
			if err != nil {
				t.Fatalf("FromUnstructured() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, strictTime); diff != "" {
				t.Errorf("FromUnstructured() (-want +got):\n%s", diff)
			}
			after, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(before), string(after)); diff != "" {
				t.Errorf("FromUnstructured() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// TestFromUnstructuredAgreesWithFromNode checks that a Node read as an unstructured object gives
// the conditions FromNode gives: the lastHeartbeatTime of each is ignored.
func TestFromUnstructuredAgreesWithFromNode(t *testing.T) {
	for _, name := range []string{"node-kwok.yaml", "node-kwok-not-ready.yaml", "node-kubelet.yaml", "node-kubelet-not-ready.yaml", "node-unreachable.yaml"} {
		t.Run(name, func(t *testing.T) {
			fromNode, err := conditions.FromNode(nodeFixture(t, name))
			if err != nil {
				t.Fatalf("FromNode() error = %v", err)
			}
			fromUnstructured, err := conditions.FromUnstructured(unstructuredFixture(t, name))
			if err != nil {
				t.Fatalf("FromUnstructured() error = %v", err)
			}
			if diff := cmp.Diff(fromNode, fromUnstructured, strictTime); diff != "" {
				t.Errorf("FromNode() vs FromUnstructured() (-node +unstructured):\n%s", diff)
			}
		})
	}
}

func TestFromUnstructuredErrors(t *testing.T) {
	conds := func(items ...any) map[string]any { return map[string]any{"conditions": items} }
	tests := []struct {
		name       string
		obj        *unstructured.Unstructured
		wantObject string
		wantField  string
		wantErr    string
	}{
		// Where the conditions are.
		{name: "status not an object", obj: foreign("Running"), wantField: "status", wantErr: "must be an object, not a string"},
		{name: "status.v1beta2 not an object", obj: foreign(map[string]any{"v1beta2": []any{}}), wantField: "status.v1beta2", wantErr: "must be an object, not a list"},
		{name: "conditions not a list", obj: foreign(map[string]any{"conditions": map[string]any{"Ready": "True"}}), wantField: "status.conditions", wantErr: "must be a list, not an object"},
		{name: "v1beta2 conditions not a list", obj: foreign(map[string]any{"v1beta2": map[string]any{"conditions": "Ready"}}), wantField: "status.v1beta2.conditions", wantErr: "must be a list, not a string"},
		{name: "conditions a typed Go slice, not []any", obj: foreign(map[string]any{"conditions": []map[string]any{item(nil)}}), wantField: "status.conditions", wantErr: "must be a list, not a []map[string]interface {}"},
		{name: "item not an object", obj: foreign(conds(item(nil), "Ready=True")), wantField: "status.conditions[1]", wantErr: "must be an object, not a string"},
		{name: "item null", obj: foreign(conds(nil)), wantField: "status.conditions[0]", wantErr: "must be an object, not null"},
		{name: "error in status.v1beta2.conditions", obj: foreign(map[string]any{"v1beta2": conds(item(map[string]any{"status": "Maybe"}))}), wantField: "status.v1beta2.conditions[0].status", wantErr: `not "Maybe"`},

		// type.
		{name: "type missing", obj: foreign(conds(item(map[string]any{"type": nil}))), wantField: "status.conditions[0].type", wantErr: "missing"},
		{name: "type empty", obj: foreign(conds(item(map[string]any{"type": ""}))), wantField: "status.conditions[0].type", wantErr: "missing"},
		{name: "type not a string", obj: foreign(conds(item(map[string]any{"type": int64(1)}))), wantField: "status.conditions[0].type", wantErr: "must be a string, not a number"},
		{name: "type invalid", obj: foreign(conds(item(map[string]any{"type": "Node Ready"}))), wantField: "status.conditions[0].type", wantErr: `"Node Ready" is not a valid condition type`},

		// status.
		{name: "status missing", obj: foreign(conds(item(map[string]any{"status": nil}))), wantField: "status.conditions[0].status", wantErr: "missing"},
		{name: "status not a string", obj: foreign(conds(item(map[string]any{"status": true}))), wantField: "status.conditions[0].status", wantErr: "must be a string, not a boolean"},
		{name: "status not True, False or Unknown", obj: foreign(conds(item(map[string]any{"status": "Maybe"}))), wantField: "status.conditions[0].status", wantErr: `must be True, False or Unknown, not "Maybe"`},
		{name: "status lower case", obj: foreign(conds(item(map[string]any{"status": "true"}))), wantField: "status.conditions[0].status", wantErr: `not "true"`},

		// reason and message.
		{name: "reason not a string", obj: foreign(conds(item(map[string]any{"reason": false}))), wantField: "status.conditions[0].reason", wantErr: "must be a string, not a boolean"},
		{name: "message not a string", obj: foreign(conds(item(map[string]any{"message": []any{"a"}}))), wantField: "status.conditions[0].message", wantErr: "must be a string, not a list"},

		// lastTransitionTime.
		{name: "lastTransitionTime missing", obj: foreign(conds(item(map[string]any{"lastTransitionTime": nil}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: "missing"},
		{name: "lastTransitionTime not RFC 3339", obj: foreign(conds(item(map[string]any{"lastTransitionTime": "2026-03-14 15:09:26"}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: `must be an RFC 3339 time, not "2026-03-14 15:09:26"`},
		{name: "lastTransitionTime a number", obj: foreign(conds(item(map[string]any{"lastTransitionTime": int64(1773500966)}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: "must be a string, not a number"},
		{name: "lastTransitionTime zero", obj: foreign(conds(item(map[string]any{"lastTransitionTime": "0001-01-01T00:00:00Z"}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: "must not be the zero time"},
		{name: "lastTransitionTime before year 1 in UTC", obj: foreign(conds(item(map[string]any{"lastTransitionTime": "0000-06-01T00:00:00Z"}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: "must be between years 1 and 9999"},
		{name: "lastTransitionTime after year 9999 in UTC", obj: foreign(conds(item(map[string]any{"lastTransitionTime": "9999-12-31T23:00:00-02:00"}))), wantField: "status.conditions[0].lastTransitionTime", wantErr: "must be between years 1 and 9999"},

		// observedGeneration.
		{name: "observedGeneration a fraction", obj: foreign(conds(item(map[string]any{"observedGeneration": 1.5}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must be an integer, not 1.5"},
		{name: "observedGeneration a string", obj: foreign(conds(item(map[string]any{"observedGeneration": "3"}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must be an integer, not a string"},
		{name: "observedGeneration out of range", obj: foreign(conds(item(map[string]any{"observedGeneration": 1e19}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must be an integer, not 1e+19"},
		{name: "observedGeneration 2^63 (float64), one past the largest int64", obj: foreign(conds(item(map[string]any{"observedGeneration": float64(math.MaxInt64)}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must be an integer, not 9.223372036854776e+18"},
		{name: "observedGeneration -2^63 (float64), the smallest int64: an integer, negative", obj: foreign(conds(item(map[string]any{"observedGeneration": float64(math.MinInt64)}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must not be negative, not -9223372036854775808"},
		{name: "observedGeneration negative", obj: foreign(conds(item(map[string]any{"observedGeneration": int64(-1)}))), wantField: "status.conditions[0].observedGeneration", wantErr: "must not be negative, not -1"},

		// A malformed duplicate is skipped too: everything is checked.
		{name: "malformed duplicate", obj: foreign(conds(item(nil), item(map[string]any{"status": "Maybe"}))), wantField: "status.conditions[1].status", wantErr: `not "Maybe"`},

		// How the object is named.
		{
			name:       "cluster-scoped object",
			obj:        &unstructured.Unstructured{Object: map[string]any{"kind": "Node", "metadata": map[string]any{"name": "worker-0"}, "status": "x"}},
			wantObject: "Node worker-0",
			wantField:  "status",
		},
		{
			name:       "no kind, no name",
			obj:        &unstructured.Unstructured{Object: map[string]any{"metadata": "broken", "status": "x"}},
			wantObject: "object <unnamed>",
			wantField:  "status",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantObject == "" {
				tt.wantObject = "DockerMachine default/worker-0"
			}
			got, err := conditions.FromUnstructured(tt.obj)
			kept := 0
			if strings.HasPrefix(tt.name, "item not an object") || strings.HasPrefix(tt.name, "malformed duplicate") {
				kept = 1 // the valid item beside the broken one
			}
			checkSkipped(t, got, err, kept)
			checkAdapterError(t, err, tt.wantObject, tt.wantField, tt.wantErr)
		})
	}
}
