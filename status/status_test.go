package status

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(seconds int) time.Time { return t0.Add(time.Duration(seconds) * time.Second) }

func node(ready corev1.ConditionStatus, since time.Time, mutate ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(at(-3600))},
		Spec:       corev1.NodeSpec{ProviderID: "p://1"},
		Status: corev1.NodeStatus{
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.36.3"},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastTransitionTime: metav1.NewTime(since)}},
		},
	}
	for _, f := range mutate {
		f(n)
	}
	return n
}

// seenAt records that the controller first saw the Node condition t in status s at since,
// when the Node said it changed at nodeTime.
func seenAt(m *v1alpha1.Machine, t corev1.NodeConditionType, s corev1.ConditionStatus, since, nodeTime time.Time) {
	m.Status.HealthCheck = &v1alpha1.MachineHealthCheckStatus{UnhealthyNodeConditions: []v1alpha1.ObservedNodeCondition{
		{Type: t, Status: s, NodeLastTransitionTime: &metav1.Time{Time: nodeTime}, Since: metav1.NewTime(since)},
	}}
}

func provisioned() Ref {
	return Ref{Kind: "FakeMachine", Name: "m", Exists: true, Contract: Contract{Ready: true, ProviderID: "p://1"}}
}

// TestComputeStatus checks the condition each input produces, with no API server.
func TestComputeStatus(t *testing.T) {
	type want struct {
		conditions map[string]string // type → "Status/Reason"
		phase      v1alpha1.MachinePhase
		next       time.Time
	}
	cases := []struct {
		name    string
		machine func(*v1alpha1.Machine)
		in      Inputs
		want    want
	}{
		{
			name: "infrastructure missing",
			in:   Inputs{Infra: Ref{Kind: "FakeMachine", Name: "m"}},
			want: want{phase: v1alpha1.MachinePhasePending, conditions: map[string]string{
				"InfrastructureReady":  "Unknown/InfrastructureDoesNotExist",
				"NodeReady":            "Unknown/NodeDoesNotExist",
				"HealthCheckSucceeded": "True/HealthCheckSucceeded",
				"Ready":                "Unknown/MultipleUnknownReported",
			}},
		},
		{
			name: "infrastructure status has the wrong type",
			in:   Inputs{Infra: Ref{Kind: "FakeMachine", Name: "m", Exists: true, Unreadable: "status.ready: want bool", Problem: ProblemContractViolation}},
			want: want{phase: v1alpha1.MachinePhasePending, conditions: map[string]string{
				"InfrastructureReady": "Unknown/InfrastructureContractViolation",
			}},
		},
		{
			name: "provisioned, no Node yet: startup timer pending",
			machine: func(m *v1alpha1.Machine) {
				m.Status.Conditions = []metav1.Condition{{Type: "InfrastructureReady", Status: "True", Reason: "InfrastructureProvisioned", LastTransitionTime: metav1.NewTime(at(0))}}
			},
			in: Inputs{Now: at(30), Infra: provisioned()},
			want: want{phase: v1alpha1.MachinePhaseProvisioned, next: at(600), conditions: map[string]string{
				"HealthCheckSucceeded": "True/HealthCheckSucceeded",
			}},
		},
		{
			name: "provisioned, no Node after the startup timeout",
			machine: func(m *v1alpha1.Machine) {
				m.Status.Conditions = []metav1.Condition{{Type: "InfrastructureReady", Status: "True", Reason: "InfrastructureProvisioned", LastTransitionTime: metav1.NewTime(at(0))}}
			},
			in: Inputs{Now: at(600), Infra: provisioned()},
			want: want{phase: v1alpha1.MachinePhaseFailed, conditions: map[string]string{
				"HealthCheckSucceeded": "False/NodeStartupTimeout",
			}},
		},
		{
			name: "Node NotReady inside the timeout: requeue at the deadline",
			machine: func(m *v1alpha1.Machine) {
				m.Status.LastOperation = &v1alpha1.LastOperation{Type: "Create", State: "Successful", LastUpdated: metav1.NewTime(at(0))}
				seenAt(m, corev1.NodeReady, corev1.ConditionFalse, at(0), at(0))
			},
			in: Inputs{Now: at(100), Infra: provisioned(), Node: node(corev1.ConditionFalse, at(0))},
			want: want{phase: v1alpha1.MachinePhaseUnknown, next: at(300), conditions: map[string]string{
				"NodeReady":            "False/NodeNotReady",
				"HealthCheckSucceeded": "True/HealthCheckSucceeded",
			}},
		},
		{
			name:    "Node NotReady past the timeout",
			machine: func(m *v1alpha1.Machine) { seenAt(m, corev1.NodeReady, corev1.ConditionFalse, at(0), at(0)) },
			in:      Inputs{Now: at(300), Infra: provisioned(), Node: node(corev1.ConditionFalse, at(0))},
			want: want{phase: v1alpha1.MachinePhaseFailed, conditions: map[string]string{
				"HealthCheckSucceeded": "False/UnhealthyNode",
			}},
		},
		{
			name: "custom unhealthy condition: DiskPressure for 30s",
			machine: func(m *v1alpha1.Machine) {
				m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
					{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, TimeoutSeconds: 30},
				}}
				seenAt(m, corev1.NodeDiskPressure, corev1.ConditionTrue, at(0), at(0))
			},
			in: Inputs{Now: at(10), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) {
				n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at(0))})
			})},
			want: want{phase: v1alpha1.MachinePhaseRunning, next: at(30), conditions: map[string]string{
				"NodeHealthy":          "False/NodeUnhealthy",
				"HealthCheckSucceeded": "True/HealthCheckSucceeded",
				"Ready":                "False/IssueReported",
			}},
		},
		{
			name: "Node deleted after it registered fails at once",
			machine: func(m *v1alpha1.Machine) {
				m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "n1"}
			},
			in: Inputs{Now: at(1), Infra: provisioned()},
			want: want{phase: v1alpha1.MachinePhaseFailed, conditions: map[string]string{
				"NodeReady":            "Unknown/NodeDeleted",
				"HealthCheckSucceeded": "False/NodeDeleted",
			}},
		},
		{
			name:    "kubelet version differs from spec.version",
			machine: func(m *v1alpha1.Machine) { m.Spec.Version = "1.36.4" },
			in:      Inputs{Now: at(1), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			want: want{phase: v1alpha1.MachinePhaseUpdating, conditions: map[string]string{
				"Updating": "True/KubeletVersionUpdating",
			}},
		},
		{
			name:    "no spec.version: Updating is left to others",
			machine: func(*v1alpha1.Machine) {},
			in:      Inputs{Now: at(1), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			want: want{phase: v1alpha1.MachinePhaseRunning, conditions: map[string]string{
				"Updating": "absent",
			}},
		},
		{
			name: "cordoned",
			in: Inputs{Now: at(1), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) {
				n.Spec.Unschedulable = true
			})},
			want: want{phase: v1alpha1.MachinePhaseDraining, conditions: map[string]string{"Draining": "True/NodeCordoned"}},
		},
		{
			name:    "standby suspends the health check",
			machine: func(m *v1alpha1.Machine) { m.Spec.Standby = true },
			in:      Inputs{Now: at(3600), Infra: provisioned(), Node: node(corev1.ConditionFalse, at(0))},
			want: want{phase: v1alpha1.MachinePhaseStandby, conditions: map[string]string{
				"Standby":              "True/StandbyRequested",
				"HealthCheckSucceeded": "True/HealthCheckSucceeded",
			}},
		},
		{
			name: "bootstrap config with data, infrastructure provisioning",
			machine: func(m *v1alpha1.Machine) {
				m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: "b", Kind: "B", Name: "b"}}
			},
			in: Inputs{
				Infra:     Ref{Kind: "FakeMachine", Name: "m", Exists: true},
				Bootstrap: &Ref{Kind: "B", Name: "b", Exists: true, Contract: Contract{Ready: true}},
			},
			want: want{phase: v1alpha1.MachinePhaseProvisioning, conditions: map[string]string{
				"BootstrapConfigReady": "True/DataSecretCreated",
				"InfrastructureReady":  "False/InfrastructureNotProvisioned",
			}},
		},
		{
			name: "terminal bootstrap failure",
			machine: func(m *v1alpha1.Machine) {
				m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: "b", Kind: "B", Name: "b"}}
			},
			in: Inputs{
				Infra:     Ref{Kind: "FakeMachine", Name: "m", Exists: true},
				Bootstrap: &Ref{Kind: "B", Name: "b", Exists: true, Contract: Contract{FailureReason: "BadConfig"}},
			},
			want: want{phase: v1alpha1.MachinePhaseFailed, conditions: map[string]string{
				"BootstrapConfigReady": "False/BootstrapFailed",
			}},
		},
		{
			name: "deleting: infrastructure gone, Node still there",
			machine: func(m *v1alpha1.Machine) {
				ts := metav1.NewTime(at(0))
				m.DeletionTimestamp = &ts
			},
			in: Inputs{Now: at(1), Infra: Ref{Kind: "FakeMachine", Name: "m"}, Node: node(corev1.ConditionTrue, at(0))},
			want: want{phase: v1alpha1.MachinePhaseDeleting, conditions: map[string]string{
				"Deleting": "True/WaitingForNodeDeletion",
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
			if tc.machine != nil {
				tc.machine(m)
			}
			if tc.in.Now.IsZero() {
				tc.in.Now = at(0)
			}
			next, err := Compute(m, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			checkReasonsCatalogued(t, m)
			got := want{phase: m.Status.Phase, next: next, conditions: map[string]string{}}
			for typ := range tc.want.conditions {
				if c := conditions.Get(m, typ); c != nil {
					got.conditions[typ] = string(c.Status) + "/" + c.Reason
				} else {
					got.conditions[typ] = "absent"
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Compute (-want +got):\n%s", diff)
			}
			for _, c := range m.Status.Conditions {
				if err := conditions.Validate(c); err != nil {
					t.Errorf("stored an invalid condition: %v", err)
				}
			}

			// Recomputing from the same inputs changes nothing: no write on a no-op reconcile.
			again := m.DeepCopy()
			if _, err := Compute(again, tc.in); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.Status, again.Status); diff != "" {
				t.Errorf("second Compute changed the status (-first +second):\n%s", diff)
			}
		})
	}
}

// TestReadContract checks the Cluster API contract fields, v1beta2 before v1beta1, and that a
// field of the wrong type is an error naming the field.
func TestReadContract(t *testing.T) {
	cases := []struct {
		name    string
		obj     map[string]any
		want    Contract
		wantErr string
	}{
		{"v1beta2 provisioned", map[string]any{"spec": map[string]any{"providerID": "p://1"}, "status": map[string]any{"initialization": map[string]any{"provisioned": true}}},
			Contract{Ready: true, ProviderID: "p://1"}, ""},
		{"v1beta2 wins over v1beta1", map[string]any{"status": map[string]any{"initialization": map[string]any{"provisioned": false}, "ready": true}},
			Contract{}, ""},
		{"v1beta1 ready", map[string]any{"status": map[string]any{"ready": true}}, Contract{Ready: true}, ""},
		{"terminal failure", map[string]any{"status": map[string]any{"failureReason": "OutOfCapacity", "failureMessage": "no hosts"}},
			Contract{FailureReason: "OutOfCapacity", FailureMessage: "no hosts"}, ""},
		{"deprecated failure fields", map[string]any{"status": map[string]any{"deprecated": map[string]any{"v1beta1": map[string]any{"failureReason": "X"}}}},
			Contract{FailureReason: "X"}, ""},
		{"Ready condition message", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "WaitingForIP", "message": "waiting for IP", "lastTransitionTime": "2026-05-01T12:00:00Z"}}}},
			Contract{ReadyMessage: "waiting for IP"}, ""},
		{"Ready condition in Cluster API v1beta1 shape", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "severity": "Warning", "reason": "WaitingForBootstrapData", "message": "bootstrap not ready", "lastTransitionTime": "2026-05-01T12:00:00Z"}}}},
			Contract{ReadyMessage: "bootstrap not ready"}, ""},
		// Entries another writer left invalid are skipped, never a contract violation (issue 12
		// part 5).
		{"a condition without lastTransitionTime: skipped", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}}},
			Contract{}, ""},
		{"another writer's broken entries beside Ready: skipped, Ready's message read", map[string]any{"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Instance Ready", "status": "True", "lastTransitionTime": "2026-05-01T12:00:00Z"},
			map[string]any{"type": "NetworkReady", "status": "Healthy", "reason": "", "lastTransitionTime": "0001-01-01T00:00:00Z"},
			"Ready=False",
			map[string]any{"type": "Ready", "status": "False", "reason": "WaitingForIP", "message": "waiting for IP", "lastTransitionTime": "2026-05-01T12:00:00Z"},
			map[string]any{"type": "Ready", "status": "true", "lastTransitionTime": "2026-05-01T12:00:00Z"}}}},
			Contract{ReadyMessage: "waiting for IP"}, ""},
		{"ready is a string", map[string]any{"status": map[string]any{"ready": "yes"}}, Contract{}, "status.ready"},
		{"provisioned is a number", map[string]any{"status": map[string]any{"initialization": map[string]any{"provisioned": 1}}}, Contract{}, "status.initialization.provisioned"},
		{"providerID is a list", map[string]any{"spec": map[string]any{"providerID": []any{"a"}}}, Contract{}, "spec.providerID"},
		{"providerID of 512 characters, the most status.providerID holds", map[string]any{"spec": map[string]any{"providerID": strings.Repeat("é", 512)}},
			Contract{ProviderID: strings.Repeat("é", 512)}, ""},
		{"providerID longer than status.providerID holds", map[string]any{"spec": map[string]any{"providerID": strings.Repeat("é", 513)}}, Contract{},
			"spec.providerID: must be at most 512 characters, not 513"},
		{"conditions not a list", map[string]any{"status": map[string]any{"conditions": "broken"}}, Contract{}, "status.conditions: must be a list, not a string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadContract(&unstructured.Unstructured{Object: tc.obj}, "provisioned")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadContract (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInputsRefs: the referenced objects a reconcile read, the bootstrap config after the
// infrastructure when there is one.
func TestInputsRefs(t *testing.T) {
	infra, boot := Ref{Kind: "FakeMachine", Name: "m"}, Ref{Kind: "FakeConfig", Name: "b"}
	if got := (Inputs{Infra: infra}).Refs(); len(got) != 1 || got[0].Kind != "FakeMachine" {
		t.Errorf("without bootstrap: %v", got)
	}
	if got := (Inputs{Infra: infra, Bootstrap: &boot}).Refs(); len(got) != 2 || got[0].Kind != "FakeMachine" || got[1].Kind != "FakeConfig" {
		t.Errorf("with bootstrap: %v", got)
	}
}
