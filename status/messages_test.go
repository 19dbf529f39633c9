package status

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestConditionMessages checks the status, reason and message Compute writes for one
// condition type per input: what a user reads in kubectl describe.
func TestConditionMessages(t *testing.T) {
	type verdict struct{ Status, Reason, Message string }
	infra := func(edit func(*Ref)) Ref {
		r := provisioned()
		edit(&r)
		return r
	}
	withNodeCondition := func(c corev1.NodeCondition) func(*corev1.Node) {
		return func(n *corev1.Node) { n.Status.Conditions = append(n.Status.Conditions, c) }
	}
	long := strings.Repeat("x", 2000)
	deleting := func(m *v1alpha1.Machine) {
		now := metav1.NewTime(at(0))
		m.DeletionTimestamp = &now
		m.Finalizers = []string{"machinestatus.io/test"}
	}
	tests := []struct {
		name    string
		machine func(*v1alpha1.Machine)
		in      Inputs
		typ     string
		want    verdict
	}{
		// InfrastructureReady.
		{
			name: "infrastructure failed with reason and message",
			in: Inputs{Infra: infra(func(r *Ref) {
				r.Contract.FailureReason, r.Contract.FailureMessage = "InstanceTerminated", "terminated by the user"
			})},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureFailed", "FakeMachine m failed (InstanceTerminated): terminated by the user"},
		},
		{
			name: "infrastructure failed with a message only",
			in:   Inputs{Infra: infra(func(r *Ref) { r.Contract.FailureMessage = "quota exceeded" })},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureFailed", "FakeMachine m failed: quota exceeded"},
		},
		{
			name: "infrastructure failed with a reason only",
			in:   Inputs{Infra: infra(func(r *Ref) { r.Contract.FailureReason = "InstanceTerminated" })},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureFailed", "FakeMachine m failed (InstanceTerminated)"},
		},
		{
			name: "infrastructure not ready, with its Ready message",
			in:   Inputs{Infra: infra(func(r *Ref) { r.Contract.Ready, r.Contract.ReadyMessage = false, "waiting for an IP" })},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureNotProvisioned", "FakeMachine m is not provisioned yet: waiting for an IP"},
		},
		{
			name: "infrastructure not ready, no message",
			in:   Inputs{Infra: infra(func(r *Ref) { r.Contract.Ready = false })},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureNotProvisioned", "FakeMachine m is not provisioned yet"},
		},
		{
			name: "infrastructure failure message cut to 1024 bytes",
			in:   Inputs{Infra: infra(func(r *Ref) { r.Contract.FailureMessage = long })},
			typ:  "InfrastructureReady",
			want: verdict{"False", "InfrastructureFailed", "FakeMachine m failed: " + conditions.TruncateTo(long, 1024)},
		},

		// BootstrapConfigReady.
		{
			name:    "bootstrap data secret given",
			machine: func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{DataSecretName: "data"} },
			in:      Inputs{Infra: provisioned()},
			typ:     "BootstrapConfigReady",
			want:    verdict{"True", "DataSecretProvided", ""},
		},
		{
			name:    "bootstrap config without data yet",
			machine: func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{} },
			in:      Inputs{Infra: provisioned(), Bootstrap: &Ref{Kind: "KubeadmConfig", Name: "c", Exists: true, Contract: Contract{ReadyMessage: "waiting for the control plane"}}},
			typ:     "BootstrapConfigReady",
			want:    verdict{"False", "BootstrapConfigNotReady", "KubeadmConfig c has no bootstrap data yet: waiting for the control plane"},
		},
		{
			name:    "bootstrap config missing",
			machine: func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{} },
			in:      Inputs{Infra: provisioned(), Bootstrap: &Ref{Kind: "KubeadmConfig", Name: "c"}},
			typ:     "BootstrapConfigReady",
			want:    verdict{"Unknown", "BootstrapConfigDoesNotExist", "KubeadmConfig c does not exist"},
		},
		{
			name: "Node without a Ready condition yet",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) {
				n.Status.Conditions = nil
			})},
			typ:  "NodeReady",
			want: verdict{"Unknown", "NodeReadyUnknown", "Node n1 has not reported Ready yet"},
		},
		{
			name:    "bootstrap config failed",
			machine: func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{} },
			in:      Inputs{Infra: provisioned(), Bootstrap: &Ref{Kind: "KubeadmConfig", Name: "c", Exists: true, Contract: Contract{FailureReason: "BadConfig"}}},
			typ:     "BootstrapConfigReady",
			want:    verdict{"False", "BootstrapFailed", "KubeadmConfig c failed (BadConfig)"},
		},

		// NodeReady.
		{
			name: "Node not ready, with reason and message",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionFalse, at(0), func(n *corev1.Node) {
				n.Status.Conditions[0].Reason, n.Status.Conditions[0].Message = "KubeletNotReady", "container runtime is down"
			})},
			typ:  "NodeReady",
			want: verdict{"False", "NodeNotReady", "Node n1 is not ready (KubeletNotReady): container runtime is down"},
		},
		{
			name: "Node not reporting, no reason or message",
			in:   Inputs{Infra: provisioned(), Node: node(corev1.ConditionUnknown, at(0))},
			typ:  "NodeReady",
			want: verdict{"Unknown", "NodeReadyUnknown", "Node n1 is not reporting status"},
		},
		{
			name: "Node ready: the kubelet's message",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) {
				n.Status.Conditions[0].Message = "kubelet is posting ready status"
			})},
			typ:  "NodeReady",
			want: verdict{"True", "NodeReady", "kubelet is posting ready status"},
		},

		// NodeHealthy.
		{
			name: "pressure conditions True, in their order",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0),
				withNodeCondition(corev1.NodeCondition{Type: corev1.NodePIDPressure, Status: corev1.ConditionTrue}),
				withNodeCondition(corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue}),
				withNodeCondition(corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}),
			)},
			typ:  "NodeHealthy",
			want: verdict{"False", "NodeUnhealthy", "Node reports DiskPressure, PIDPressure True"},
		},
		{
			name: "a pressure condition Unknown",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0),
				withNodeCondition(corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionUnknown}),
			)},
			typ:  "NodeHealthy",
			want: verdict{"Unknown", "NodeHealthUnknown", "Node reports MemoryPressure Unknown"},
		},
		{
			name: "no pressure",
			in: Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0),
				withNodeCondition(corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse}),
			)},
			typ:  "NodeHealthy",
			want: verdict{"True", "NodeHealthy", ""},
		},

		// Updating.
		{
			name:    "kubelet version differs",
			machine: func(m *v1alpha1.Machine) { m.Spec.Version = "1.36.4" },
			in:      Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			typ:     "Updating",
			want:    verdict{"True", "KubeletVersionUpdating", "kubelet is v1.36.3, want 1.36.4"},
		},
		{
			name:    "kubelet version equal but for the v",
			machine: func(m *v1alpha1.Machine) { m.Spec.Version = "1.36.3" },
			in:      Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			typ:     "Updating",
			want:    verdict{"False", "NotUpdating", ""},
		},

		// Draining and Deleting.
		{
			name: "Node cordoned",
			in:   Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0), func(n *corev1.Node) { n.Spec.Unschedulable = true })},
			typ:  "Draining",
			want: verdict{"True", "NodeCordoned", "Node n1 is cordoned"},
		},
		{
			name:    "deleting: the Node is drained first",
			machine: deleting,
			in:      Inputs{Infra: provisioned(), Node: node(corev1.ConditionTrue, at(0))},
			typ:     "Deleting",
			want:    verdict{"True", "DrainingNode", "waiting for Node n1 to be drained"},
		},
		{
			name:    "deleting: then the infrastructure",
			machine: deleting,
			in:      Inputs{Infra: provisioned()},
			typ:     "Deleting",
			want:    verdict{"True", "WaitingForInfrastructureDeletion", "waiting for the infrastructure to be deleted"},
		},
		{
			name:    "deleting: then the Node",
			machine: deleting,
			in:      Inputs{Infra: Ref{Kind: "FakeMachine", Name: "m"}, Node: node(corev1.ConditionTrue, at(0))},
			typ:     "Deleting",
			want:    verdict{"True", "WaitingForNodeDeletion", "waiting for Node n1 to be deleted"},
		},
		{
			name:    "deleting: everything gone",
			machine: deleting,
			in:      Inputs{Infra: Ref{Kind: "FakeMachine", Name: "m"}},
			typ:     "Deleting",
			want:    verdict{"True", "DeletionCompleted", "the infrastructure and the Node are gone"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
			if tt.machine != nil {
				tt.machine(m)
			}
			tt.in.Now = at(1)
			if _, err := Compute(m, tt.in); err != nil {
				t.Fatalf("Compute() error = %v", err)
			}
			checkReasonsCatalogued(t, m)
			c := conditions.Get(m, tt.typ)
			if c == nil {
				t.Fatalf("Compute() wrote no %s condition", tt.typ)
			}
			if diff := cmp.Diff(tt.want, verdict{string(c.Status), c.Reason, c.Message}); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.typ, diff)
			}
		})
	}
}
