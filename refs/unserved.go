package refs

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
)

// DefaultKindRetryInterval is Reader.RetryInterval when left zero: a Machine whose
// reference names a kind the API server does not serve is reconciled again after one minute.
const DefaultKindRetryInterval = time.Minute

// DiscoveryRetryInterval is the first wait before a Machine is reconciled again when its
// reference's CRD serves a version that discovery does not list yet (discovery follows a CRD
// within seconds). The wait then doubles while the version stays missing, up to the kind retry
// interval (discoveryLag.retryAfter).
const DiscoveryRetryInterval = 2 * time.Second

// restMapping is RESTMapper.RESTMapping for the preferred version of gk, except that a kind found
// unserved less than the retry interval ago is a *meta.NoKindMatchError without asking again.
func (r *Reader) restMapping(gk schema.GroupKind, now time.Time) (*meta.RESTMapping, error) {
	if _, ok := r.unserved.fresh(gk, now, r.kindRetryInterval()); ok {
		return nil, &meta.NoKindMatchError{GroupKind: gk}
	}
	mapping, err := r.RESTMapper.RESTMapping(gk)
	switch {
	case meta.IsNoMatchError(err):
		r.unserved.record(gk, struct{}{}, now)
	case err == nil:
		r.unserved.forget(gk)
	}
	return mapping, err
}

// kindNotServed returns st for a reference whose kind (st.Kind in group) the API server does not
// serve: the KindNotServed problem, with a message saying why (empty: no CRD defines it) and
// when the controller checks again (besides at once when its CRD changes).
func kindNotServed(st status.Ref, group, why string, interval time.Duration) status.Ref {
	if why == "" {
		why = "is its CRD installed?"
	}
	return unservedState(st, group, why, fmt.Sprintf("checking again every %s", interval))
}

// notInDiscovery returns st for a reference whose kind's CRD serves version, which discovery
// does not list yet (it follows within seconds): KindNotServed, read again after retry (set as
// st.RetryAfter, the current step of the backoff from DiscoveryRetryInterval up to interval) or
// at once when the CRD changes. The message names the backoff's bounds, not its current step, so
// that it does not change (and the status is not written again) at each step.
func notInDiscovery(st status.Ref, group, version string, retry, interval time.Duration) status.Ref {
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: version %s of %s (group %s) is not in discovery yet; checking again after %s, doubling up to every %s",
		st, version, st.Kind, group, min(DiscoveryRetryInterval, interval), interval)
	st.RetryAfter = retry
	return st
}

func unservedState(st status.Ref, group, why, retry string) status.Ref {
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: the API server serves no kind %s in group %s (%s); %s", st, st.Kind, group, why, retry)
	return st
}

// discoveryLag remembers, for each version that a CRD serves and discovery does not list, since
// when it has been missing and until when the current step of its wait lasts. The zero value is
// ready to use; it is safe for concurrent use.
type discoveryLag struct {
	mu      sync.Mutex
	missing map[schema.GroupVersionKind]lagStep
}

// lagStep is a version missing from discovery since since; discovery is not asked about it again
// before next.
type lagStep struct{ since, next time.Time }

// retryAfter notes that gvk is missing from discovery at now and returns how long to wait before
// looking again: the time since it was first found missing, at least DiscoveryRetryInterval and
// at most interval, so that the waits double (2 s, 2 s, 4 s, 8 s, …) up to interval. A clock that
// went back gives the shortest wait. Until the wait has passed, pending answers for gvk.
func (d *discoveryLag) retryAfter(gvk schema.GroupVersionKind, now time.Time, interval time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.missing == nil {
		d.missing = map[schema.GroupVersionKind]lagStep{}
	}
	step, ok := d.missing[gvk]
	if !ok {
		step.since = now
	}
	wait := min(max(now.Sub(step.since), DiscoveryRetryInterval), interval)
	step.next = now.Add(wait)
	d.missing[gvk] = step
	return wait
}

// pending returns how long remains at now of the current wait of gvk, missing from discovery
// (retryAfter), and true; or false when gvk is not known missing or its wait has passed (or the
// clock went back before it started): discovery is then asked again.
func (d *discoveryLag) pending(gvk schema.GroupVersionKind, now time.Time, interval time.Duration) (time.Duration, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	step, ok := d.missing[gvk]
	if !ok || !now.Before(step.next) || now.Before(step.since) {
		return 0, false
	}
	return min(step.next.Sub(now), interval), true
}

// found forgets that gvk was missing from discovery.
func (d *discoveryLag) found(gvk schema.GroupVersionKind) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.missing, gvk)
}

// keepOnly forgets every version of gk missing from discovery but version ("": every one), so
// that a version missing again later starts its wait over at DiscoveryRetryInterval (its CRD was
// deleted, the version read changed, or the version is no longer waited for: followVersion).
func (d *discoveryLag) keepOnly(gk schema.GroupKind, version string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for gvk := range d.missing {
		if gvk.GroupKind() == gk && gvk.Version != version {
			delete(d.missing, gvk)
		}
	}
}

// askNow makes the next read of each version of gk missing from discovery ask discovery again,
// keeping its backoff (its CRD changed).
func (d *discoveryLag) askNow(gk schema.GroupKind) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for gvk, step := range d.missing {
		if gvk.GroupKind() == gk {
			step.next = step.since
			d.missing[gvk] = step
		}
	}
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
