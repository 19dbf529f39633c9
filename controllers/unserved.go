package controllers

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultKindRetryInterval is MachineReconciler.KindRetryInterval when left zero: a Machine whose
// reference names a kind the API server does not serve is reconciled again after one minute.
const DefaultKindRetryInterval = time.Minute

// unservedKinds remembers which kinds the API server did not serve, and when the RESTMapper
// said so, so that Machines referencing such a kind ask the RESTMapper (and through it the
// discovery API, which it asks again for every unknown group) at most once per interval. The
// zero value is ready to use.
type unservedKinds struct {
	mu   sync.Mutex
	seen map[schema.GroupKind]time.Time
}

// recent reports whether gk was found unserved less than interval before now.
func (u *unservedKinds) recent(gk schema.GroupKind, now time.Time, interval time.Duration) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	at, ok := u.seen[gk]
	return ok && now.Sub(at) < interval && !now.Before(at)
}

// record notes that gk was not served at now.
func (u *unservedKinds) record(gk schema.GroupKind, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seen == nil {
		u.seen = map[schema.GroupKind]time.Time{}
	}
	u.seen[gk] = now
}

// forget notes that gk is served.
func (u *unservedKinds) forget(gk schema.GroupKind) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.seen, gk)
}

// restMapping is RESTMapper.RESTMapping for the preferred version of gk, except that a kind found
// unserved less than the retry interval ago is a *meta.NoKindMatchError without asking again.
func (r *MachineReconciler) restMapping(gk schema.GroupKind, now time.Time) (*meta.RESTMapping, error) {
	if r.unserved.recent(gk, now, r.kindRetryInterval()) {
		return nil, &meta.NoKindMatchError{GroupKind: gk}
	}
	mapping, err := r.RESTMapper.RESTMapping(gk)
	switch {
	case meta.IsNoMatchError(err):
		r.unserved.record(gk, now)
	case err == nil:
		r.unserved.forget(gk)
	}
	return mapping, err
}

// kindNotServed returns st for a reference whose kind (st.Kind in group) the API server does not
// serve: the KindNotServed problem, with a message saying why (empty: no CRD defines it) and
// when the controller checks again (besides at once when its CRD changes).
func kindNotServed(st refState, group, why string, interval time.Duration) refState {
	if why == "" {
		why = "is its CRD installed?"
	}
	st.Problem = refKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: the API server serves no kind %s in group %s (%s); checking again every %s",
		st, st.Kind, group, why, interval)
	return st
}

// kindRetryDeadline returns the earlier of next (zero: none) and now plus the retry interval
// when the infrastructure or bootstrap reference names a kind that is not served, or that the
// manager may not or could not read (no event would tell when that changes); else next.
func (r *MachineReconciler) kindRetryDeadline(in statusInputs, now, next time.Time) time.Time {
	retried := func(s refState) bool { return s.Unreadable != "" && s.Problem != refContractViolation }
	if !retried(in.Infra) && (in.Bootstrap == nil || !retried(*in.Bootstrap)) {
		return next
	}
	retry := now.Add(r.kindRetryInterval())
	if next.IsZero() || retry.Before(next) {
		return retry
	}
	return next
}

func (r *MachineReconciler) kindRetryInterval() time.Duration {
	if r.KindRetryInterval <= 0 {
		return DefaultKindRetryInterval
	}
	return r.KindRetryInterval
}
