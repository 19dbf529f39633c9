package refs

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
)

// DefaultKindRetryInterval is Reader.RetryInterval when left zero: a Machine whose
// reference names a kind the API server does not serve is reconciled again after one minute.
const DefaultKindRetryInterval = time.Minute

// DiscoveryRetryInterval is how often discovery is asked again about a version that a CRD serves
// and discovery does not list yet (it follows a CRD within milliseconds), and how soon the
// Machines reading the kind meanwhile are read again (at most the kind retry interval).
const DiscoveryRetryInterval = 2 * time.Second

// restMapping is RESTMapper.RESTMapping of gk at version ("": its preferred version), except that
// a kind and version the RESTMapper did not map less than interval before now is a
// *meta.NoKindMatchError without asking again (answer.fresh), so that it is asked at
// most once per interval however many Machines read it. With a no-match error it returns how
// long before the RESTMapper is asked again.
func (r *Reader) restMapping(gk schema.GroupKind, version string, now time.Time, interval time.Duration) (*meta.RESTMapping, time.Duration, error) {
	gvk := gk.WithVersion(version)
	if a, ok := r.recentAnswer(gvk, now, interval); ok {
		return nil, a.at.Add(interval).Sub(now), &meta.NoKindMatchError{GroupKind: gk}
	}
	var versions []string
	if version != "" {
		versions = []string{version}
	}
	mapping, err := r.RESTMapper.RESTMapping(gk, versions...)
	if meta.IsNoMatchError(err) {
		r.record(gvk, answer{at: now})
		return nil, interval, err
	}
	return mapping, 0, err
}

// discoveryStep is how often discovery is asked about a version it does not list yet.
func (r *Reader) discoveryStep() time.Duration {
	return min(DiscoveryRetryInterval, r.kindRetryInterval())
}

// kindNotServed returns st for a reference whose kind (st.Kind in group) the API server does not
// serve: the KindNotServed problem, with a message saying why (empty: no CRD defines it) and
// when the controller checks again (besides at once when its CRD changes).
func kindNotServed(st status.Ref, group, why string, interval time.Duration) status.Ref {
	if why == "" {
		why = "is its CRD installed?"
	}
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: the API server serves no kind %s in group %s (%s); checking again every %s", st, st.Kind, group, why, interval)
	return st
}

// notInDiscovery returns st for a reference whose kind's CRD serves version, which discovery
// does not list yet: KindNotServed, read again after retry (the rest of the current step of
// discovery's questions) or at once when the CRD changes. The message names the step, not what
// is left of it, so that it does not change (and the status is not written again) at each read.
func notInDiscovery(st status.Ref, group, version string, retry, step time.Duration) status.Ref {
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: version %s of %s (group %s) is not in discovery yet; checking again every %s",
		st, version, st.Kind, group, step)
	st.RetryAfter = retry
	return st
}

// RetryDeadline returns the earliest of next (zero: none) and, for each of refs, now plus its
// RetryAfter (at most the retry interval) when it has one (discovery does not list a version yet),
// or else now plus the retry interval when it names a kind that is not served, or that the
// manager may not or could not read (no event would tell when that changes).
func (r *Reader) RetryDeadline(now, next time.Time, refs ...status.Ref) time.Time {
	for _, s := range refs {
		wait := r.kindRetryInterval()
		switch {
		case s.RetryAfter > 0:
			wait = min(s.RetryAfter, wait)
		case s.Unreadable == "" || s.Problem == status.ProblemContractViolation:
			continue
		}
		if retry := now.Add(wait); next.IsZero() || retry.Before(next) {
			next = retry
		}
	}
	return next
}

func (r *Reader) kindRetryInterval() time.Duration {
	if r.RetryInterval <= 0 {
		return DefaultKindRetryInterval
	}
	return r.RetryInterval
}
