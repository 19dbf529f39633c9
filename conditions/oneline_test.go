package conditions_test

import (
	"strings"
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

// TestOneLinePieces: the pieces, literally (OneLine is their concatenation, so comparing with it
// would prove nothing), an upper bound that holds, and a caller may stop early.
func TestOneLinePieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"one", []string{"one"}},
		{"* a\n* b:\n  * c\n", []string{"a", ", ", "b:", " ", "c"}},
		{"\r\n- x\r\n", []string{"x"}},
		{"a\rb\rc", []string{"a", ", ", "b", ", ", "c"}},
	}
	for _, tt := range tests {
		var got []string
		conditions.OneLinePieces(tt.in, func(p string) bool { got = append(got, p); return true })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("pieces of %q (-want +got):\n%s", tt.in, diff)
		}
		if n := len(conditions.OneLine(tt.in)); n > conditions.OneLineMaxLen(tt.in) {
			t.Errorf("len(OneLine(%q)) = %d > OneLineMaxLen %d", tt.in, n, conditions.OneLineMaxLen(tt.in))
		}
	}
	calls := 0
	conditions.OneLinePieces("a\nb\nc", func(string) bool { calls++; return false })
	if calls != 1 {
		t.Errorf("yield called %d times after returning false, want 1", calls)
	}
}

// TestPlainLine: true exactly for ASCII without "\n" or "\r", whatever the position of the byte
// that is not (in an eight-byte block or in the tail), and then OneLine returns msg as it is.
func TestPlainLine(t *testing.T) {
	for n := range 20 {
		base := strings.Repeat("ab* -:9Z", 3)[:n]
		if !conditions.PlainLine(base) {
			t.Errorf("PlainLine(%q) = false, want true", base)
		}
		if got := conditions.OneLine(base); got != base {
			t.Errorf("OneLine(%q) = %q, want it unchanged", base, got)
		}
		for at := range n {
			for _, c := range []byte{'\n', '\r', 0x80, 0xc3, 0xff} {
				bad := []byte(base)
				bad[at] = c
				if conditions.PlainLine(string(bad)) {
					t.Errorf("PlainLine(%q) = true, want false (%#x at %d)", bad, c, at)
				}
			}
			// Bytes next to the line breaks, and control characters that are not line breaks.
			for _, c := range []byte{'\t', 0x0b, 0x0c, 0x0e, 0x09, 0x00, 0x7f} {
				ok := []byte(base)
				ok[at] = c
				if !conditions.PlainLine(string(ok)) {
					t.Errorf("PlainLine(%q) = false, want true (%#x at %d)", ok, c, at)
				}
			}
		}
	}
}

// TestCollapseSpace: the result is strings.Fields joined with spaces, on the white space
// strings.Fields splits at (ASCII and not) in every position, and text already so is returned
// without allocating.
func TestCollapseSpace(t *testing.T) {
	inputs := []string{"", "a", "a b", "Waiting for the Node", "a  b", " a", "a ", " ", "a\tb", "a\nb",
		"a\r\nb", "a\vb", "a\fb", "a\u00a0b", "a\u2003b", "é b", "a\x85b", "\xff b", "* A: x\n* B: y"}
	for _, s := range inputs {
		if got, want := conditions.CollapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("CollapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
	plain := "kubelet stopped posting node status"
	if allocs := testing.AllocsPerRun(100, func() { _ = conditions.CollapseSpace(plain) }); allocs != 0 {
		t.Errorf("CollapseSpace of single-spaced ASCII: %v allocations, want 0", allocs)
	}
}

// TestOneLineEdges: the exact bound OneLineMaxLen gives (one more byte per line break, the
// ", " a break may become), and line breaks at the very start of a message.
func TestOneLineEdges(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "a\nb": 4, "a\rb": 4, "a\r\nb": 6, "\n\n": 4} {
		if got := conditions.OneLineMaxLen(in); got != want {
			t.Errorf("OneLineMaxLen(%q) = %d, want %d", in, got, want)
		}
	}
	for in, want := range map[string]string{"\na": "a", "\ra": "a", "\n* A: x\n* B: y": "A: x, B: y"} {
		if got := conditions.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
