package conditions

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Patch is the difference between two versions of an object's conditions, computed by
// NewPatch and replayed onto the latest version with Apply (a three-way merge), so that several
// writers can share one conditions list without losing each other's changes.
type Patch []PatchOperation

// PatchOperation is the change of one condition type. Before is nil for an addition, After is
// nil for a removal.
type PatchOperation struct {
	// Type is the condition type the operation changes.
	Type string
	// Before is the condition as the writer read it (nil: it did not exist).
	Before *metav1.Condition
	// After is the condition the writer wants (nil: remove it).
	After *metav1.Condition
}

// PatchError says that NewPatch was given conditions it cannot diff.
type PatchError struct {
	// Side is "before" or "after".
	Side string
	// Err is what is wrong (a duplicate type or an invalid condition).
	Err error
}

// Error implements error.
func (e *PatchError) Error() string {
	return fmt.Sprintf("cannot compute a patch: %s: %v", e.Side, e.Err)
}

// Unwrap returns the underlying error (e.g. a *ValidationError).
func (e *PatchError) Unwrap() error { return e.Err }

// ConflictError says that Apply found condition types changed by someone else since the patch
// was computed. It is retryable: read the latest object, decide again, and compute a new patch.
type ConflictError struct {
	// Types are the conflicting condition types, in condition order.
	Types []string
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("conditions changed by another writer since they were read: %s", strings.Join(e.Types, ", "))
}

// NewPatch computes the changes from before to after, one operation per condition type that was
// added, removed, or changed in status, reason, message or observedGeneration
// (lastTransitionTime alone is not a change: it follows status), or whose number of entries
// changed (a writer that removed a duplicate another writer appended). A nil Getter means no
// conditions. A type listed more than once on either side is read as its first entry, as Get
// reads it. Only the conditions the patch writes are validated: NewPatch returns a *PatchError
// when one of them is invalid (conditions.Validate); entries of types the writer did not change,
// duplicated or invalid, never make it fail.
func NewPatch(before, after Getter) (Patch, error) {
	b, bn := index(before)
	a, an := index(after)
	var p Patch
	for t, ac := range a {
		if bc, ok := b[t]; !ok || !sameCondition(bc, ac) || bn[t] != an[t] {
			if err := Validate(*ac); err != nil {
				return nil, &PatchError{Side: "after", Err: err}
			}
			p = append(p, PatchOperation{Type: t, Before: b[t], After: ac})
		}
	}
	for t, bc := range b {
		if _, ok := a[t]; !ok {
			p = append(p, PatchOperation{Type: t, Before: bc})
		}
	}
	slices.SortFunc(p, func(x, y PatchOperation) int { return Compare(x.Type, y.Type) })
	return p, nil
}

// IsZero reports whether the patch changes nothing.
func (p Patch) IsZero() bool { return len(p) == 0 }

// Apply replays the patch onto latest, the most recent version of the object, all or nothing.
// For each operation, where latest holds the condition as it was before the patch, or already
// holds the patch's result, there is no conflict. Where someone else changed the condition
// meanwhile, the operation is a conflict unless its type is owned (OwnedConditionTypes) or
// ForceOverwrite is set. On any conflict Apply changes nothing and returns a *ConflictError
// naming every conflicting type.
//
// Applied conditions keep the patch's values; lastTransitionTime keeps latest's value when the
// status is unchanged there, as in Set. latest is read as Get reads it (the first entry of a
// type); a type the patch writes ends with exactly one entry, so a duplicate another writer
// appended is removed, and entries of types the patch does not change are left as they are,
// valid or not. The result is sorted (Ready first, then alphabetical). Apply on a nil latest
// returns nil.
func (p Patch) Apply(latest Setter, opts ...ApplyOption) error {
	if IsNil(latest) || len(p) == 0 {
		return nil
	}
	o := (&ApplyOptions{}).ApplyOptions(opts)
	list := append([]metav1.Condition(nil), latest.GetConditions()...)

	var conflicts []string
	for _, op := range p {
		cur := meta.FindStatusCondition(list, op.Type)
		switch {
		case equalOrBothNil(cur, op.After):
			// Already the result: the same change on both sides is not a conflict.
		case equalOrBothNil(cur, op.Before), o.ForceOverwrite, slices.Contains(o.OwnedConditionTypes, op.Type):
			// Unchanged by others, or ours to overwrite.
		default:
			conflicts = append(conflicts, op.Type)
		}
	}
	if len(conflicts) > 0 {
		return &ConflictError{Types: conflicts}
	}

	for _, op := range p {
		cur := meta.FindStatusCondition(list, op.Type)
		var next *metav1.Condition
		if op.After != nil {
			c := *op.After
			if cur != nil && cur.Status == c.Status && !cur.LastTransitionTime.IsZero() {
				c.LastTransitionTime = cur.LastTransitionTime
			}
			next = &c
		}
		list = slices.DeleteFunc(list, func(c metav1.Condition) bool { return c.Type == op.Type })
		if next != nil {
			list = append(list, *next)
		}
	}
	Sort(list)
	if !equality.Semantic.DeepEqual(latest.GetConditions(), list) {
		latest.SetConditions(list)
	}
	return nil
}

// index maps each type of g's conditions to its first condition (as Get reads it) and counts
// the entries of each type.
func index(g Getter) (map[string]*metav1.Condition, map[string]int) {
	out, n := map[string]*metav1.Condition{}, map[string]int{}
	if IsNil(g) {
		return out, n
	}
	for _, c := range g.GetConditions() {
		if n[c.Type]++; n[c.Type] == 1 {
			out[c.Type] = &c
		}
	}
	return out, n
}

// sameCondition compares what a writer decides: status, reason, message, observedGeneration.
func sameCondition(a, b *metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason &&
		a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration
}

func equalOrBothNil(a, b *metav1.Condition) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return sameCondition(a, b)
}
