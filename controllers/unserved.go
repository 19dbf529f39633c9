package controllers

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultKindRetryInterval is MachineReconciler.KindRetryInterval when left zero: a Machine whose
// reference names a kind the API server does not serve is reconciled again after one minute.
const DefaultKindRetryInterval = time.Minute

// restMapping is RESTMapper.RESTMapping for the preferred version of gk, except that a kind found
// unserved less than the retry interval ago is a *meta.NoKindMatchError without asking again.
func (r *MachineReconciler) restMapping(gk schema.GroupKind, now time.Time) (*meta.RESTMapping, error) {
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
