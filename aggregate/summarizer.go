package aggregate

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// Summarizer is a summary's configuration checked once: the target type and the options of
// NewSummaryCondition, for a controller that summarizes the same scope on every reconcile. It
// computes what NewSummaryCondition and SetSummaryCondition compute, without checking the
// target and the scope again on each call (a third of a summary's work at ten conditions, half
// at fifty: docs/benchmarks.md). Build it once with NewSummarizer, as with regexp.Compile, and
// keep it: it holds copies of the options' lists, never changes them, and is safe for
// concurrent use (a conditions.SetOption given to WithSetOptions is kept as given, so one that
// refers to shared state shares it). The zero value and nil summarize nothing (see
// NewCondition and SetCondition).
type Summarizer struct {
	target string
	o      SummaryOptions
}

// NewSummarizer checks the target type and the options as NewSummaryCondition does and returns
// a Summarizer that holds copies of the options' lists: changing a slice given to an option
// afterwards does not change the Summarizer. A SummaryOptionFunc runs here, once, not on each
// summary. A misconfiguration (no type in scope, target in scope, an invalid condition type)
// returns a nil Summarizer and the *SummaryConfigError that NewSummaryCondition would return.
func NewSummarizer(target string, opts ...SummaryOption) (*Summarizer, error) {
	var o SummaryOptions
	applySummaryOptions(&o, opts)
	if _, err := summaryScope(target, &o); err != nil {
		return nil, err
	}
	return &Summarizer{target: target, o: SummaryOptions{
		ConditionTypes:                 slices.Clone(o.ConditionTypes),
		NegativePolarityConditionTypes: slices.Clone(o.NegativePolarityConditionTypes),
		IgnoreTypesIfMissing:           slices.Clone(o.IgnoreTypesIfMissing),
		SetOptions:                     slices.Clone(o.SetOptions),
	}}, nil
}

// built reports whether s came from NewSummarizer (its scope is never empty).
func (s *Summarizer) built() bool { return s != nil && len(s.o.ConditionTypes) > 0 }

// Target returns the type of the summary condition ("" for a Summarizer not built by
// NewSummarizer).
func (s *Summarizer) Target() string {
	if s == nil {
		return ""
	}
	return s.target
}

// NewCondition returns the summary of from's conditions: the condition NewSummaryCondition
// returns for the Summarizer's target and options (the same rule, see there), with Type,
// Status, Reason and Message set. It does not modify from. A Summarizer not built by
// NewSummarizer (nil, the zero value) returns nil.
func (s *Summarizer) NewCondition(from conditions.Getter) *metav1.Condition {
	if !s.built() {
		return nil
	}
	c := summarizeScope(from, s.target, s.o.ConditionTypes, &s.o)
	return &c
}

// maxSummarizerSetOptions is how many set options (the Summarizer's and a call's together)
// SetCondition passes to conditions.Set without allocating.
const maxSummarizerSetOptions = 4

// SetCondition computes the summary like NewCondition and writes it to to with conditions.Set,
// passing the Summarizer's WithSetOptions and then opts (e.g. the reconcile's clock; for a
// single value, the last one given wins). It reports whether to changed; a condition rejected
// by conditions.Set returns its error and writes nothing. A Summarizer not built by
// NewSummarizer (nil, the zero value) writes nothing and returns a *SummaryConfigError.
func (s *Summarizer) SetCondition(to conditions.Setter, opts ...conditions.SetOption) (bool, error) {
	if !s.built() {
		return false, &SummaryConfigError{Target: s.Target(), Problem: "the Summarizer was not built by NewSummarizer"}
	}
	c := summarizeScope(to, s.target, s.o.ConditionTypes, &s.o)
	var all [maxSummarizerSetOptions]conditions.SetOption
	return conditions.Set(to, c, append(append(all[:0], s.o.SetOptions...), opts...)...)
}
