package aggregate_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/conditions"
)

// newSummary is NewSummaryCondition, checked against a Summarizer built with the same target
// and options: on every input the two give the same condition, or the same error and no
// Summarizer. Every summary test calls it, so that both are held to the same cases.
func newSummary(t *testing.T, from conditions.Getter, target string, opts ...aggregate.SummaryOption) (*metav1.Condition, error) {
	t.Helper()
	got, err := aggregate.NewSummaryCondition(from, target, opts...)
	s, sErr := aggregate.NewSummarizer(target, opts...)
	switch {
	case err != nil || sErr != nil:
		if err == nil || sErr == nil || err.Error() != sErr.Error() {
			t.Fatalf("NewSummaryCondition() error = %v, NewSummarizer() error = %v: want the same", err, sErr)
		}
		if s != nil {
			t.Fatalf("NewSummarizer() = %v with an error, want nil", s)
		}
		var cfgErr *aggregate.SummaryConfigError
		if !errors.As(sErr, &cfgErr) {
			t.Fatalf("NewSummarizer() error = %v, want a *SummaryConfigError", sErr)
		}
	default:
		if s.Target() != target {
			t.Fatalf("Target() = %q, want %q", s.Target(), target)
		}
		if diff := cmp.Diff(got, s.NewCondition(from)); diff != "" {
			t.Fatalf("Summarizer.NewCondition() differs from NewSummaryCondition() (-NewSummaryCondition +NewCondition):\n%s", diff)
		}
	}
	return got, err
}

// setSummary is SetSummaryCondition on to, checked against a Summarizer's SetCondition on a copy
// of to: both report the same change and error and leave the same conditions.
func setSummary(t *testing.T, to *object, target string, opts ...aggregate.SummaryOption) (bool, error) {
	t.Helper()
	other := &object{conditions: slices.Clone(to.conditions)}
	changed, err := aggregate.SetSummaryCondition(to, target, opts...)
	s, sErr := aggregate.NewSummarizer(target, opts...)
	if sErr != nil {
		if err == nil || err.Error() != sErr.Error() {
			t.Fatalf("SetSummaryCondition() error = %v, NewSummarizer() error = %v: want the same", err, sErr)
		}
		return changed, err
	}
	otherChanged, otherErr := s.SetCondition(other)
	if otherChanged != changed || fmt.Sprint(otherErr) != fmt.Sprint(err) {
		t.Fatalf("SetSummaryCondition() = %v, %v; Summarizer.SetCondition() = %v, %v: want the same", changed, err, otherChanged, otherErr)
	}
	if diff := cmp.Diff(to.conditions, other.conditions); diff != "" {
		t.Fatalf("Summarizer.SetCondition() left other conditions than SetSummaryCondition() (-SetSummaryCondition +SetCondition):\n%s", diff)
	}
	return changed, err
}

// A Summarizer keeps copies of the options' lists: changing a slice given to an option after
// NewSummarizer changes nothing. Each list is changed alone, so that each copy is checked.
func TestSummarizerCopiesOptions(t *testing.T) {
	obj := &object{conditions: conds(cond("A", T, "Fine", 0), cond("B", F, "NotDeleting", 0))}
	fine := metav1.Condition{Type: "Ready", Status: T, Reason: aggregate.NoIssuesReportedReason, LastTransitionTime: at(1)}
	for _, tc := range []struct {
		name string
		edit func(scope, negative, ignored []string, setOptions []conditions.SetOption)
	}{
		{"scope", func(scope, _, _ []string, _ []conditions.SetOption) { scope[0] = "C" }},                   // C missing, not ignored
		{"negative polarity", func(_, negative, _ []string, _ []conditions.SetOption) { negative[0] = "A" }}, // B positive: False
		{"ignored if missing", func(_, _, ignored []string, _ []conditions.SetOption) { ignored[0] = "A" }},  // C missing, not ignored
		{"set options", func(_, _, _ []string, setOptions []conditions.SetOption) {
			setOptions[0] = conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(2).Time)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scope := []string{"A", "B", "C"}
			negative := []string{"B"}
			ignored := []string{"C"}
			setOptions := []conditions.SetOption{conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(1).Time)}}
			s, err := aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes(scope...),
				aggregate.NegativePolarityConditionTypes(negative...), aggregate.IgnoreTypesIfMissing(ignored...),
				aggregate.WithSetOptions(setOptions...))
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(scope, negative, ignored, setOptions)
			o := &object{conditions: slices.Clone(obj.conditions)}
			if _, err := s.SetCondition(o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&fine, conditions.Get(o, "Ready")); diff != "" {
				t.Errorf("the edit of the given slice reached the Summarizer (-want +got):\n%s", diff)
			}
		})
	}
}

// recordSetOption records, in order, the options conditions.Set applies.
type recordSetOption struct {
	name    string
	applied *[]string
}

func (r recordSetOption) ApplyToSet(*conditions.SetOptions) { *r.applied = append(*r.applied, r.name) }

// SetCondition passes the Summarizer's set options, then the call's, every time, so that a
// single value given both ways (a clock) is the call's.
func TestSummarizerSetConditionOptionOrder(t *testing.T) {
	var applied []string
	s, err := aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes("A"),
		aggregate.WithSetOptions(recordSetOption{"stored 1", &applied}, recordSetOption{"stored 2", &applied}))
	if err != nil {
		t.Fatal(err)
	}
	obj := &object{conditions: conds(cond("A", F, "Broken", 0))}
	for i, call := range [][]conditions.SetOption{
		nil,
		{recordSetOption{"call 1", &applied}},
		{recordSetOption{"call 1", &applied}, recordSetOption{"call 2", &applied}, recordSetOption{"call 3", &applied}}, // five in all: past the array on the stack
	} {
		applied = nil
		meta.FindStatusCondition(obj.conditions, "A").Status = []metav1.ConditionStatus{T, F}[i%2] // a change: Set reads its options
		if _, err := s.SetCondition(obj, call...); err != nil {
			t.Fatal(err)
		}
		want := []string{"stored 1", "stored 2"}
		for _, o := range call {
			want = append(want, o.(recordSetOption).name)
		}
		if diff := cmp.Diff(want, applied); diff != "" {
			t.Errorf("call %d: options applied (-want +got):\n%s", i, diff)
		}
	}

	// A single value given both ways: the call's comes last and wins (the Summarizer's alone is
	// checked by TestSetSummaryCondition, through setSummary).
	clock := func(minutes int) conditions.SetOption {
		return conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(minutes).Time)}
	}
	s, err = aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes("A"), aggregate.WithSetOptions(clock(1)))
	if err != nil {
		t.Fatal(err)
	}
	obj = &object{conditions: conds(cond("A", F, "Broken", 0))}
	if changed, err := s.SetCondition(obj, clock(3)); !changed || err != nil {
		t.Fatalf("SetCondition() = %v, %v; want true, nil", changed, err)
	}
	if got := conditions.Get(obj, "Ready").LastTransitionTime; !got.Time.Equal(at(3).Time) {
		t.Errorf("lastTransitionTime %v, want the call's clock, %v", got, at(3))
	}
}

// A Summarizer not built by NewSummarizer summarizes nothing: NewCondition returns nil,
// SetCondition writes nothing and returns a *SummaryConfigError; neither panics.
func TestSummarizerNotBuilt(t *testing.T) {
	for name, s := range map[string]*aggregate.Summarizer{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			obj := &object{conditions: conds(cond("A", T, "Fine", 0))}
			if got := s.NewCondition(obj); got != nil {
				t.Errorf("NewCondition() = %v, want nil", got)
			}
			changed, err := s.SetCondition(obj)
			var cfgErr *aggregate.SummaryConfigError
			if changed || !errors.As(err, &cfgErr) {
				t.Errorf("SetCondition() = %v, %v; want false, a *SummaryConfigError", changed, err)
			}
			if len(obj.conditions) != 1 || s.Target() != "" {
				t.Errorf("conditions %v, Target() %q: want A alone, \"\"", obj.conditions, s.Target())
			}
		})
	}
}

// negativeGeneration is an object whose metadata.generation is negative: conditions.Set copies it
// to the condition's observedGeneration, which Validate rejects.
type negativeGeneration struct{ object }

func (negativeGeneration) GetGeneration() int64 { return -1 }

// A condition conditions.Set rejects returns its error and writes nothing.
func TestSummarizerSetConditionRejected(t *testing.T) {
	s, err := aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes("A"))
	if err != nil {
		t.Fatal(err)
	}
	obj := &negativeGeneration{object{conditions: conds(cond("A", T, "Fine", 0))}}
	before := append([]metav1.Condition(nil), obj.conditions...)
	changed, err := s.SetCondition(obj)
	var invalid *conditions.ValidationError
	if !errors.As(err, &invalid) || changed {
		t.Fatalf("SetCondition() = %v, %v; want false, a *conditions.ValidationError", changed, err)
	}
	if diff := cmp.Diff(before, obj.conditions); diff != "" {
		t.Errorf("SetCondition() wrote on error (-before +after):\n%s", diff)
	}
}

// A Summarizer is read-only once built: goroutines share one (run with go test -race to check
// that they only read it).
func TestSummarizerConcurrentUse(t *testing.T) {
	s, err := aggregate.NewSummarizer("Ready", aggregate.ForConditionTypes("A", "B"), aggregate.NegativePolarityConditionTypes("B"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			obj := &object{conditions: conds(cond("A", T, "Fine", 0), cond("B", F, "NotDeleting", 0))}
			if i%2 == 1 {
				obj.conditions[0].Status = F
			}
			for range 100 {
				if _, err := s.SetCondition(obj); err != nil {
					t.Error(err)
					return
				}
			}
			want := map[bool]metav1.ConditionStatus{false: T, true: F}[i%2 == 1]
			if got := conditions.Get(obj, "Ready"); got == nil || got.Status != want {
				t.Errorf("goroutine %d: Ready = %v, want %s", i, got, want)
			}
		})
	}
	wg.Wait()
}
