package conditions_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// conditionsFrom decodes a small, valid, duplicate-free conditions list from data.
func conditionsFrom(data []byte, pos *int) []metav1.Condition {
	next := func() byte {
		if *pos >= len(data) {
			return 0
		}
		b := data[*pos]
		*pos++
		return b
	}
	types := []string{"Ready", "A", "B", "example.com/C"}
	statuses := []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
	var out []metav1.Condition
	seen := map[string]bool{}
	for range int(next() % 5) {
		b := next()
		t := types[int(b)%len(types)]
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, metav1.Condition{
			Type: t, Status: statuses[int(b>>2)%3], Reason: []string{"R1", "R2"}[int(b>>4)%2],
			Message: []string{"", "m"}[int(b>>5)%2], ObservedGeneration: int64(b>>6) % 2,
			LastTransitionTime: metav1.NewTime(time.Unix(int64(next())*60, 0).Local()),
		})
	}
	conditions.Sort(out) // as every writer using Set stores them
	return out
}

// foreignFrom decodes what other writers leave in a list: up to two entries, one of a type
// from types (without reason or time: a duplicate when the list has that type) and one whose
// type and status are invalid, neither valid today.
func foreignFrom(data []byte, pos *int, types []string) []metav1.Condition {
	if *pos >= len(data) {
		return nil
	}
	b := data[*pos]
	*pos++
	var out []metav1.Condition
	if b&1 != 0 {
		out = append(out, metav1.Condition{Type: types[int(b>>2)%len(types)], Status: metav1.ConditionUnknown})
	}
	if b&2 != 0 {
		out = append(out, metav1.Condition{Type: "bad type", Status: "Maybe", Reason: "not a reason"})
	}
	return out
}

// FuzzPatchApply checks the three-way merge's invariants on random before/after/latest lists,
// which may carry other writers' duplicates and invalid entries: no panic; a conflict changes
// nothing; otherwise every patched type holds the writer's result in exactly one valid entry,
// the entries of every other type are untouched, and the list is sorted.
func FuzzPatchApply(f *testing.F) {
	f.Add([]byte{2, 0x01, 10, 0x06, 20, 2, 0x05, 30, 0x06, 20, 3, 0x01, 10, 0x16, 40, 0x27, 50}, uint8(0), false)
	f.Add([]byte{1, 0x02, 1, 1, 0x12, 2, 1, 0x22, 3}, uint8(1), false)
	f.Add([]byte{3, 0x00, 1, 0x01, 2, 0x02, 3, 0, 4, 0x10, 1, 0x21, 2, 0x32, 3, 0x03, 4}, uint8(0), true)
	f.Fuzz(func(t *testing.T, data []byte, owned uint8, force bool) {
		pos := 0
		before, after, latest := conditionsFrom(data, &pos), conditionsFrom(data, &pos), conditionsFrom(data, &pos)
		// Entries of other writers the writer read and left alone, and some in latest.
		// (The writer's own types are decided by the writer: other writers' entries it read are
		// of other types.)
		read := foreignFrom(data, &pos, []string{"example.com/Foreign"})
		before = append(before, read...)
		after = append(after, read...)
		latest = append(latest, foreignFrom(data, &pos, []string{"Ready", "A", "B", "example.com/C", "example.com/Foreign"})...)
		p, err := conditions.NewPatch(machine(1, before...), machine(1, after...))
		if err != nil {
			t.Fatalf("NewPatch on valid lists: %v", err)
		}
		if same, err := conditions.NewPatch(machine(1, after...), machine(1, after...)); err != nil || !same.IsZero() {
			t.Fatalf("NewPatch(after, after) = %v, %v; want empty", same, err)
		}
		var opts []conditions.ApplyOption
		for i, typ := range []string{"Ready", "A", "B", "example.com/C"} {
			if owned&(1<<i) != 0 {
				opts = append(opts, conditions.OwnedConditionTypes{typ})
			}
		}
		if force {
			opts = append(opts, conditions.ForceOverwrite(true))
		}

		m := machine(1, latest...)
		orig := m.DeepCopy()
		err = p.Apply(m, opts...)
		var conflict *conditions.ConflictError
		if errors.As(err, &conflict) {
			if !reflect.DeepEqual(orig.Status.Conditions, m.Status.Conditions) {
				t.Fatal("a conflicting Apply changed the conditions")
			}
			return
		}
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		got := m.Status.Conditions
		patched := map[string]*metav1.Condition{}
		for _, op := range p {
			patched[op.Type] = op.After
		}
		for i, c := range got {
			// (An empty patch leaves latest as it is, sorted or not.)
			if i > 0 && !p.IsZero() && conditions.Compare(got[i-1].Type, c.Type) > 0 {
				t.Fatalf("not sorted: %s before %s", got[i-1].Type, c.Type)
			}
			if _, ok := patched[c.Type]; !ok {
				continue
			}
			if n := countIn(got, c.Type); n != 1 {
				t.Fatalf("%d conditions of patched type %s", n, c.Type)
			}
			if err := conditions.Validate(c); err != nil {
				t.Fatalf("invalid condition after Apply: %v", err)
			}
		}
		untouched := func(list []metav1.Condition) []metav1.Condition {
			var out []metav1.Condition
			for _, c := range list {
				if _, ok := patched[c.Type]; !ok {
					out = append(out, c)
				}
			}
			conditions.Sort(out)
			return out
		}
		if want, have := untouched(latest), untouched(got); !reflect.DeepEqual(want, have) {
			t.Fatalf("untouched entries changed from %+v to %+v", want, have)
		}
		for typ, want := range patched {
			have := conditions.Get(m, typ)
			switch {
			case want == nil && have != nil:
				t.Fatalf("%s should be removed", typ)
			case want != nil && (have == nil || have.Status != want.Status || have.Reason != want.Reason || have.Message != want.Message):
				t.Fatalf("%s = %+v, want %+v", typ, have, want)
			}
		}
		// Applying the same patch again is a no-op, never a conflict.
		again := m.DeepCopy()
		if err := p.Apply(again); err != nil || !reflect.DeepEqual(again.Status.Conditions, m.Status.Conditions) {
			t.Fatalf("second Apply = %v, changed=%v", err, !reflect.DeepEqual(again.Status.Conditions, m.Status.Conditions))
		}
	})
}
