//go:build faults

package faults

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

// TestFlappingNodeBoundedEvents flips a Machine's Node between Ready=False and Ready=True 8 times.
// Each flip changes the phase (Running ⇄ Unknown) and writes the status, so the manager emits
// the same few event reasons over and over. They must merge into one Event object per reason
// (an event series), so that the number of Event objects stays bounded however often a Node
// flaps, and the repeated ones must carry a series count.
func TestFlappingNodeBoundedEvents(t *testing.T) {
	const flips = 8
	fx := newFixture(t, "flapping", 1)
	name := fx.names[0]
	fx.startManager("")
	fx.waitStates(2*time.Minute, fx.all(healthy))
	for range flips {
		for _, s := range []inputState{notReady, healthy} {
			if err := setNotReady(t.Context(), name, s == notReady); err != nil {
				t.Fatal(err)
			}
			fx.waitStates(time.Minute, fx.all(s))
		}
	}

	repeated := []string{"MachineUnknown", "MachineRunning"}
	var objects map[string]int
	harness.Wait(fx.t, time.Minute, "the repeated events to form series", func(ctx context.Context) (bool, string) {
		list := &eventsv1.EventList{}
		if err := env.Client.List(ctx, list, client.InNamespace(fx.name)); err != nil {
			return false, err.Error()
		}
		objects = map[string]int{}
		series := map[string]int32{}
		for _, e := range list.Items {
			if e.Regarding.Kind != "Machine" || e.Regarding.Name != name {
				continue
			}
			objects[e.Reason]++
			if e.Series != nil {
				series[e.Reason] = max(series[e.Reason], e.Series.Count)
			}
		}
		for _, r := range repeated {
			if series[r] < 2 {
				return false, fmt.Sprintf("%s has no series yet (Event objects by reason: %v)", r, objects)
			}
		}
		return true, ""
	})
	var many []string
	for reason, n := range objects {
		if n > 1 {
			many = append(many, fmt.Sprintf("%s ×%d", reason, n))
		}
	}
	sort.Strings(many)
	if len(many) > 0 {
		t.Errorf("after %d flips, reasons with several Event objects: %s; want one Event (series) per reason", flips, strings.Join(many, ", "))
	}
}
