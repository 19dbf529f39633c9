package status

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestOwnedTypes: the controller owns its ten condition types, BootstrapConfigReady only with
// spec.bootstrap and Updating only with spec.version.
func TestOwnedTypes(t *testing.T) {
	always := []string{
		"Deleting", "Draining", "HealthCheckSucceeded", "InfrastructureReady", "NodeHealthy",
		"NodeReady", "Paused", "Ready", "Stalled", "Standby",
	}
	withTypes := func(extra ...string) []string {
		out := append(slices.Clone(always), extra...)
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name string
		spec v1alpha1.MachineSpec
		want []string
	}{
		{"neither bootstrap nor version", v1alpha1.MachineSpec{}, withTypes()},
		{"bootstrap", v1alpha1.MachineSpec{Bootstrap: &v1alpha1.Bootstrap{}}, withTypes("BootstrapConfigReady")},
		{"version", v1alpha1.MachineSpec{Version: "1.36.3"}, withTypes("Updating")},
		{"both", v1alpha1.MachineSpec{Bootstrap: &v1alpha1.Bootstrap{}, Version: "1.36.3"}, withTypes("BootstrapConfigReady", "Updating")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owned := OwnedTypes(&v1alpha1.Machine{Spec: tt.spec})
			got := slices.Sorted(maps.Keys(owned))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OwnedTypes() (-want +got):\n%s", diff)
			}
			for typ, isOwned := range owned {
				if !isOwned {
					t.Errorf("OwnedTypes()[%q] = false, want only owned types in the map", typ)
				}
			}
		})
	}
}

// TestComputeStatusFields checks what Compute writes besides the conditions: providerID
// (spec.providerID wins; else the infrastructure's, only from a readable object), nodeRef (the
// Node found; kept when none is found, so that NodeReady can tell a deleted Node) and
// observedGeneration.
func TestComputeStatusFields(t *testing.T) {
	type fields struct {
		ProviderID         string
		NodeRef            *v1alpha1.MachineNodeReference
		ObservedGeneration int64
	}
	unreadable := provisioned()
	unreadable.Unreadable, unreadable.Problem = "status.ready: want bool", ProblemContractViolation
	missing := Ref{Kind: "FakeMachine", Name: "m"}
	tests := []struct {
		name    string
		machine func(*v1alpha1.Machine)
		in      Inputs
		want    fields
	}{
		{
			name:    "spec.providerID wins over the infrastructure's",
			machine: func(m *v1alpha1.Machine) { m.Spec.ProviderID = "p://spec" },
			in:      Inputs{Now: at(1), Infra: provisioned()},
			want:    fields{ProviderID: "p://spec", ObservedGeneration: 3},
		},
		{
			name: "no spec.providerID: the infrastructure's",
			in:   Inputs{Now: at(1), Infra: provisioned()},
			want: fields{ProviderID: "p://1", ObservedGeneration: 3},
		},
		{
			name:    "an unreadable infrastructure object's providerID is not copied",
			machine: func(m *v1alpha1.Machine) { m.Status.ProviderID = "p://before" },
			in:      Inputs{Now: at(1), Infra: unreadable},
			want:    fields{ProviderID: "p://before", ObservedGeneration: 3},
		},
		{
			name: "no infrastructure object: no providerID",
			in:   Inputs{Now: at(1), Infra: missing},
			want: fields{ObservedGeneration: 3},
		},
		{
			name: "the Node found becomes nodeRef",
			in:   Inputs{Now: at(1), Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			want: fields{ProviderID: "p://1", NodeRef: &v1alpha1.MachineNodeReference{Name: "n1"}, ObservedGeneration: 3},
		},
		{
			name:    "no Node found: nodeRef kept",
			machine: func(m *v1alpha1.Machine) { m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "n0"} },
			in:      Inputs{Now: at(1), Infra: provisioned()},
			want:    fields{ProviderID: "p://1", NodeRef: &v1alpha1.MachineNodeReference{Name: "n0"}, ObservedGeneration: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 3, CreationTimestamp: metav1.NewTime(at(-60))}}
			if tt.machine != nil {
				tt.machine(m)
			}
			if _, err := Compute(m, tt.in); err != nil {
				t.Fatalf("Compute() error = %v", err)
			}
			got := fields{ProviderID: m.Status.ProviderID, NodeRef: m.Status.NodeRef, ObservedGeneration: m.Status.ObservedGeneration}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compute() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComputeStatusReportsTheFirstRefusedCondition: when conditions.Set refuses a condition
// (here every one, for a negative metadata.generation), Compute returns the first one's
// error, in the order it sets them, and derives nothing from conditions it could not write.
func TestComputeStatusReportsTheFirstRefusedCondition(t *testing.T) {
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: -1, CreationTimestamp: metav1.NewTime(at(-60))}}
	_, err := Compute(m, Inputs{Now: at(1), Infra: provisioned()})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot set condition "+v1alpha1.MachineInfrastructureReadyCondition+": ") {
		t.Fatalf("Compute() error = %v, want the first refused condition's, InfrastructureReady", err)
	}
	if m.Status.Phase != "" || m.Status.LastOperation != nil || m.Status.ObservedGeneration != 0 {
		t.Errorf("Compute() derived phase %q, lastOperation %v, observedGeneration %d from conditions it could not write",
			m.Status.Phase, m.Status.LastOperation, m.Status.ObservedGeneration)
	}
	if err := ComputePaused(m, at(1)); err == nil || !strings.Contains(err.Error(), v1alpha1.MachinePausedCondition) {
		t.Errorf("ComputePaused() error = %v, want Paused's refusal", err)
	}
}

// TestComputePausedStatus: a paused Machine gets Paused=True naming the annotation, at the
// reconcile's instant, and nothing else is rewritten.
func TestComputePausedStatus(t *testing.T) {
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 2}}
	m.Status.Phase = v1alpha1.MachinePhaseRunning
	if err := ComputePaused(m, at(5)); err != nil {
		t.Fatal(err)
	}
	want := []metav1.Condition{{Type: v1alpha1.MachinePausedCondition, Status: metav1.ConditionTrue, ObservedGeneration: 2,
		Reason: v1alpha1.MachinePausedReason, Message: "annotation machinestatus.io/paused is set", LastTransitionTime: metav1.NewTime(at(5))}}
	if diff := cmp.Diff(want, m.Status.Conditions); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if m.Status.Phase != v1alpha1.MachinePhaseRunning {
		t.Errorf("phase %q, want Running kept", m.Status.Phase)
	}
}
