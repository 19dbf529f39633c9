package conditions_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/conditions"
)

// TestOneLine: multi-line messages as real writers produce them, on one line.
func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one line is kept as it is", "kubelet is posting ready status", "kubelet is posting ready status"},
		{"empty", "", ""},
		{"Cluster API v1beta2 summary", "* InfrastructureReady: not provisioned\n* NodeHealthy: Waiting for a Node", "InfrastructureReady: not provisioned, NodeHealthy: Waiting for a Node"},
		{"nested list under a heading", "* NodeHealthy:\n  * Node.Ready: Kubelet stopped posting node status.", "NodeHealthy: Node.Ready: Kubelet stopped posting node status."},
		{"MachineHealthCheck message", "Health check failed:\n  * Condition Ready on Node is reporting status Unknown for more than 5m0s", "Health check failed: Condition Ready on Node is reporting status Unknown for more than 5m0s"},
		{"Cluster API drain message", "Drain not completed yet (started at 2m ago):\n* Pods with deletionTimestamp that still exist: web-abcde\n* Pod web-xyz12: cannot evict pod as it would violate the pod's disruption budget.", "Drain not completed yet (started at 2m ago): Pods with deletionTimestamp that still exist: web-abcde, Pod web-xyz12: cannot evict pod as it would violate the pod's disruption budget."},
		{"CRLF, blank lines, dashes, trailing newline", "- a\r\n\r\n- b\n", "a, b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, conditions.OneLine(tt.in)); diff != "" {
				t.Errorf("OneLine(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestCollapseSpace: runs of white space of every kind become one space, none at the ends.
func TestCollapseSpace(t *testing.T) {
	tests := map[string]string{
		"": "", " ": "", "a": "a", "Waiting for the Node": "Waiting for the Node", "a  b": "a b",
		" a": "a", "a ": "a", "a\tb": "a b", "a\nb": "a b", "a\r\nb": "a b", "a\vb": "a b", "a\fb": "a b",
		"a\u00a0b": "a b", "a\u2003b": "a b", "a\u0085b": "a b", "a\x85b": "a\x85b", "é b": "é b", "* A: x\n* B: y": "* A: x * B: y",
	}
	for in, want := range tests {
		if got := conditions.CollapseSpace(in); got != want {
			t.Errorf("CollapseSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOneLineEdges: line breaks at the very start of a message.
func TestOneLineEdges(t *testing.T) {
	for in, want := range map[string]string{"\na": "a", "\ra": "a", "\n* A: x\n* B: y": "A: x, B: y", "a\rb": "a, b"} {
		if got := conditions.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
