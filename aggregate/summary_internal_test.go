package aggregate

import (
	"math/rand/v2"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWriteLine checks that writeLine, which builds a summary line without intermediate
// strings, writes exactly line(): ReplaceAll of the newlines, then conditions.TruncateTo.
func TestWriteLine(t *testing.T) {
	pieces := []string{"a", "é", "🙂", "\n", " ", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
	rng := rand.New(rand.NewPCG(1, 2))
	items := []summaryItem{
		{conditionType: "Ready", missing: true},
		{conditionType: "NodeReady", text: ""},
		{conditionType: "NodeReady", text: "a\nb\n"},
		{conditionType: "NodeReady", text: strings.Repeat("x", 500)},
		{conditionType: "NodeReady", text: strings.Repeat("é", 300)},
		{conditionType: "NodeReady", text: strings.Repeat("\n", 300)},
	}
	for range 2000 {
		var text strings.Builder
		for range rng.IntN(80) {
			text.WriteString(pieces[rng.IntN(len(pieces))])
		}
		items = append(items, summaryItem{conditionType: strings.Repeat("T", 1+rng.IntN(60)), text: text.String()})
	}
	for _, item := range items {
		var b strings.Builder
		item.writeLine(&b)
		if got, want := b.String(), item.line(); got != want {
			t.Fatalf("writeLine(%q, %q) =\n%q\nwant\n%q", item.conditionType, item.text, got, want)
		}
	}
}

type testObject struct{}

func (testObject) GetConditions() []metav1.Condition { return nil }

// TestSummaryMessageAllocatesOnce: summaryMessage sizes its builder from the lines' lengths
// (each capped at maxSummaryItemBytes) and cuts long lines in an array on the stack, so a
// message costs exactly one allocation, its own bytes, whatever its lines.
func TestSummaryMessageAllocatesOnce(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name             string
		issues, unknowns []summaryItem
	}{
		{"one short line", []summaryItem{{conditionType: "NodeReady", text: "kubelet stopped posting node status"}}, nil},
		{"a missing condition", nil, []summaryItem{{conditionType: "NodeReady", missing: true}}},
		{"multi-line text, indented", []summaryItem{{conditionType: "NodeReady", text: "* A: a\n* B: b\n* C: c"}}, nil},
		{"lines cut to maxSummaryItemBytes", []summaryItem{{conditionType: "A", text: long}, {conditionType: "B", text: long + "\n" + long}}, nil},
		{"three lines, then and N more", []summaryItem{{conditionType: "A", text: "a"}, {conditionType: "B", text: long}},
			[]summaryItem{{conditionType: "C", missing: true}, {conditionType: "D", text: "d"}, {conditionType: "E", text: "e"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var issues, unknowns summaryItems
			for _, i := range tt.issues {
				issues.add(i)
			}
			for _, i := range tt.unknowns {
				unknowns.add(i)
			}
			var msg string
			if allocs := testing.AllocsPerRun(20, func() { msg = summaryMessage(&issues, &unknowns) }); allocs != 1 {
				t.Errorf("summaryMessage() = %q in %v allocations, want 1", msg, allocs)
			}
		})
	}
}
