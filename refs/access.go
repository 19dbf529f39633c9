package refs

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
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

// The rule (docs/reliability.md, "Least privilege"): a referenced kind is read through an
// informer the manager may run. The manager first asks (SelfSubjectAccessReview) whether it may
// list and watch the kind in all namespaces; if so, the manager's cache watches it everywhere.
// If not, it asks the same in the Machine's namespace; if allowed (a RoleBinding there), a cache
// of that namespace alone watches the kind there. Otherwise the reference is Forbidden and no
// informer is started (one on a forbidden kind would retry its list forever and never sync).
// An answer is reused for one retry interval. Every retry interval, the access of every watched
// scope is asked again: when it was revoked, the scope's informer is stopped and the Machines
// referencing the kind there are reconciled, so they report Forbidden within one interval (plus
// a reconcile).

// scopeKey is a resource in one namespace; namespace "" is all namespaces.
type scopeKey struct {
	gr        schema.GroupResource
	namespace string
}

// SetupWithManager lets r start watches on c (the Machine controller), create namespace caches
// (with mgr's client settings and the transform of StripObject) and reconcile Machines after an
// access change, and runs the access recheck with mgr while it leads.
func (r *Reader) SetupWithManager(mgr ctrl.Manager, c controller.Controller) error {
	r.controller = c
	r.events = make(chan event.GenericEvent, 1024)
	if err := c.Watch(source.Channel(r.events, &handler.EnqueueRequestForObject{})); err != nil {
		return fmt.Errorf("cannot watch access changes: %w", err)
	}
	r.newCache = func(ns string) (cache.Cache, error) {
		c, err := cache.New(mgr.GetConfig(), cache.Options{
			HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
			DefaultNamespaces: map[string]cache.Config{ns: {}},
			DefaultTransform:  StripObject,
		})
		if err == nil {
			err = mgr.Add(c)
		}
		return c, err
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
	scope := readScope{clusterScoped: mapping.Scope.Name() != meta.RESTScopeNameNamespace}
	if r.controller == nil {
		return r.Cache, scope, "", nil // no controller: nothing is watched
	}
	everywhere, err := r.denied(ctx, mapping.Resource, "", now)
	switch {
	case err != nil || (everywhere != "" && (scope.clusterScoped || ns == "")):
		return nil, scope, everywhere, err
	case everywhere == "":
		c, err := r.startWatch(ctx, mapping, "")
		return c, scope, "", err
	}
	scope = readScope{namespace: ns, deniedEverywhere: everywhere}
	verbs, err := r.denied(ctx, mapping.Resource, ns, now)
	if err != nil || verbs != "" {
		return nil, scope, verbs, err
	}
	c, err := r.startWatch(ctx, mapping, ns)
	return c, scope, "", err
}

// denied returns which of informerVerbs RBAC denies the manager on gvr in namespace ns ("": all
// namespaces), joined with "and" ("" when all are allowed), from an answer less than a retry
// interval old when there is one (so at most one pair of reviews per scope and retry interval,
// besides the recheck's), else asking the API server (review).
func (r *Reader) denied(ctx context.Context, gvr schema.GroupVersionResource, ns string, now time.Time) (string, error) {
	k := scopeKey{gr: gvr.GroupResource(), namespace: ns}
	if a, ok := r.recentAnswer(k, now, r.kindRetryInterval()); ok {
		return a.denied, nil
	}
	verbs, err := r.review(ctx, gvr, ns)
	if err == nil {
		r.record(k, answer{denied: verbs, at: now})
	}
	return verbs, err
}

// review asks the API server with SelfSubjectAccessReviews (every authenticated user may create
// them) which of informerVerbs the manager may not use on gvr in ns.
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

// recheckAccess asks again whether the manager may list and watch each watched scope. Where it
// no longer may, it stops the scope's watches (its cache would keep the last objects while
// client-go retried the list forever) and reconciles the Machines in the scope that reference
// the kind, which then report Forbidden. Review errors leave a scope as it is until the next
// recheck.
func (r *Reader) recheckAccess(ctx context.Context) {
	r.mu.Lock()
	watches := maps.Clone(r.watches)
	r.mu.Unlock()
	checked := map[scopeKey]bool{}
	for k, w := range watches {
		s := scopeKey{gr: w.gvr.GroupResource(), namespace: k.namespace}
		if checked[s] {
			continue
		}
		checked[s] = true
		l := log.FromContext(ctx).WithValues("resource", s.gr.String(), "namespace", s.namespace)
		verbs, err := r.review(ctx, w.gvr, s.namespace)
		if err != nil {
			l.Info("cannot recheck access; keeping the watch", "error", err.Error())
			continue
		}
		r.record(s, answer{denied: verbs, at: r.clock().Now()})
		if verbs == "" {
			continue
		}
		l.Info("access revoked; stopping the watch", "denied", verbs)
		gk := k.gvk.GroupKind()
		r.mu.Lock()
		r.stopWatchesLocked(ctx, "access revoked", func(o watchKey) bool { return o.namespace == s.namespace && o.gvk.GroupKind() == gk })
		r.mu.Unlock()
		for _, req := range r.Referrers(ctx, gk, s.namespace, "") {
			select {
			case r.events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}}}:
			case <-ctx.Done():
				return
			}
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
