package aggregate

import (
	"slices"

	"github.com/machinestatus/machinestatus/conditions"
)

// SummaryOption configures NewSummaryCondition and SetSummaryCondition: this package's options
// (ForConditionTypes, NegativePolarityConditionTypes, IgnoreTypesIfMissing, WithSetOptions), or
// a SummaryOptionFunc of one's own. The interface is sealed (its method is unexported) so that
// the options of a call stay on the caller's stack: a summary allocates only its message and
// its result (docs/benchmarks.md).
type SummaryOption interface {
	// summaryOption marks the types applySummaryOptions applies.
	summaryOption()
}

// SummaryOptionFunc is an option of one's own, a SummaryOption: it changes the summary options
// it is given, e.g. to add a bundle of types in one option. It is applied in order with the
// other options, to options that already hold what the options before it gave; their lists are
// fresh copies, so appending to them never writes into a slice given to another option. A nil
// one does nothing.
type SummaryOptionFunc func(*SummaryOptions)

func (SummaryOptionFunc) summaryOption() {}

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

// ApplyOptions applies the given options in order and returns the result: each list option adds
// to its list, a SummaryOptionFunc changes what the options before it gave, nil is skipped.
func (o *SummaryOptions) ApplyOptions(opts []SummaryOption) *SummaryOptions {
	applySummaryOptions(o, opts)
	return o
}

// applySummaryOptions is ApplyOptions, written so that o and the options can live on the
// caller's stack: it shares the options' lists until something is appended to them (capped, so
// an append copies) and gives a SummaryOptionFunc a heap copy of o with lists of its own. The
// switch names every type that implements the sealed SummaryOption.
func applySummaryOptions(o *SummaryOptions, opts []SummaryOption) {
	for _, opt := range opts {
		switch opt := opt.(type) {
		case nil:
		case forConditionTypes:
			o.ConditionTypes = appendShared(o.ConditionTypes, opt)
		case negativePolarityConditionTypes:
			o.NegativePolarityConditionTypes = appendShared(o.NegativePolarityConditionTypes, opt)
		case ignoreTypesIfMissing:
			o.IgnoreTypesIfMissing = appendShared(o.IgnoreTypesIfMissing, opt)
		case withSetOptions:
			o.SetOptions = appendShared(o.SetOptions, opt)
		case SummaryOptionFunc:
			if opt == nil {
				continue
			}
			own := &SummaryOptions{
				ConditionTypes:                 slices.Clone(o.ConditionTypes),
				NegativePolarityConditionTypes: slices.Clone(o.NegativePolarityConditionTypes),
				IgnoreTypesIfMissing:           slices.Clone(o.IgnoreTypesIfMissing),
				SetOptions:                     slices.Clone(o.SetOptions),
			}
			opt(own)
			*o = *own
		}
	}
}

// appendShared is append(list, more...), except that an empty list becomes more itself, capped
// so that a later append copies it instead of writing into more's array.
func appendShared[T any](list, more []T) []T {
	if len(list) == 0 {
		return more[:len(more):len(more)]
	}
	return append(list, more...)
}

// ForConditionTypes puts the given condition types in the summary's scope. It is required.
// The option keeps the given slice (it does not copy it): do not modify it while the option
// is in use.
func ForConditionTypes(types ...string) SummaryOption {
	return forConditionTypes(types)
}

type forConditionTypes []string

func (forConditionTypes) summaryOption() {}

// NegativePolarityConditionTypes marks the given types as negative polarity: True is an
// issue, False is fine (e.g. Deleting; the Machine catalog's negative types are
// v1alpha1.NegativePolarityConditions). Every other type is positive: there is no registry.
// It configures summaries (the types in scope it names) and aggregates (when it names the type
// aggregated) alike. The option keeps the given slice: do not modify it while the option is in
// use.
func NegativePolarityConditionTypes(types ...string) NegativePolarityOption {
	return negativePolarityConditionTypes(types)
}

// NegativePolarityOption is both a SummaryOption and an AggregateOption.
type NegativePolarityOption interface {
	SummaryOption
	AggregateOption
}

type negativePolarityConditionTypes []string

func (negativePolarityConditionTypes) summaryOption() {}

func (t negativePolarityConditionTypes) applyToAggregate(o *AggregateOptions) {
	o.NegativePolarityConditionTypes = append(o.NegativePolarityConditionTypes, t...)
}

// IgnoreTypesIfMissing makes the summary skip the given types when the object does not have
// them, instead of counting them as Unknown/NotYetReported. The option keeps the given slice:
// do not modify it while the option is in use.
func IgnoreTypesIfMissing(types ...string) SummaryOption {
	return ignoreTypesIfMissing(types)
}

type ignoreTypesIfMissing []string

func (ignoreTypesIfMissing) summaryOption() {}

// WithSetOptions passes the given options to conditions.Set when SetSummaryCondition writes
// the summary, e.g. WithSetOptions(conditions.WithClock{Clock: c}) for a fixed clock.
// NewSummaryCondition ignores it.
func WithSetOptions(opts ...conditions.SetOption) SummaryOption {
	return withSetOptions(opts)
}

type withSetOptions []conditions.SetOption

func (withSetOptions) summaryOption() {}

// AggregateOption configures NewAggregateCondition: this package's options
// (TargetConditionType, ObjectKind, WithObjectName, NegativePolarityConditionTypes), or an
// AggregateOptionFunc of one's own. Like SummaryOption, the interface is sealed.
type AggregateOption interface {
	applyToAggregate(*AggregateOptions)
}

// AggregateOptionFunc is an option of one's own, an AggregateOption: it changes the aggregate
// options it is given, in order with the other options. A nil one does nothing.
type AggregateOptionFunc func(*AggregateOptions)

func (f AggregateOptionFunc) applyToAggregate(o *AggregateOptions) {
	if f != nil {
		f(o)
	}
}

// AggregateOptions are the options of an aggregate. The zero value gives the aggregate the
// type aggregated, reads True as good, calls the objects "objects" and names each by its
// GetName method.
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

// ApplyOptions applies the given options in order and returns the result.
func (o *AggregateOptions) ApplyOptions(opts []AggregateOption) *AggregateOptions {
	for _, opt := range opts {
		if opt != nil {
			opt.applyToAggregate(o)
		}
	}
	return o
}

// TargetConditionType gives the aggregate its own type, e.g. MachinesReady for the Ready
// conditions of a pool's Machines. By default it has the type aggregated.
func TargetConditionType(conditionType string) AggregateOption {
	return targetConditionType(conditionType)
}

type targetConditionType string

func (t targetConditionType) applyToAggregate(o *AggregateOptions) {
	o.TargetConditionType = string(t)
}

// ObjectKind names the objects in the message, e.g. ObjectKind("Machine", "Machines") for
// "Ready is not True on 3 of 10 Machines".
func ObjectKind(singular, plural string) AggregateOption {
	return objectKind{singular, plural}
}

type objectKind struct{ singular, plural string }

func (k objectKind) applyToAggregate(o *AggregateOptions) {
	o.Kind, o.KindPlural = k.singular, k.plural
}

// WithObjectName names each object in the message by name(obj) instead of obj.GetName(), e.g.
// to add the namespace. T is the element type of the list aggregated, or an interface it
// implements; an object of another type makes NewAggregateCondition return an
// *AggregateConfigError. A nil name is ignored.
func WithObjectName[T any](name func(T) string) AggregateOption {
	if name == nil {
		return objectName(nil)
	}
	return objectName(func(obj any) (string, bool) {
		t, ok := obj.(T)
		if !ok {
			return "", false
		}
		return name(t), true
	})
}

type objectName func(obj any) (string, bool)

func (f objectName) applyToAggregate(o *AggregateOptions) {
	if f != nil {
		o.ObjectName = f
	}
}
