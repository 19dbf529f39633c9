package aggregate

import (
	"slices"

	"github.com/machinestatus/machinestatus/conditions"
)

// SummaryOption configures NewSummaryCondition and SetSummaryCondition.
type SummaryOption interface {
	// ApplyToSummary applies this option to the given summary options.
	ApplyToSummary(*SummaryOptions)
}

// SummaryOptions are the options of a summary. Each list option adds to what earlier options
// of the same kind gave; order and duplicates do not matter.
type SummaryOptions struct {
	// ConditionTypes are the condition types in scope. At least one is required, and the
	// summary's own type must not be among them.
	ConditionTypes []string

	// NegativePolarityConditionTypes are the types, among those in scope, for which True is
	// the issue and False is fine. Types not in scope are ignored.
	NegativePolarityConditionTypes []string

	// IgnoreTypesIfMissing are the types, among those in scope, that are skipped when the
	// object does not have them (instead of counting as Unknown/NotYetReported). Types not in
	// scope are ignored.
	IgnoreTypesIfMissing []string

	// SetOptions are passed to conditions.Set by SetSummaryCondition (e.g.
	// conditions.WithClock); NewSummaryCondition does not use them.
	SetOptions []conditions.SetOption
}

// ApplyOptions applies the given options in order and returns the result.
func (o *SummaryOptions) ApplyOptions(opts []SummaryOption) *SummaryOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.ApplyToSummary(o)
		}
	}
	return o
}

// ForConditionTypes puts the given condition types in the summary's scope. It is required.
func ForConditionTypes(types ...string) SummaryOption {
	return forConditionTypes(slices.Clone(types))
}

type forConditionTypes []string

func (t forConditionTypes) ApplyToSummary(o *SummaryOptions) {
	o.ConditionTypes = append(o.ConditionTypes, t...)
}

// NegativePolarityConditionTypes marks the given types as negative polarity: True is an
// issue, False is fine (e.g. Deleting).
func NegativePolarityConditionTypes(types ...string) SummaryOption {
	return negativePolarityConditionTypes(slices.Clone(types))
}

type negativePolarityConditionTypes []string

func (t negativePolarityConditionTypes) ApplyToSummary(o *SummaryOptions) {
	o.NegativePolarityConditionTypes = append(o.NegativePolarityConditionTypes, t...)
}

// IgnoreTypesIfMissing makes the summary skip the given types when the object does not have
// them, instead of counting them as Unknown/NotYetReported.
func IgnoreTypesIfMissing(types ...string) SummaryOption {
	return ignoreTypesIfMissing(slices.Clone(types))
}

type ignoreTypesIfMissing []string

func (t ignoreTypesIfMissing) ApplyToSummary(o *SummaryOptions) {
	o.IgnoreTypesIfMissing = append(o.IgnoreTypesIfMissing, t...)
}

// WithSetOptions passes the given options to conditions.Set when SetSummaryCondition writes
// the summary, e.g. WithSetOptions(conditions.WithClock{Clock: c}) for a fixed clock.
// NewSummaryCondition ignores it.
func WithSetOptions(opts ...conditions.SetOption) SummaryOption {
	return withSetOptions(slices.Clone(opts))
}

type withSetOptions []conditions.SetOption

func (s withSetOptions) ApplyToSummary(o *SummaryOptions) {
	o.SetOptions = append(o.SetOptions, s...)
}
