package conditions_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// Condition lists as other writers leave them on real objects: duplicates (appended by a
// writer that does not use a list-map), entries invalid under today's rules (empty reason, no
// lastTransitionTime, a type that is not a qualified name) and odd times. Our writes succeed,
// leave exactly one valid entry of each type they touch, and leave every other entry as it is.

// written builds a condition as another writer stored it: no normalisation, any time.
func written(typ string, s metav1.ConditionStatus, reason string, ltt time.Time) metav1.Condition {
	c := metav1.Condition{Type: typ, Status: s, Reason: reason}
	if !ltt.IsZero() {
		c.LastTransitionTime = metav1.NewTime(ltt)
	}
	return c
}

func TestSetOnRealWorldLists(t *testing.T) {
	t1, t2, now := t0.Add(-2*time.Hour), t0.Add(-time.Hour), t0
	future := t0.Add(time.Hour) // written by a clock an hour ahead
	badType := written("bad type", T, "", time.Time{})
	tests := []struct {
		name        string
		stored      []metav1.Condition
		set         metav1.Condition
		want        []metav1.Condition
		wantChanged bool
	}{
		{
			name:        "issue 12 instance: [NodeReady False, NodeReady Unknown] then NodeReady=True: one NodeReady, True",
			stored:      []metav1.Condition{cond("NodeReady", F, "NodeNotReady", t1, 1), cond("NodeReady", U, "NodeReadyUnknown", t2, 1)},
			set:         in("NodeReady", T, "NodeReady"),
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", now, 1)},
			wantChanged: true,
		},
		{
			name:        "duplicates, the first has the status set: one entry, its lastTransitionTime kept",
			stored:      []metav1.Condition{cond("NodeReady", F, "NodeNotReady", t1, 1), cond("NodeReady", U, "NodeReadyUnknown", t2, 1)},
			set:         in("NodeReady", F, "NodeNotReady"),
			want:        []metav1.Condition{cond("NodeReady", F, "NodeNotReady", t1, 1)},
			wantChanged: true,
		},
		{
			name:   "exact duplicates of the value set: one entry",
			stored: []metav1.Condition{cond("NodeReady", T, "NodeReady", t1, 1), cond("NodeReady", T, "NodeReady", t1, 1)},
			set:    in("NodeReady", T, "NodeReady"),
			want:   []metav1.Condition{cond("NodeReady", T, "NodeReady", t1, 1)},
			// The list changed: the duplicate is gone.
			wantChanged: true,
		},
		{
			name:        "stored entry with an empty reason (invalid today), same status: replaced by a valid one, time kept",
			stored:      []metav1.Condition{written("NodeReady", T, "", t1.Truncate(time.Second))},
			set:         in("NodeReady", T, "NodeReady"),
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", t1, 1)},
			wantChanged: true,
		},
		{
			name:        "stored entry without lastTransitionTime: replaced whole, dated now",
			stored:      []metav1.Condition{written("NodeReady", T, "NodeReady", time.Time{})},
			set:         in("NodeReady", T, "NodeReady"),
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", now, 1)},
			wantChanged: true,
		},
		{
			name:        "stored entry dated in the future (another clock), same status: its time is kept, not rewritten",
			stored:      []metav1.Condition{cond("NodeReady", T, "NodeReady", future, 1)},
			set:         in("NodeReady", T, "NodeReady", "kubelet is posting ready status"),
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", future, 1, "kubelet is posting ready status")},
			wantChanged: true,
		},
		{
			name:        "stored entry dated in the future, status changes: dated now",
			stored:      []metav1.Condition{cond("NodeReady", T, "NodeReady", future, 1)},
			set:         in("NodeReady", F, "NodeNotReady"),
			want:        []metav1.Condition{cond("NodeReady", F, "NodeNotReady", now, 1)},
			wantChanged: true,
		},
		{
			name: "invalid entries and duplicates of other types never block, and are left as they are",
			stored: []metav1.Condition{
				cond("A", T, "Fine", t1, 1), cond("A", F, "Other", t2, 1),
				written("example.com/NoReason", T, "", time.Time{}),
				badType,
			},
			set: in("NodeReady", T, "NodeReady"),
			want: []metav1.Condition{
				cond("A", T, "Fine", t1, 1), cond("A", F, "Other", t2, 1),
				cond("NodeReady", T, "NodeReady", now, 1),
				badType,
				written("example.com/NoReason", T, "", time.Time{}),
			},
			wantChanged: true,
		},
		{
			name:   "unchanged and alone: no change, whatever else is stored",
			stored: []metav1.Condition{cond("NodeReady", T, "NodeReady", t1, 1), badType},
			set:    in("NodeReady", T, "NodeReady"),
			want:   []metav1.Condition{cond("NodeReady", T, "NodeReady", t1, 1), badType},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := machine(1, tt.stored...)
			changed, err := conditions.Set(m, tt.set, clockAt(now))
			if err != nil {
				t.Fatalf("Set() error = %v", err)
			}
			if changed != tt.wantChanged {
				t.Errorf("Set() = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, m.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if changed, err := conditions.Set(m, tt.set, clockAt(now.Add(time.Hour))); changed || err != nil {
				t.Errorf("second Set() = %v, %v; want false, nil", changed, err)
			}
		})
	}
}

func TestDeleteRemovesEveryDuplicate(t *testing.T) {
	m := machine(1, cond("NodeReady", F, "NodeNotReady", t0, 1), cond("A", T, "Fine", t0, 1), cond("NodeReady", U, "NodeReadyUnknown", t0, 1))
	if !conditions.Delete(m, "NodeReady") {
		t.Fatal("Delete() = false")
	}
	if diff := cmp.Diff([]metav1.Condition{cond("A", T, "Fine", t0, 1)}, m.Status.Conditions); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

// TestPatchOnRealWorldLists: the three-way patch of a writer that read a list with duplicates
// and invalid entries of other writers, applied onto a latest version of the same shape.
func TestPatchOnRealWorldLists(t *testing.T) {
	t1, t2, now := t0.Add(-2*time.Hour), t0.Add(-time.Hour), t0
	badType := written("bad type", T, "", time.Time{})
	noReason := written("example.com/NoReason", T, "", t1)
	read := []metav1.Condition{
		cond("A", T, "Fine", t1, 1), cond("A", F, "Other", t2, 1),
		cond("NodeReady", F, "NodeNotReady", t1, 1), cond("NodeReady", U, "NodeReadyUnknown", t2, 1),
		badType, noReason,
	}
	tests := []struct {
		name   string
		latest []metav1.Condition
		want   []metav1.Condition
	}{
		{
			name:   "latest as read: NodeReady once, True; the rest as it was",
			latest: read,
			want: []metav1.Condition{
				cond("A", T, "Fine", t1, 1), cond("A", F, "Other", t2, 1),
				cond("NodeReady", T, "NodeReady", now, 1),
				badType, noReason,
			},
		},
		{
			name: "another writer appended one more NodeReady meanwhile: still one NodeReady",
			latest: append(append([]metav1.Condition(nil), read...),
				cond("NodeReady", F, "NodeNotReady", t2, 1)),
			want: []metav1.Condition{
				cond("A", T, "Fine", t1, 1), cond("A", F, "Other", t2, 1),
				cond("NodeReady", T, "NodeReady", now, 1),
				badType, noReason,
			},
		},
		{
			name:   "another writer fixed the duplicates of A meanwhile: kept",
			latest: []metav1.Condition{cond("A", T, "Fine", t1, 1), read[2], read[3], badType, noReason},
			want: []metav1.Condition{
				cond("A", T, "Fine", t1, 1),
				cond("NodeReady", T, "NodeReady", now, 1),
				badType, noReason,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := machine(1, read...)
			after := before.DeepCopy()
			if _, err := conditions.Set(after, in("NodeReady", T, "NodeReady"), clockAt(now)); err != nil {
				t.Fatal(err)
			}
			p, err := conditions.NewPatch(before, after)
			if err != nil {
				t.Fatalf("NewPatch() error = %v", err)
			}
			if len(p) != 1 || p[0].Type != "NodeReady" {
				t.Fatalf("patch = %+v, want one operation on NodeReady", p)
			}
			latest := machine(1, tt.latest...)
			if err := p.Apply(latest); err != nil {
				t.Fatalf("Apply() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, latest.Status.Conditions); diff != "" {
				t.Errorf("conditions after Apply (-want +got):\n%s", diff)
			}
			again := latest.DeepCopy()
			if err := p.Apply(again); err != nil || !cmp.Equal(latest.Status.Conditions, again.Status.Conditions) {
				t.Errorf("second Apply() = %v, changed = %v", err, !cmp.Equal(latest.Status.Conditions, again.Status.Conditions))
			}
		})
	}
}
