package aggregate

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestWriteLine checks that writeLine, which builds a summary line without intermediate
// strings, writes exactly line(): ReplaceAll of the newlines, then conditions.TruncateTo.
func TestWriteLine(t *testing.T) {
	pieces := []string{"a", "é", "🙂", "\n", "\r", "* ", "\xff", " ", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
	rng := rand.New(rand.NewPCG(1, 2))
	items := []summaryItem{
		{conditionType: "Ready", missing: true},
		{conditionType: "NodeReady", text: ""},
		{conditionType: "NodeReady", text: "a\nb\n"},
		{conditionType: "NodeReady", text: strings.Repeat("x", 500)},
		{conditionType: "NodeReady", text: strings.Repeat("é", 300)},
		{conditionType: "NodeReady", text: strings.Repeat("\n", 300)},
		// Longer than maxSummaryItemBytes before the empty lines go, exactly that long after.
		{conditionType: "T", text: "\n\n\n" + strings.Repeat("x", maxSummaryItemBytes-len("T: "))},
		{conditionType: "T", text: "\n\n\n" + strings.Repeat("x", maxSummaryItemBytes-len("T: ")+1)},
	}
	for range 2000 {
		var text strings.Builder
		for range rng.IntN(80) {
			text.WriteString(pieces[rng.IntN(len(pieces))])
		}
		items = append(items, summaryItem{conditionType: strings.Repeat("T", 1+rng.IntN(60)), text: text.String()})
	}
	for _, item := range items {
		n, plain := item.maxLen()
		if line := item.line(); n < len(line) && utf8.ValidString(item.text) && !strings.HasSuffix(line, conditions.TruncationMarker) {
			t.Fatalf("maxLen(%q, %q) = %d, below the line's %d bytes", item.conditionType, item.text, n, len(line))
		}
		if plain != conditions.PlainLine(item.lineText()) {
			t.Fatalf("maxLen(%q, %q): plain %v, want PlainLine's", item.conditionType, item.text, plain)
		}
		// plain is a shortcut only: without it, writeLine writes the same.
		for _, p := range []bool{plain, false} {
			var b strings.Builder
			item.writeLine(&b, n, p)
			if got, want := b.String(), item.line(); got != want {
				t.Fatalf("writeLine(%q, %q, plain %v) =\n%q\nwant\n%q", item.conditionType, item.text, p, got, want)
			}
		}
	}
}

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
		{"three plain lines, then and 12 more (the size is exact)", []summaryItem{{conditionType: "A", text: "a"}, {conditionType: "B", text: "b"},
			{conditionType: "C", text: "c"}, {conditionType: "D", text: "d"}, {conditionType: "E", text: "e"}, {conditionType: "F", text: "f"},
			{conditionType: "G", text: "g"}, {conditionType: "H", text: "h"}, {conditionType: "I", text: "i"}, {conditionType: "J", text: "j"},
			{conditionType: "K", text: "k"}, {conditionType: "L", text: "l"}, {conditionType: "M", text: "m"}, {conditionType: "N", text: "n"}},
			[]summaryItem{{conditionType: "O", missing: true}}},
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

// TestSummaryMessageSizedExactly: a message of plain lines is allocated with exactly its
// length, so that a size one byte too large or too small shows. Each message ends just at the
// top of one of the allocator's size classes (a byte more would need the next class) or one
// byte past it (a byte less would need a second allocation). The bytes expected are those of
// make([]byte, len(message)), measured the same way, so no size class is written here.
func TestSummaryMessageSizedExactly(t *testing.T) {
	// Lengths at the top of a size class and one byte past it (8-byte steps up to 16, 16-byte
	// steps to 256, 32-byte steps to 512 in Go's allocator; the test needs only that they are
	// class boundaries, which the byte counts below confirm).
	lengths := []int{64, 65, 80, 81, 128, 129, 256, 257}
	shapes := []struct {
		name string
		// items returns the issues and unknowns of a message of length n.
		items func(n int) (issues, unknowns []summaryItem)
	}{
		{"one line", func(n int) ([]summaryItem, []summaryItem) {
			return []summaryItem{{conditionType: "A", text: strings.Repeat("a", n-len("A: "))}}, nil
		}},
		{"three lines and 2 more", func(n int) ([]summaryItem, []summaryItem) {
			fixed := len("A: a; B: b; C: ; and 2 more")
			return []summaryItem{{conditionType: "A", text: "a"}, {conditionType: "B", text: "b"}, {conditionType: "C", text: strings.Repeat("c", n-fixed)}},
				[]summaryItem{{conditionType: "D", missing: true}, {conditionType: "E", text: "e"}}
		}},
		{"a missing condition, then 12 more", func(n int) ([]summaryItem, []summaryItem) {
			fixed := len("A: " + notYetReportedText + "; B: ; C: c; and 12 more")
			more := make([]summaryItem, 0, 12)
			for i := range 12 {
				more = append(more, summaryItem{conditionType: fmt.Sprintf("Z%02d", i), text: "z"})
			}
			return []summaryItem{{conditionType: "B", text: strings.Repeat("b", n-fixed)}, {conditionType: "C", text: "c"}},
				append([]summaryItem{{conditionType: "A", missing: true}}, more...)
		}},
	}
	for _, shape := range shapes {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s, %d bytes", shape.name, n), func(t *testing.T) {
				is, us := shape.items(n)
				var issues, unknowns summaryItems
				for _, i := range is {
					issues.add(i)
				}
				for _, i := range us {
					unknowns.add(i)
				}
				var msg string
				build := func() { msg = summaryMessage(&issues, &unknowns) }
				got := bytesPerRun(build)
				if len(msg) != n {
					t.Fatalf("summaryMessage() = %q, %d bytes; the test wants %d", msg, len(msg), n)
				}
				var sink []byte
				want := bytesPerRun(func() { sink = make([]byte, n) })
				if len(sink) != n {
					t.Fatal("make([]byte) did not run")
				}
				if allocs := testing.AllocsPerRun(20, build); allocs != 1 || got != want {
					t.Errorf("summaryMessage() = %q: %v allocations of %d bytes, want 1 of %d (a []byte of its length)", msg, allocs, got, want)
				}
			})
		}
	}
}

// bytesPerRun is testing.AllocsPerRun for bytes: the bytes f allocates per call, size classes
// included (runtime.MemStats.TotalAlloc, read as AllocsPerRun reads Mallocs: on one P, after
// a warm-up call). It is as deterministic as AllocsPerRun.
func bytesPerRun(f func()) uint64 {
	const runs = 20
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// TestTypeIndex checks the index against findCondition, the rule it speeds up, on sorted and
// unsorted lists with duplicates, types missing from either side, lists at and beyond the
// index's limit, and types whose hashes collide.
func TestTypeIndex(t *testing.T) {
	c := func(typ, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason}
	}
	scope := []string{"Ready", "A", "B", "C", "D", "E", "example.com/X"}
	lists := map[string][]metav1.Condition{
		"empty":                              nil,
		"sorted":                             {c("Ready", "R"), c("A", "a"), c("C", "c"), c("example.com/X", "x")},
		"sorted with duplicate":              {c("Ready", "R1"), c("Ready", "R2"), c("B", "b1"), c("B", "b2"), c("D", "d")},
		"unsorted":                           {c("C", "c"), c("Ready", "R"), c("A", "a1"), c("A", "a2")},
		"unsorted with the duplicates apart": {c("B", "b1"), c("A", "a"), c("Ready", "R"), c("B", "b2"), c("example.com/X", "x")},
	}
	long := make([]metav1.Condition, 0, maxIndexedConditions+2)
	for i := range maxIndexedConditions + 2 {
		long = append(long, c(fmt.Sprintf("T%03d", maxIndexedConditions+2-i), "t"))
	}
	lists["unsorted, at the index's limit"] = long[2:]
	lists["unsorted, longer than the index"] = long
	for i := maxIndexedConditions + 2; i > 0; i -= 7 {
		scope = append(scope, fmt.Sprintf("T%03d", i))
	}
	// Types that share a slot, so that probing and the first-of-duplicates rule meet.
	var colliding []string
	for i := 0; len(colliding) < 4; i++ {
		if typ := fmt.Sprintf("C%d", i); typeHash(typ) == typeHash("Ready") {
			colliding = append(colliding, typ)
		}
	}
	lists["colliding"] = []metav1.Condition{c(colliding[0], "1"), c("Ready", "R"), c(colliding[1], "2"), c(colliding[0], "dup"), c(colliding[2], "3")}
	scope = append(scope, colliding...)
	for name, list := range lists {
		var x typeIndex
		x.init(list)
		if want := len(list) > maxIndexedConditions; x.linear != want {
			t.Errorf("%s: %d conditions searched one by one: %v, want %v", name, len(list), x.linear, want)
		}
		for _, typ := range scope {
			want := slices.IndexFunc(list, func(l metav1.Condition) bool { return l.Type == typ })
			if got := x.find(typ, typeHash(typ)); got != want {
				t.Errorf("%s: find(%q) = %d, want %d (the first of the type)", name, typ, got, want)
			}
		}
	}
}

// TestTypeHashSpreads: the condition types of a machinestatus Machine (which Summarize indexes
// on every reconcile) and those of a Cluster API v1beta2 Machine each get a slot of their own,
// so every lookup finds its type at the first probe; fifty provider gates beside them share few.
func TestTypeHashSpreads(t *testing.T) {
	machine := []string{v1alpha1.MachineReadyCondition, v1alpha1.MachineBootstrapConfigReadyCondition,
		v1alpha1.MachineInfrastructureReadyCondition, v1alpha1.MachineNodeReadyCondition, v1alpha1.MachineNodeHealthyCondition,
		v1alpha1.MachineHealthCheckSucceededCondition, v1alpha1.MachineUpdatingCondition, v1alpha1.MachineDrainingCondition,
		v1alpha1.MachineStandbyCondition, v1alpha1.MachineDeletingCondition, v1alpha1.MachinePausedCondition,
		v1alpha1.MachineStalledCondition}
	clusterAPI := []string{clusterv1.MachineAvailableCondition, clusterv1.MachineReadyCondition, clusterv1.MachineUpToDateCondition,
		clusterv1.MachineUpdatingCondition, clusterv1.MachineBootstrapConfigReadyCondition, clusterv1.MachineInfrastructureReadyCondition,
		clusterv1.MachineNodeHealthyCondition, clusterv1.MachineNodeReadyCondition, clusterv1.MachineHealthCheckSucceededCondition,
		clusterv1.MachineOwnerRemediatedCondition, clusterv1.MachineExternallyRemediatedCondition, clusterv1.MachineDeletingCondition,
		clusterv1.PausedCondition}
	for name, types := range map[string][]string{"machinestatus Machine": machine, "Cluster API Machine": clusterAPI} {
		slots := map[uint32]string{}
		for _, typ := range types {
			h := typeHash(typ)
			if h >= uint32(len(typeIndex{}.slots)) {
				t.Fatalf("typeHash(%q) = %d, outside the table's %d slots", typ, h, len(typeIndex{}.slots))
			}
			if other, ok := slots[h]; ok {
				t.Errorf("%s: %s and %s share slot %d", name, other, typ, h)
			}
			slots[h] = typ
		}
	}
	// Fifty types where the shape of the benchmarks' 50conditions case puts them: a random hash
	// of 50 types into 128 slots gives about 50*49/2/128 = 9.6 sharing pairs.
	types := slices.Clone(clusterAPI[:10])
	for i := len(types); i < 50; i++ {
		types = append(types, fmt.Sprintf("example.com/Gate%02d", i))
	}
	pairs := 0
	count := map[uint32]int{}
	for _, typ := range types {
		pairs += count[typeHash(typ)]
		count[typeHash(typ)]++
	}
	if pairs > 10 {
		t.Errorf("50 types: %d pairs share a slot, more than a random hash's 9.6", pairs)
	}
}

// TestPositions: add reports each position in [0, 64) new once, never one outside it, and has
// reports exactly the positions added.
func TestPositions(t *testing.T) {
	var s positions
	added := map[int]bool{}
	for _, p := range []int{-1, 0, 5, 0, 63, 64, 65, 5, 62, 1, 63, -2} {
		want := p >= 0 && p < positionsSize && !added[p]
		if got := s.add(p); got != want {
			t.Errorf("add(%d) = %v, want %v", p, got, want)
		}
		if want {
			added[p] = true
		}
	}
	for p := -2; p <= positionsSize+1; p++ {
		if got := s.has(p); got != added[p] {
			t.Errorf("has(%d) = %v, want %v", p, got, added[p])
		}
	}
}

// TestSummaryItemsKeepCatalogOrder: whatever the order items are added in, the first
// maxSummaryItems kept are the smallest in catalog order and all are counted.
func TestSummaryItemsKeepCatalogOrder(t *testing.T) {
	orders := [][]string{
		{"Ready", "A", "B", "C", "D"},
		{"D", "C", "B", "A", "Ready"},
		{"B", "D", "Ready", "C", "A"},
		{"C", "A"},
		{"example.com/X", "Z", "Ready", "a"},
	}
	want := [][]string{{"Ready", "A", "B"}, {"Ready", "A", "B"}, {"Ready", "A", "B"}, {"A", "C"}, {"Ready", "Z", "a"}}
	for i, order := range orders {
		var l summaryItems
		for _, typ := range order {
			l.add(summaryItem{conditionType: typ})
		}
		var got []string
		for _, it := range l.first[:min(l.n, maxSummaryItems)] {
			got = append(got, it.conditionType)
		}
		if d := cmp.Diff(want[i], got); d != "" || l.n != len(order) {
			t.Errorf("added %v: kept (-want +got):\n%s, counted %d", order, d, l.n)
		}
	}
}
