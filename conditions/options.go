package conditions

import (
	"time"

	"k8s.io/utils/clock"
)

// Options follow controller-runtime's and Cluster API's convention: each option is a small named
// type with an exported ApplyTo… method, and a caller's own type with that method is an option
// too.

// SetOption configures Set, MarkTrue, MarkFalse and MarkUnknown.
type SetOption interface {
	// ApplyToSet applies this option to the given set options.
	ApplyToSet(*SetOptions)
}

// SetOptions are the options of Set. The zero value reads the real clock.
type SetOptions struct {
	// Clock gives the lastTransitionTime of a condition whose status changes and that carries
	// none of its own. Nil means the real clock.
	Clock clock.PassiveClock
}

// ApplyOptions applies the given options in order, skipping nil ones, and returns the result.
func (o *SetOptions) ApplyOptions(opts []SetOption) *SetOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.ApplyToSet(o)
		}
	}
	return o
}

func (o *SetOptions) now() time.Time {
	if o.Clock == nil {
		return time.Now()
	}
	return o.Clock.Now()
}

// WithClock makes Set (and SetSummaryCondition) take the time of a status change from Clock
// instead of the real clock.
type WithClock struct{ Clock clock.PassiveClock }

// ApplyToSet implements SetOption.
func (w WithClock) ApplyToSet(o *SetOptions) { o.Clock = w.Clock }

// ApplyToSummary implements SummaryOption.
func (w WithClock) ApplyToSummary(o *SummaryOptions) { o.Clock = w.Clock }

// SummaryOption configures NewSummaryCondition and SetSummaryCondition.
type SummaryOption interface {
	// ApplyToSummary applies this option to the given summary options.
	ApplyToSummary(*SummaryOptions)
}

// SummaryOptions are the options of a summary. Each list option adds to what earlier options of
// the same kind gave; order and repeats do not matter.
type SummaryOptions struct {
	// ConditionTypes are the condition types in scope. At least one is required, and the
	// summary's own type must not be among them.
	ConditionTypes []string
	// NegativePolarityConditionTypes are the types for which True is the issue and False is
	// fine.
	NegativePolarityConditionTypes []string
	// IgnoreTypesIfMissing are the types that are skipped when the object does not have them
	// (instead of counting as Unknown/NotYetReported).
	IgnoreTypesIfMissing []string
	// Clock dates a change of the summary's status when SetSummaryCondition writes it. Nil
	// means the real clock.
	Clock clock.PassiveClock
}

// ApplyOptions applies the given options in order, skipping nil ones, and returns the result.
func (o *SummaryOptions) ApplyOptions(opts []SummaryOption) *SummaryOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.ApplyToSummary(o)
		}
	}
	return o
}

// ForConditionTypes puts the given condition types in the summary's scope. It is required.
type ForConditionTypes []string

// ApplyToSummary implements SummaryOption.
func (t ForConditionTypes) ApplyToSummary(o *SummaryOptions) {
	o.ConditionTypes = append(o.ConditionTypes, t...)
}

// NegativePolarityConditionTypes marks the given types as negative polarity: True is an issue,
// False is fine (e.g. Deleting). Every other type is positive: there is no registry. It
// configures summaries and aggregates alike.
type NegativePolarityConditionTypes []string

// ApplyToSummary implements SummaryOption.
func (t NegativePolarityConditionTypes) ApplyToSummary(o *SummaryOptions) {
	o.NegativePolarityConditionTypes = append(o.NegativePolarityConditionTypes, t...)
}

// ApplyToAggregate implements AggregateOption.
func (t NegativePolarityConditionTypes) ApplyToAggregate(o *AggregateOptions) {
	o.NegativePolarityConditionTypes = append(o.NegativePolarityConditionTypes, t...)
}

// IgnoreTypesIfMissing makes the summary skip the given types when the object does not have
// them, instead of counting them as Unknown/NotYetReported.
type IgnoreTypesIfMissing []string

// ApplyToSummary implements SummaryOption.
func (t IgnoreTypesIfMissing) ApplyToSummary(o *SummaryOptions) {
	o.IgnoreTypesIfMissing = append(o.IgnoreTypesIfMissing, t...)
}

// AggregateOption configures NewAggregateCondition.
type AggregateOption interface {
	// ApplyToAggregate applies this option to the given aggregate options.
	ApplyToAggregate(*AggregateOptions)
}

// AggregateOptions are the options of an aggregate. The zero value gives the aggregate the type
// aggregated, reads True as good, calls the objects "objects" and names each by its GetName
// method.
type AggregateOptions struct {
	// TargetConditionType is the type of the aggregate; empty means the type aggregated.
	TargetConditionType string
	// NegativePolarityConditionTypes are the types for which True is the bad state; the
	// aggregate is negative when it names the type aggregated.
	NegativePolarityConditionTypes []string
	// Kind and KindPlural name the objects in the message, e.g. "Machine" and "Machines";
	// empty means "object" and "objects".
	Kind, KindPlural string
	// ObjectName names an object in the message; ok is false when it cannot name obj. Nil
	// means obj's GetName method.
	ObjectName func(obj any) (name string, ok bool)
}

// ApplyOptions applies the given options in order, skipping nil ones, and returns the result.
func (o *AggregateOptions) ApplyOptions(opts []AggregateOption) *AggregateOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.ApplyToAggregate(o)
		}
	}
	return o
}

// TargetConditionType gives the aggregate its own type, e.g. MachinesReady for the Ready
// conditions of a pool's Machines.
type TargetConditionType string

// ApplyToAggregate implements AggregateOption.
func (t TargetConditionType) ApplyToAggregate(o *AggregateOptions) { o.TargetConditionType = string(t) }

// ObjectKind names the objects in the message, e.g. ObjectKind{"Machine", "Machines"} for
// "Ready is not True on 3 of 10 Machines".
type ObjectKind struct{ Singular, Plural string }

// ApplyToAggregate implements AggregateOption.
func (k ObjectKind) ApplyToAggregate(o *AggregateOptions) {
	o.Kind, o.KindPlural = k.Singular, k.Plural
}

// ObjectName names each object of an aggregate's message; ok is false for an object it cannot
// name (NewAggregateCondition then returns an *AggregateConfigError). WithObjectName builds one.
type ObjectName func(obj any) (name string, ok bool)

// ApplyToAggregate implements AggregateOption; a nil ObjectName changes nothing.
func (f ObjectName) ApplyToAggregate(o *AggregateOptions) {
	if f != nil {
		o.ObjectName = f
	}
}

// WithObjectName names each object by name(obj) instead of obj.GetName(), e.g. to add the
// namespace. T is the element type of the list aggregated, or an interface it implements. A nil
// name gives a nil ObjectName, which changes nothing.
func WithObjectName[T any](name func(T) string) ObjectName {
	if name == nil {
		return nil
	}
	return func(obj any) (string, bool) {
		t, ok := obj.(T)
		if !ok {
			return "", false
		}
		return name(t), true
	}
}

// ApplyOption configures Patch.Apply.
type ApplyOption interface {
	// ApplyToApply applies this option to the given apply options.
	ApplyToApply(*ApplyOptions)
}

// ApplyOptions are the options of Patch.Apply. The zero value owns nothing and never overwrites.
type ApplyOptions struct {
	// OwnedConditionTypes are the types this writer owns: its changes to them win over
	// concurrent changes by others instead of being conflicts.
	OwnedConditionTypes []string
	// ForceOverwrite makes every change win over concurrent changes by others.
	ForceOverwrite bool
}

// ApplyOptions applies the given options in order, skipping nil ones, and returns the result.
func (o *ApplyOptions) ApplyOptions(opts []ApplyOption) *ApplyOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.ApplyToApply(o)
		}
	}
	return o
}

// OwnedConditionTypes marks condition types as owned by the writer applying the patch.
type OwnedConditionTypes []string

// ApplyToApply implements ApplyOption.
func (t OwnedConditionTypes) ApplyToApply(o *ApplyOptions) {
	o.OwnedConditionTypes = append(o.OwnedConditionTypes, t...)
}

// ForceOverwrite makes Patch.Apply overwrite concurrent changes instead of reporting conflicts.
type ForceOverwrite bool

// ApplyToApply implements ApplyOption.
func (f ForceOverwrite) ApplyToApply(o *ApplyOptions) { o.ForceOverwrite = bool(f) }
