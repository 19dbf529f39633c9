package conditions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

func TestPatchApply(t *testing.T) {
	t1 := t0.Add(time.Minute)
	t2 := t0.Add(2 * time.Minute)
	a0 := cond("A", T, "Fine", t0, 1)
	a1 := cond("A", F, "Broken", t1, 1, "mine")
	aOther := cond("A", F, "Other", t2, 1, "theirs")
	b0 := cond("B", T, "Fine", t0, 1)
	bOther := cond("B", F, "Other", t2, 1)
	c1 := cond("C", T, "New", t1, 1)

	cases := []struct {
		name         string
		before       []metav1.Condition
		after        []metav1.Condition
		latest       []metav1.Condition
		opts         []conditions.ApplyOption
		want         []metav1.Condition
		wantConflict []string
	}{
		{
			name:   "changes to different types merge",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a1, b0},
			latest: []metav1.Condition{a0, bOther},
			want:   []metav1.Condition{a1, bOther},
		},
		{
			name:   "an addition merges with another writer's addition",
			before: []metav1.Condition{a0}, after: []metav1.Condition{a0, c1},
			latest: []metav1.Condition{a0, b0},
			want:   []metav1.Condition{a0, b0, c1},
		},
		{
			name:   "the same change on both sides is not a conflict",
			before: []metav1.Condition{a0}, after: []metav1.Condition{a1},
			latest: []metav1.Condition{a1},
			want:   []metav1.Condition{a1},
		},
		{
			name:   "a change to a type someone else changed is a conflict",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a1, b0},
			latest:       []metav1.Condition{aOther, b0},
			want:         []metav1.Condition{aOther, b0},
			wantConflict: []string{"A"},
		},
		{
			name:   "an owned type overwrites the other writer's change",
			before: []metav1.Condition{a0}, after: []metav1.Condition{a1},
			latest: []metav1.Condition{aOther},
			opts:   []conditions.ApplyOption{conditions.OwnedConditionTypes{"A"}},
			// Status did not change between aOther and a1 (both False): latest's time stays.
			want: []metav1.Condition{{Type: "A", Status: F, Reason: "Broken", Message: "mine", ObservedGeneration: 1, LastTransitionTime: sec(t2)}},
		},
		{
			name:   "ForceOverwrite overwrites every change",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a1},
			latest: []metav1.Condition{aOther, bOther},
			opts:   []conditions.ApplyOption{conditions.ForceOverwrite(true)},
			want:   []metav1.Condition{{Type: "A", Status: F, Reason: "Broken", Message: "mine", ObservedGeneration: 1, LastTransitionTime: sec(t2)}},
		},
		{
			name:   "removing a condition someone else changed is a conflict",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a0},
			latest:       []metav1.Condition{a0, bOther},
			want:         []metav1.Condition{a0, bOther},
			wantConflict: []string{"B"},
		},
		{
			name:   "changing a condition someone else removed is a conflict",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a1, b0},
			latest:       []metav1.Condition{b0},
			want:         []metav1.Condition{b0},
			wantConflict: []string{"A"},
		},
		{
			name:   "removing a condition someone else already removed",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a0},
			latest: []metav1.Condition{a0},
			want:   []metav1.Condition{a0},
		},
		{
			name:   "conflicts are all or nothing",
			before: []metav1.Condition{a0, b0}, after: []metav1.Condition{a1, cond("B", F, "Mine", t1, 1)},
			latest:       []metav1.Condition{a0, bOther},
			want:         []metav1.Condition{a0, bOther},
			wantConflict: []string{"B"},
		},
		{
			name:   "a status change takes the writer's lastTransitionTime",
			before: []metav1.Condition{a0}, after: []metav1.Condition{a1},
			latest: []metav1.Condition{cond("Ready", T, "Fine", t0, 1), a0},
			want:   []metav1.Condition{cond("Ready", T, "Fine", t0, 1), a1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := conditions.NewPatch(machine(1, tc.before...), machine(1, tc.after...))
			if err != nil {
				t.Fatal(err)
			}
			latest := machine(1, tc.latest...)
			err = p.Apply(latest, tc.opts...)
			var conflict *conditions.ConflictError
			switch {
			case tc.wantConflict != nil && !errors.As(err, &conflict):
				t.Fatalf("Apply = %v, want a *ConflictError", err)
			case tc.wantConflict != nil:
				if diff := cmp.Diff(tc.wantConflict, conflict.Types); diff != "" {
					t.Errorf("conflicting types (-want +got):\n%s", diff)
				}
			case err != nil:
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, latest.Status.Conditions); diff != "" {
				t.Errorf("conditions after Apply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewPatch(t *testing.T) {
	a0 := cond("A", T, "Fine", t0, 1)
	moved := cond("A", T, "Fine", t0.Add(time.Hour), 1)
	if p, err := conditions.NewPatch(machine(1, a0), machine(1, moved)); err != nil || !p.IsZero() {
		t.Errorf("a lastTransitionTime-only difference gave %v, %v; want an empty patch", p, err)
	}
	if p, err := conditions.NewPatch(nil, nil); err != nil || !p.IsZero() {
		t.Errorf("nil getters gave %v, %v", p, err)
	}
	if p, err := conditions.NewPatch(machine(1, a0, a0), machine(1, a0, a0)); err != nil || !p.IsZero() {
		t.Errorf("unchanged duplicate types gave %v, %v; want an empty patch", p, err)
	}
	if p, err := conditions.NewPatch(machine(1, a0, a0), machine(1, a0)); err != nil || len(p) != 1 {
		t.Errorf("a removed duplicate gave %v, %v; want one operation", p, err)
	}
	bad := cond("A", "Maybe", "Fine", t0, 1)
	var ve *conditions.ValidationError
	if _, err := conditions.NewPatch(machine(1), machine(1, bad)); !errors.As(err, &ve) {
		t.Errorf("an invalid condition after gave %v, want a *ValidationError", err)
	}
}
