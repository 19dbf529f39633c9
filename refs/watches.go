package refs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The rule of watches: every watch (informer) the reader starts on a referenced kind is recorded
// once, by kind, version and namespace ("" all namespaces, through the manager's cache; else
// through a cache of that namespace), with the cache it runs in. Reader.mu guards the record and
// the version read of each kind, and is held while a watch starts (its informer is created then)
// or stops (its informer is removed), so that stopping a version (chooseVersion) or a scope (an
// access revoked) stops every watch of it, in every scope, and no informer outlives its record:
// a read that made the cache create an informer for a watch stopped meanwhile removes it
// (readWatched).
//
// The rule of access (docs/operating.md, "Least privilege"): a referenced kind is read through
// an informer the manager may run. The manager first asks (SelfSubjectAccessReview) whether it
// may list and watch the kind in all namespaces; if so, the manager's cache watches it
// everywhere. If not, it asks the same in the Machine's namespace; if allowed (a RoleBinding
// there), a cache of that namespace alone watches the kind there. Otherwise the reference is
// Forbidden and no informer is started (one on a forbidden kind would retry its list forever and
// never sync). An answer is reused for one retry interval. Every retry interval, the access of
// every watched scope is asked again: when it was revoked, the scope's informer is stopped and
// the Machines referencing the kind there are reconciled, so they report Forbidden within one
// interval (plus a reconcile).

// watchKey is a referenced kind at one version, watched in one namespace ("": all namespaces).
type watchKey struct {
	gvk       schema.GroupVersionKind
	namespace string
}

// watch is a running watch: its resource (asked about again by the access recheck) and the
// cache its informer runs in.
type watch struct {
	gvr   schema.GroupVersionResource
	cache cache.Cache
}

// scopeKey is a resource in one namespace; namespace "" is all namespaces.
type scopeKey struct {
	gr        schema.GroupResource
	namespace string
}

// errVersionChanged: a watch was asked for a version of a kind that is no longer the one read.
var errVersionChanged = errors.New("the version read of the kind changed")

// SetupWithManager lets r start watches on c (the Machine controller), create namespace caches
// with mgr and reconcile Machines after an access change, and runs the access recheck with mgr
// while it leads.
func (r *Reader) SetupWithManager(mgr ctrl.Manager, c controller.Controller) error {
	r.controller, r.mgr, r.events = c, mgr, make(chan event.GenericEvent, 1024)
	if err := c.Watch(source.Channel(r.events, &handler.EnqueueRequestForObject{})); err != nil {
		return fmt.Errorf("cannot watch access changes: %w", err)
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		wait.UntilWithContext(ctx, r.recheckAccess, r.kindRetryInterval())
		return nil
	}))
}

// newObject returns an empty unstructured object of kind gvk.
func newObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// versionRead returns the version of gk read now ("" none) and true, or false when gk was never
// seen defined by a CRD (chooseVersion).
func (r *Reader) versionRead(gk schema.GroupKind) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.versions[gk]
	return v, ok
}

// chooseVersion records v as the version of gk read now ("" none), gk being defined by a CRD.
// Only when that changes it does it stop every watch of gk at another version, in every
// namespace: the informer of a version no longer read is removed from its cache, so that its
// stale objects are never read and it does not retry a list that can only fail.
func (r *Reader) chooseVersion(ctx context.Context, gk schema.GroupKind, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.versions[gk]; ok && prev == v {
		return
	}
	put(&r.versions, gk, v)
	r.stopWatchesLocked(ctx, "version no longer read", func(k watchKey) bool { return k.gvk.GroupKind() == gk && k.gvk.Version != v })
}

// readerFor returns where to read objects of mapping's kind for a Machine in namespace ns, after
// starting its watch when needed, and the scope of that reader: the manager's cache (scope all
// namespaces) when the manager may list and watch the kind in all namespaces, else a cache of ns
// (scope ns) when it may there (a namespaced kind only: a RoleBinding cannot grant a
// cluster-scoped one). When it may in neither, it returns no reader, the verbs denied (e.g.
// "list and watch") and the scope denied: all namespaces for a cluster-scoped kind, else ns. It
// returns the API server's errors, and watch setup errors.
func (r *Reader) readerFor(ctx context.Context, mapping *meta.RESTMapping, ns string, now time.Time) (cache.Cache, readScope, string, error) {
	scope := readScope{clusterScoped: mapping.Scope.Name() != meta.RESTScopeNameNamespace}
	if r.controller == nil {
		return r.Cache, scope, "", nil // no controller: nothing is watched
	}
	everywhere, err := r.denied(ctx, mapping.Resource, "", now, true)
	switch {
	case err != nil || (everywhere != "" && (scope.clusterScoped || ns == "")):
		return nil, scope, everywhere, err
	case everywhere == "":
		c, err := r.startWatch(ctx, mapping, "")
		return c, scope, "", err
	}
	scope = readScope{namespace: ns, deniedEverywhere: everywhere}
	verbs, err := r.denied(ctx, mapping.Resource, ns, now, true)
	if err != nil || verbs != "" {
		return nil, scope, verbs, err
	}
	c, err := r.startWatch(ctx, mapping, ns)
	return c, scope, "", err
}

// denied returns which of list and watch (what an informer sends) RBAC denies the manager on gvr
// in namespace ns ("": all namespaces), joined with "and" ("" when both are allowed): with
// reuse, from an answer less than a retry interval old when there is one (so at most one pair
// of reviews per scope and retry interval, besides the recheck's); else from
// SelfSubjectAccessReviews (every authenticated user may create them), whose answer it records.
// When the cluster refuses the reviews, access is assumed (and the read waits for the cache as
// it would without the check).
func (r *Reader) denied(ctx context.Context, gvr schema.GroupVersionResource, ns string, now time.Time, reuse bool) (string, error) {
	k := scopeKey{gr: gvr.GroupResource(), namespace: ns}
	if a, ok := r.recentAnswer(k, now, r.kindRetryInterval()); ok && reuse {
		return a.denied, nil
	}
	var denied []string
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: ns},
		}}
		err := r.Client.Create(ctx, review)
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			log.FromContext(ctx).V(1).Info("cannot review own access; assuming it", "resource", k.gr.String(), "error", err.Error())
			denied = nil
			break
		}
		if err != nil {
			return "", fmt.Errorf("cannot review access to %s: %w", k.gr, err)
		}
		if !review.Status.Allowed {
			denied = append(denied, verb)
		}
	}
	a := answer{denied: strings.Join(denied, " and "), at: now}
	r.record(k, a)
	return a.denied, nil
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
		verbs, err := r.denied(ctx, w.gvr, s.namespace, r.clock().Now(), false)
		if err != nil {
			l.Info("cannot recheck access; keeping the watch", "error", err.Error())
			continue
		}
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

// startWatch starts watching mapping's kind, at mapping's version, in namespace ns ("": all
// namespaces, through the manager's cache; else through the cache of ns, created and started on
// first use), once: changes to referenced objects then reconcile the Machines that reference
// them. The informer is created in its cache and recorded under r.mu. It returns the cache to
// read from; errVersionChanged when mapping's version is no longer the one read; or the cache's
// or controller's error when the watch cannot be added (then no informer is left).
func (r *Reader) startWatch(ctx context.Context, mapping *meta.RESTMapping, ns string) (cache.Cache, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := watchKey{gvk: mapping.GroupVersionKind, namespace: ns}
	if v, ok := r.versions[k.gvk.GroupKind()]; ok && v != k.gvk.Version {
		// The CRD changed since mapping was resolved: a watch of this version would be stale.
		return nil, fmt.Errorf("cannot watch %s (now %q): %w", k.gvk, v, errVersionChanged)
	}
	if w, ok := r.watches[k]; ok {
		return w.cache, nil
	}
	c, err := r.cacheLocked(ns)
	if err != nil {
		return nil, err
	}
	informer, err := c.GetInformer(ctx, newObject(k.gvk), cache.BlockUntilSynced(false))
	if err == nil {
		err = r.controller.Watch(&source.Informer{Informer: informer, Handler: handler.EnqueueRequestsFromMapFunc(r.machinesForObject)})
		if err != nil {
			removeInformer(ctx, c, k, "its handler was not added")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot watch %s in namespace %q: %w", k.gvk, ns, err)
	}
	put(&r.watches, k, watch{gvr: mapping.Resource, cache: c})
	return c, nil
}

// cacheLocked, with r.mu held, returns the cache watching namespace ns: the manager's for ""
// (all namespaces), else a cache of ns alone (with the manager's client settings and
// StripObject), created and started on first use.
func (r *Reader) cacheLocked(ns string) (cache.Cache, error) {
	if c, ok := r.caches[ns]; ok || ns == "" {
		return cmp.Or(c, r.Cache), nil
	}
	c, err := cache.New(r.mgr.GetConfig(), cache.Options{
		HTTPClient: r.mgr.GetHTTPClient(), Scheme: r.mgr.GetScheme(), Mapper: r.mgr.GetRESTMapper(),
		DefaultNamespaces: map[string]cache.Config{ns: {}}, DefaultTransform: StripObject,
	})
	if err == nil {
		err = r.mgr.Add(c)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot start a cache of namespace %s: %w", ns, err)
	}
	put(&r.caches, ns, c)
	return c, nil
}

// readWatched reads the object named key into obj (its kind and version set) from c, the cache
// of a watch started by startWatch in namespace ns ("": all namespaces), and returns c's error.
// The cache creates an informer on demand for a kind it does not watch: when the watch was
// stopped meanwhile (its version is no longer read, or access was revoked), that informer is
// removed and the result is errVersionChanged, so that the read resolves the kind again.
// Without a controller (nothing watched), it is c.Get.
func (r *Reader) readWatched(ctx, rctx context.Context, c cache.Cache, ns string, key client.ObjectKey, obj *unstructured.Unstructured) error {
	err := c.Get(rctx, key, obj)
	if r.controller == nil {
		return err
	}
	k := watchKey{gvk: obj.GroupVersionKind(), namespace: ns}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.watches[k]; ok {
		return err
	}
	removeInformer(ctx, c, k, "stopped while read")
	return fmt.Errorf("cannot read %s: its watch stopped meanwhile: %w", k.gvk, errVersionChanged)
}

// stopWatchesLocked, with r.mu held, stops every recorded watch for which stop returns true:
// its informer is removed from its cache, so that its objects are never read again and it
// retries no list, and it is forgotten, so that a later read starts a new one. A watch whose
// informer cannot be removed is kept (and logged).
func (r *Reader) stopWatchesLocked(ctx context.Context, why string, stop func(watchKey) bool) {
	for k, w := range r.watches {
		if stop(k) && removeInformer(ctx, w.cache, k, why) {
			delete(r.watches, k)
		}
	}
}

// removeInformer removes the informer of k from c, logging it, and reports whether it could.
func removeInformer(ctx context.Context, c cache.Cache, k watchKey, why string) bool {
	l := log.FromContext(ctx).WithValues("kind", k.gvk.String(), "namespace", k.namespace, "why", why)
	if err := c.RemoveInformer(ctx, newObject(k.gvk)); err != nil {
		l.Info("cannot stop a watch", "error", err.Error())
		return false
	}
	l.Info("stopped a watch")
	return true
}

// WatchedVersions returns the versions of gk watched in any namespace, sorted, without repeats.
func (r *Reader) WatchedVersions(gk schema.GroupKind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var vs []string
	for k := range r.watches {
		if k.gvk.GroupKind() == gk {
			vs = append(vs, k.gvk.Version)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}
