package aggregate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/conditions"
)

// fixedClock is a conditions clock for comparing SetOptions by value.
type fixedClock struct{ at int64 }

func (c fixedClock) Now() time.Time                  { return time.Unix(c.at, 0) }
func (c fixedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// addZ is an option of one's own: it must be applied on lists of its own.
var addZ = SummaryOptionFunc(func(o *SummaryOptions) {
	o.ConditionTypes = append(o.ConditionTypes, "Z")
	o.IgnoreTypesIfMissing = append(o.IgnoreTypesIfMissing, "Z")
})

// applyPlainly is the rule of SummaryOptions.ApplyOptions written plainly, the oracle of the
// allocation-free applier: each option in order, each list option appended to its list, a
// SummaryOptionFunc applied to what the options before it gave, nil skipped.
func applyPlainly(opts []SummaryOption) SummaryOptions {
	var o SummaryOptions
	for _, opt := range opts {
		switch opt := opt.(type) {
		case forConditionTypes:
			o.ConditionTypes = append(o.ConditionTypes, opt...)
		case negativePolarityConditionTypes:
			o.NegativePolarityConditionTypes = append(o.NegativePolarityConditionTypes, opt...)
		case ignoreTypesIfMissing:
			o.IgnoreTypesIfMissing = append(o.IgnoreTypesIfMissing, opt...)
		case withSetOptions:
			o.SetOptions = append(o.SetOptions, opt...)
		case SummaryOptionFunc:
			if opt != nil {
				opt(&o)
			}
		}
	}
	return o
}

// TestApplySummaryOptionsIsApplyOptions: the allocation-free applier behind ApplyOptions,
// NewSummaryCondition and SetSummaryCondition gives what the rule written plainly gives, for
// every mix of this package's options, an option of one's own (a SummaryOptionFunc, nil too)
// and nil, and never writes into the slices the options were given.
func TestApplySummaryOptionsIsApplyOptions(t *testing.T) {
	backing := []string{"A", "B", "C", "spare"}
	scope := backing[:3] // room to grow in place: a shared, uncapped list would be written into
	more := []string{"D"}
	negative := []string{"B"}
	clock := conditions.WithClock{Clock: fixedClock{at: 100}}
	cases := map[string][]SummaryOption{
		"none":                   nil,
		"one list":               {ForConditionTypes(scope...)},
		"lists added together":   {ForConditionTypes(scope...), ForConditionTypes(more...), IgnoreTypesIfMissing("A"), IgnoreTypesIfMissing("D")},
		"every kind":             {ForConditionTypes(scope...), NegativePolarityConditionTypes(negative...), IgnoreTypesIfMissing("C"), WithSetOptions(clock)},
		"nil among them":         {nil, ForConditionTypes(scope...), nil},
		"a nil func":             {ForConditionTypes(scope...), SummaryOptionFunc(nil), IgnoreTypesIfMissing("A")},
		"own func first":         {addZ, ForConditionTypes(scope...), ForConditionTypes(more...)},
		"own func in the middle": {ForConditionTypes(scope...), addZ, ForConditionTypes(more...), WithSetOptions(clock), WithSetOptions(clock)},
		"own func last, twice":   {ForConditionTypes(scope...), IgnoreTypesIfMissing("A"), addZ, addZ},
	}
	cmpSetOption := cmp.Comparer(func(a, b conditions.SetOption) bool { return a == b })
	for name, opts := range cases {
		fast := *(&SummaryOptions{}).ApplyOptions(opts)
		if d := cmp.Diff(applyPlainly(opts), fast, cmpSetOption); d != "" {
			t.Errorf("%s: ApplyOptions differs from the rule written plainly (-want +got):\n%s", name, d)
		}
		// Appending to the result must not write into the options' own slices.
		_ = append(fast.ConditionTypes, "X")
		_ = append(fast.IgnoreTypesIfMissing, "X")
		if d := cmp.Diff([]string{"A", "B", "C", "spare"}, backing); d != "" {
			t.Fatalf("%s: an option's slice was written (-want +got):\n%s", name, d)
		}
	}
}
