package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// informerVerbs are the requests the cache's informer for a referenced kind sends: it lists and
// watches the kind in every namespace (the cache is cluster-wide).
var informerVerbs = []string{"list", "watch"}

// deniedResources remembers which resources the manager may not list or watch, and since when,
// so that Machines referencing such a kind ask the API server at most once per retry interval,
// and no informer is started that could only fail to list (client-go retries a failing list
// forever). The zero value is ready to use.
type deniedResources struct {
	mu   sync.Mutex
	seen map[schema.GroupResource]denial
}

// denial is one remembered answer: the denied verbs ("list and watch") and when.
type denial struct {
	verbs string
	at    time.Time
}

// recent returns the verbs denied on gr when that was found less than interval before now.
func (d *deniedResources) recent(gr schema.GroupResource, now time.Time, interval time.Duration) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x, ok := d.seen[gr]
	if !ok || now.Before(x.at) || now.Sub(x.at) >= interval {
		return "", false
	}
	return x.verbs, true
}

// record notes that verbs are denied on gr at now; empty verbs forget gr.
func (d *deniedResources) record(gr schema.GroupResource, verbs string, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if verbs == "" {
		delete(d.seen, gr)
		return
	}
	if d.seen == nil {
		d.seen = map[schema.GroupResource]denial{}
	}
	d.seen[gr] = denial{verbs: verbs, at: now}
}

// deniedVerbs returns which of informerVerbs RBAC denies the manager on gvr cluster-wide, joined
// with "and" ("" when all are allowed). It asks the API server with SelfSubjectAccessReviews
// (every authenticated user may create them) before ensureWatch starts watching gvk: not when
// gvk is watched already or the reconciler starts no watches (no controller), and not again
// when the resource was found denied less than the retry interval before now. When the API
// server refuses the review itself, access is assumed: the read then waits for the cache as it
// would without the check. It returns the API server's other errors, for a retry.
func (r *MachineReconciler) deniedVerbs(ctx context.Context, gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, now time.Time) (string, error) {
	if !r.startsWatch(gvk) {
		return "", nil
	}
	gr := gvr.GroupResource()
	if verbs, ok := r.denied.recent(gr, now, r.kindRetryInterval()); ok {
		return verbs, nil
	}
	var denied []string
	for _, verb := range informerVerbs {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource},
		}}
		if err := r.Client.Create(ctx, review); err != nil {
			if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				log.FromContext(ctx).V(1).Info("cannot review own access; assuming it", "resource", gr.String(), "error", err.Error())
				return "", nil
			}
			return "", fmt.Errorf("cannot review access to %s: %w", gr, err)
		}
		if !review.Status.Allowed {
			denied = append(denied, verb)
		}
	}
	verbs := strings.Join(denied, " and ")
	r.denied.record(gr, verbs, now)
	return verbs, nil
}

// startsWatch reports whether ensureWatch would start watching gvk (and an informer for it).
func (r *MachineReconciler) startsWatch(gvk schema.GroupVersionKind) bool {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	return r.controller != nil && !r.watched[gvk]
}

// forbidden returns st for a reference whose resource gr RBAC does not let the manager read
// (verbs are the denied ones): the Forbidden problem, with a message saying what to grant and
// when the controller checks again.
func forbidden(st refState, gr schema.GroupResource, verbs string, interval time.Duration) refState {
	st.Problem = refForbidden
	st.Unreadable = fmt.Sprintf("cannot read %s: RBAC forbids the manager to %s %s in all namespaces; grant it get, list and watch on them; checking again every %s",
		st, verbs, gr, interval)
	return st
}
