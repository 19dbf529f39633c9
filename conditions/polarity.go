package conditions

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The polarity registry says, for every condition type, whether True is good (positive, the
// default) or bad (negative). It starts with the Machine catalog's negative types
// (v1alpha1.NegativePolarityConditions) and is shared by summaries and printers; callers add
// their own types with RegisterNegativePolarity. It is safe for concurrent use: readers load
// the current set without locking (summaries ask once per condition); a registration, rare,
// replaces the set with a copy under a mutex.
var polarity struct {
	sync.Mutex // serializes registrations
	negative   atomic.Pointer[map[string]bool]
}

func init() {
	RegisterNegativePolarity(v1alpha1.NegativePolarityConditions...)
}

// RegisterNegativePolarity records that True is the bad state of each given condition type
// (e.g. "Deleting", "example.com/Degraded"). Registering a type twice is harmless.
func RegisterNegativePolarity(types ...string) {
	polarity.Lock()
	defer polarity.Unlock()
	negative := map[string]bool{}
	if old := polarity.negative.Load(); old != nil {
		negative = maps.Clone(*old)
	}
	for _, t := range types {
		negative[t] = true
	}
	polarity.negative.Store(&negative)
}

// IsNegativePolarity reports whether conditionType has been registered as negative; every other
// type is positive (API conventions: True is normally the good state).
func IsNegativePolarity(conditionType string) bool {
	negative := polarity.negative.Load()
	return negative != nil && (*negative)[conditionType]
}

// NegativePolarityTypes returns the registered negative types, sorted in condition order.
func NegativePolarityTypes() []string {
	var out []string
	if negative := polarity.negative.Load(); negative != nil {
		out = slices.Collect(maps.Keys(*negative))
	}
	slices.SortFunc(out, Compare)
	return out
}
