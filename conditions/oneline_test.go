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

// TestOneLinePieces: the pieces concatenate to OneLine, and a caller may stop early.
func TestOneLinePieces(t *testing.T) {
	for _, msg := range []string{"", "one", "* a\n* b:\n  * c\n", "\r\n- x\r\n", "a\rb\rc"} {
		var got string
		conditions.OneLinePieces(msg, func(p string) bool { got += p; return true })
		if want := conditions.OneLine(msg); got != want {
			t.Errorf("pieces of %q = %q, want %q", msg, got, want)
		}
		if n := len(conditions.OneLine(msg)); n > conditions.OneLineMaxLen(msg) {
			t.Errorf("len(OneLine(%q)) = %d > OneLineMaxLen %d", msg, n, conditions.OneLineMaxLen(msg))
		}
	}
	calls := 0
	conditions.OneLinePieces("a\nb\nc", func(string) bool { calls++; return false })
	if calls != 1 {
		t.Errorf("yield called %d times after returning false, want 1", calls)
	}
}
