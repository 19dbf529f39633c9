package conditions

import (
	"time"

	"k8s.io/utils/clock"
)

// SetOption configures Set, MarkTrue, MarkFalse and MarkUnknown.
type SetOption interface {
	// ApplyToSet applies this option to the given set options.
	ApplyToSet(*SetOptions)
}

// SetOptions are the options of Set. The zero value reads the real clock and takes
// observedGeneration from the object.
type SetOptions struct {
	// Clock gives the lastTransitionTime of a condition whose status changes and that carries
	// no lastTransitionTime of its own. Nil means the real clock.
	Clock clock.PassiveClock
}

// ApplyOptions applies the given options in order and returns the result.
func (o *SetOptions) ApplyOptions(opts []SetOption) *SetOptions {
	for _, opt := range opts {
		opt.ApplyToSet(o)
	}
	return o
}

func (o *SetOptions) now() time.Time {
	if o.Clock == nil {
		return clock.RealClock{}.Now()
	}
	return o.Clock.Now()
}

// WithClock makes Set take the time of a status change from c instead of the real clock.
type WithClock struct{ Clock clock.PassiveClock }

// ApplyToSet implements SetOption.
func (w WithClock) ApplyToSet(o *SetOptions) { o.Clock = w.Clock }

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

// ApplyOptions applies the given options in order and returns the result.
func (o *ApplyOptions) ApplyOptions(opts []ApplyOption) *ApplyOptions {
	for _, opt := range opts {
		opt.ApplyToApply(o)
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
