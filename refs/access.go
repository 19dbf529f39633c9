package refs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/machinestatus/machinestatus/status"
)

// informerVerbs are the requests an informer for a referenced kind sends: it lists and watches
// the kind, in every namespace (the manager's cache) or in one (a namespace cache).
var informerVerbs = []string{"list", "watch"}

// The rule (docs/operating.md, "Least privilege"): a referenced kind is read through an
// informer the manager may run. The manager first asks (SelfSubjectAccessReview) whether it may
// list and watch the kind in all namespaces; if so, the manager's cache watches it everywhere.
// If not, it asks the same in the Machine's namespace; if allowed (a RoleBinding there), a cache
// of that namespace alone watches the kind there. Otherwise the reference is Forbidden and no
// informer is started (one on a forbidden kind would retry its list forever and never sync).
// Every retry interval, the access of every watched scope is asked again: when it was revoked,
// the scope's informer is stopped and the Machines referencing the kind there are reconciled,
// so they report Forbidden within one interval (plus a reconcile).

// scopeKey is a resource in one namespace; namespace "" is all namespaces.
type scopeKey struct {
	gr        schema.GroupResource
	namespace string
}

// accessState remembers access review answers and the namespace caches. The zero value is ready
// to use.
type accessState struct {
	// answers are the access reviews' answers: the denied verbs ("" when allowed).
	answers recentAnswers[scopeKey, string]
	// mu guards caches.
	mu sync.Mutex
	// caches are the namespace caches, by namespace, created on first use.
	caches map[string]cache.Cache
	// newCache creates a cache of one namespace and starts it with the manager; nil without one.
	newCache func(namespace string) (cache.Cache, error)
	// events receives the Machines to reconcile after an access change.
	events chan event.GenericEvent
}

// recentAnswer returns the denied verbs for k when the answer is fresh: asked less than the
// retry interval before now (recentAnswers), or kept up to date by the recheck (the scope is
// watched at some version). The watch and the answer are read under their own locks: a recheck
// in between costs at most one review more.
func (r *Reader) recentAnswer(k scopeKey, now time.Time) (string, bool) {
	if r.watches.watching(k.gr, k.namespace) {
		return r.access.answers.last(k)
	}
	return r.access.answers.fresh(k, now, r.kindRetryInterval())
}

// setupAccess prepares the namespace caches (created with mgr's client settings and the cache
// transforms of CacheOptions), the event source that reconciles Machines after an access
// change, and the periodic recheck, which runs with mgr while it leads.
func (r *Reader) setupAccess(mgr ctrl.Manager) error {
	r.access.events = make(chan event.GenericEvent, 1024)
	if err := r.controller.Watch(source.Channel(r.access.events, &handler.EnqueueRequestForObject{})); err != nil {
		return fmt.Errorf("cannot watch access changes: %w", err)
	}
	r.access.newCache = func(ns string) (cache.Cache, error) {
		c, err := cache.New(mgr.GetConfig(), cache.Options{
			HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
			DefaultNamespaces: map[string]cache.Config{ns: {}},
			DefaultTransform:  StripObject,
		})
		if err != nil {
			return nil, fmt.Errorf("cannot create a cache of namespace %s: %w", ns, err)
		}
		if err := mgr.Add(c); err != nil {
			return nil, fmt.Errorf("cannot start the cache of namespace %s: %w", ns, err)
		}
		return c, nil
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		wait.UntilWithContext(ctx, r.recheckAccess, r.kindRetryInterval())
		return nil
	}))
}

// readScope is where the manager reads a referenced kind, or was denied to.
type readScope struct {
	// namespace is the one namespace read or denied; "" is all namespaces. When it is not "",
	// reading in all namespaces was denied first.
	namespace string
	// clusterScoped is true for a cluster-scoped kind, which only a ClusterRoleBinding can grant.
	clusterScoped bool
	// deniedEverywhere are the verbs denied in all namespaces (e.g. "list and watch") when
	// namespace is not "".
	deniedEverywhere string
}

// readerFor returns where to read objects of mapping's kind for a Machine in namespace ns, after
// starting its watch when needed, and the scope of that reader: the manager's cache (scope all
// namespaces) when the manager may list and watch the kind in all namespaces, else a cache of ns
// (scope ns) when it may there (a namespaced kind only: a RoleBinding cannot grant a
// cluster-scoped one). When it may in neither, it returns no reader, the verbs denied (e.g.
// "list and watch") and the scope denied: all namespaces for a cluster-scoped kind, else ns. It
// returns the API server's errors other than a refused review (then access is assumed and the
// read waits for the cache as it would without the check), and watch setup errors.
func (r *Reader) readerFor(ctx context.Context, mapping *meta.RESTMapping, ns string, now time.Time) (cache.Cache, readScope, string, error) {
	everywhereScope := readScope{clusterScoped: mapping.Scope.Name() != meta.RESTScopeNameNamespace}
	if r.controller == nil {
		return r.Cache, everywhereScope, "", nil // no controller: nothing is watched
	}
	everywhere, err := r.denied(ctx, mapping.Resource, "", now)
	if err != nil {
		return nil, everywhereScope, "", err
	}
	if everywhere == "" {
		return r.Cache, everywhereScope, "", r.startWatch(ctx, mapping, "", r.Cache)
	}
	if everywhereScope.clusterScoped || ns == "" {
		return nil, everywhereScope, everywhere, nil
	}
	here := readScope{namespace: ns, deniedEverywhere: everywhere}
	verbs, err := r.denied(ctx, mapping.Resource, ns, now)
	if err != nil || verbs != "" {
		return nil, here, verbs, err
	}
	c, err := r.namespaceCache(ns)
	if err != nil {
		return nil, here, "", err
	}
	return c, here, "", r.startWatch(ctx, mapping, ns, c)
}

// denied returns which of informerVerbs RBAC denies the manager on gvr in namespace ns ("": all
// namespaces), joined with "and" ("" when all are allowed), from a fresh answer when there is one
// (so at most one pair of reviews per scope and retry interval), else asking the API server with
// SelfSubjectAccessReviews (every authenticated user may create them).
func (r *Reader) denied(ctx context.Context, gvr schema.GroupVersionResource, ns string, now time.Time) (string, error) {
	k := scopeKey{gr: gvr.GroupResource(), namespace: ns}
	if denied, ok := r.recentAnswer(k, now); ok {
		return denied, nil
	}
	verbs, err := r.review(ctx, gvr, ns)
	if err != nil {
		return "", err
	}
	r.access.answers.record(k, verbs, now)
	return verbs, nil
}

// review asks the API server which of informerVerbs the manager may not use on gvr in ns.
func (r *Reader) review(ctx context.Context, gvr schema.GroupVersionResource, ns string) (string, error) {
	var denied []string
	for _, verb := range informerVerbs {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: ns},
		}}
		if err := r.Client.Create(ctx, review); err != nil {
			if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				log.FromContext(ctx).V(1).Info("cannot review own access; assuming it", "resource", gvr.GroupResource().String(), "error", err.Error())
				return "", nil
			}
			return "", fmt.Errorf("cannot review access to %s: %w", gvr.GroupResource(), err)
		}
		if !review.Status.Allowed {
			denied = append(denied, verb)
		}
	}
	return strings.Join(denied, " and "), nil
}

// namespaceCache returns the cache of namespace ns, creating and starting it on first use.
func (r *Reader) namespaceCache(ns string) (cache.Cache, error) {
	r.access.mu.Lock()
	defer r.access.mu.Unlock()
	if c, ok := r.access.caches[ns]; ok {
		return c, nil
	}
	c, err := r.access.newCache(ns)
	if err != nil {
		return nil, err
	}
	if r.access.caches == nil {
		r.access.caches = map[string]cache.Cache{}
	}
	r.access.caches[ns] = c
	return c, nil
}

// recheckAccess asks again whether the manager may list and watch each watched scope. Where it
// no longer may, it stops the scope's watches (its cache would keep the last objects while
// client-go retried the list forever) and reconciles the Machines in the scope that reference
// the kind, which then report Forbidden. Review errors leave a scope as it is until the next
// recheck.
func (r *Reader) recheckAccess(ctx context.Context) {
	scopes := map[scopeKey]watchKey{}
	gvrs := map[scopeKey]schema.GroupVersionResource{}
	for k, gvr := range r.watches.list() {
		s := scopeKey{gr: gvr.GroupResource(), namespace: k.namespace}
		scopes[s], gvrs[s] = k, gvr
	}
	for s, k := range scopes {
		verbs, err := r.review(ctx, gvrs[s], s.namespace)
		if err != nil {
			log.FromContext(ctx).Info("cannot recheck access; keeping the watch", "resource", s.gr.String(), "namespace", s.namespace, "error", err.Error())
			continue
		}
		r.access.answers.record(s, verbs, r.clock().Now())
		if verbs == "" {
			continue
		}
		log.FromContext(ctx).Info("access revoked; stopping the watch", "resource", s.gr.String(), "namespace", s.namespace, "denied", verbs)
		r.stopWatches(ctx, "access revoked", func(w watchKey) bool {
			return w.namespace == s.namespace && w.gvk.GroupKind() == k.gvk.GroupKind()
		})
		r.reconcileReferencing(ctx, k.gvk.GroupKind(), s.namespace)
	}
}

// reconcileReferencing queues the Machines in ns ("": all) that reference objects of kind gk.
func (r *Reader) reconcileReferencing(ctx context.Context, gk schema.GroupKind, ns string) {
	for _, req := range r.Referrers(ctx, gk, ns, "") {
		m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}}
		select {
		case r.access.events <- event.GenericEvent{Object: m}:
		case <-ctx.Done():
			return
		}
	}
}

// forbidden returns st for a reference whose resource gr RBAC does not let the manager read in
// scope (verbs are the ones denied, e.g. "list and watch"; in a namespace, scope also carries
// those denied in all namespaces, quoted when they differ): the Forbidden problem, with a message
// naming where it was denied, what to grant with which RBAC objects, and when the controller
// checks again (every interval). The grant follows the scope: a cluster-scoped kind needs a
// ClusterRole and a ClusterRoleBinding (a RoleBinding cannot grant it); a namespaced kind
// denied in a namespace needs a Role and RoleBinding there (or a ClusterRole bound by a
// RoleBinding there), or a ClusterRole and ClusterRoleBinding for all namespaces.
func forbidden(st status.Ref, gr schema.GroupResource, scope readScope, verbs string, interval time.Duration) status.Ref {
	st.Problem = status.ProblemForbidden
	const clusterWide = "a ClusterRole and a ClusterRoleBinding"
	var where, grant string
	switch {
	case scope.clusterScoped:
		where = "(cluster-scoped)"
		grant = "with " + clusterWide + " (a RoleBinding cannot grant a cluster-scoped kind)"
	case scope.namespace == "":
		where = "in all namespaces"
		grant = "with " + clusterWide
	default:
		where = fmt.Sprintf("in namespace %s nor in all namespaces", scope.namespace)
		if e := scope.deniedEverywhere; e != "" && e != verbs {
			where = fmt.Sprintf("in namespace %s, and to %s it in all namespaces", scope.namespace, e)
		}
		grant = fmt.Sprintf("in %s (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (%s)",
			scope.namespace, clusterWide)
	}
	st.Unreadable = fmt.Sprintf("cannot read %s: RBAC forbids the manager to %s %s %s; grant it get, list and watch on them %s; checking again every %s",
		st, verbs, gr, where, grant, interval)
	return st
}
