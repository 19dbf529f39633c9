package aggregate

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// Summarizer is a summary's configuration checked once: the target type and the options of
// NewSummaryCondition, for a controller that summarizes the same scope on every reconcile. It
// computes what NewSummaryCondition and SetSummaryCondition compute, without checking the
// scope and the target again on each call (about a quarter of a summary's work at ten
// conditions: docs/benchmarks.md). Build it once, as with regexp.Compile, and keep it; it is
// immutable and safe for concurrent use.
type Summarizer struct {
	target string
	o      SummaryOptions
}

// NewSummarizer checks the target type and the options as NewSummaryCondition does and returns
// a Summarizer that holds copies of the options' lists (changing a slice given to an option
// afterwards does not change it). A misconfiguration (no type in scope, target in scope, an
// invalid condition type) returns a nil Summarizer and the *SummaryConfigError that
// NewSummaryCondition would return.
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

// Target returns the type of the summary condition.
func (s *Summarizer) Target() string { return s.target }

// NewCondition returns the summary of from's conditions: the condition NewSummaryCondition
// returns for the Summarizer's target and options (the same rule, see there), with Type,
// Status, Reason and Message set. It does not modify from.
func (s *Summarizer) NewCondition(from conditions.Getter) *metav1.Condition {
	c := summarizeScope(from, s.target, s.o.ConditionTypes, &s.o)
	return &c
}

// SetCondition computes the summary like NewCondition and writes it to to with conditions.Set,
// passing the Summarizer's WithSetOptions and then opts (e.g. the reconcile's clock). It
// reports whether to changed; a condition rejected by conditions.Set returns its error and
// writes nothing.
func (s *Summarizer) SetCondition(to conditions.Setter, opts ...conditions.SetOption) (bool, error) {
	c := summarizeScope(to, s.target, s.o.ConditionTypes, &s.o)
	switch {
	case len(opts) == 0:
		opts = s.o.SetOptions
	case len(s.o.SetOptions) > 0:
		opts = slices.Concat(s.o.SetOptions, opts)
	}
	return conditions.Set(to, c, opts...)
}
