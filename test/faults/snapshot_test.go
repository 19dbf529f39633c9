//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// snapshot is every Machine's stored status (as JSON, exactly as the API server returns it:
// lastTransitionTimes included) and resourceVersion, by name.
type snapshot map[string]struct {
	status          string
	resourceVersion string
}

// snapshot reads the fixture's Machines.
func (fx *fixture) snapshot(ctx context.Context) snapshot {
	fx.t.Helper()
	ms, err := fx.list(ctx)
	if err != nil {
		fx.t.Fatal(err)
	}
	s := snapshot{}
	for name, m := range ms {
		b, err := json.Marshal(m.Status)
		if err != nil {
			fx.t.Fatal(err)
		}
		s[name] = struct{ status, resourceVersion string }{string(b), m.ResourceVersion}
	}
	return s
}

// diff lists, for every Machine of s, what differs in later: the status, or only the
// resourceVersion (a write that changed nothing visible).
func (s snapshot) diff(later snapshot) []string {
	var out []string
	for _, name := range sortedKeys(s) {
		a, b := s[name], later[name]
		switch {
		case a.status != b.status:
			out = append(out, fmt.Sprintf("%s: status changed\n  before: %s\n  after:  %s", name, a.status, b.status))
		case a.resourceVersion != b.resourceVersion:
			out = append(out, fmt.Sprintf("%s: resourceVersion %s → %s with the same status", name, a.resourceVersion, b.resourceVersion))
		}
	}
	return out
}

// freshManagerCheck starts a new manager for the fixture's Machines, waits until it has
// reconciled every one of them, and returns how many machines/status writes the API server
// served meanwhile and what changed on the Machines. When both are nothing, the stored statuses
// are exactly those a freshly started manager computes. No other manager of the fixture may
// run; the new one is stopped before returning.
func (fx *fixture) freshManagerCheck(ctx context.Context) (writes int, changed []string) {
	fx.t.Helper()
	before := fx.snapshot(ctx)
	w0, err := apiStatusWrites(ctx)
	if err != nil {
		fx.t.Fatal(err)
	}
	m := fx.startManager("")
	fx.waitReconciled(m, len(fx.names))
	time.Sleep(2 * time.Second) // a write would have been sent by now: reconciles count after it
	w1, err := apiStatusWrites(ctx)
	if err != nil {
		fx.t.Fatal(err)
	}
	m.Stop(managerStopGrace)
	return w1 - w0, before.diff(fx.snapshot(ctx))
}
