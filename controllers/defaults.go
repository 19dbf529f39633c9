package controllers

import (
	"cmp"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The defaults of the reconcilers' optional fields, resolved here once for both reconcilers.

// clockOrReal returns c, or the real clock when c is nil.
func clockOrReal(c clock.PassiveClock) clock.PassiveClock {
	if c == nil {
		return clock.RealClock{}
	}
	return c
}

// fieldOwner returns the field manager named name, or DefaultFieldOwner when name is empty.
func fieldOwner(name string) client.FieldOwner {
	return client.FieldOwner(cmp.Or(name, DefaultFieldOwner))
}
