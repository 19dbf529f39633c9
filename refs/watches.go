package refs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The rule: every watch (informer) the reader starts on a referenced kind is recorded once, by
// kind, version and namespace ("" all namespaces, through the manager's cache; else through a
// cache of that namespace, access.go), with the cache it runs in. Reader.mu guards the record
// and the version read of each kind, and is held while a watch starts (its informer is created
// then) or stops (its informer is removed), so that stopping a version (versions.go) or a scope
// (an access revoked) stops every watch of it, in every scope, and no informer outlives its
// record: a read that made the cache create an informer for a watch stopped meanwhile removes
// it (readWatched).

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

// errVersionChanged: a watch was asked for a version of a kind that is no longer the one read.
var errVersionChanged = errors.New("the version read of the kind changed")

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
	if r.versions == nil {
		r.versions = map[schema.GroupKind]string{}
	}
	r.versions[gk] = v
	r.stopWatchesLocked(ctx, "version no longer read", func(k watchKey) bool { return k.gvk.GroupKind() == gk && k.gvk.Version != v })
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
	if r.watches == nil {
		r.watches = map[watchKey]watch{}
	}
	r.watches[k] = watch{gvr: mapping.Resource, cache: c}
	return c, nil
}

// cacheLocked, with r.mu held, returns the cache watching namespace ns: the manager's for ""
// (all namespaces), else a cache of ns alone, created and started on first use.
func (r *Reader) cacheLocked(ns string) (cache.Cache, error) {
	if ns == "" {
		return r.Cache, nil
	}
	if c, ok := r.caches[ns]; ok {
		return c, nil
	}
	c, err := r.newCache(ns)
	if err != nil {
		return nil, fmt.Errorf("cannot start a cache of namespace %s: %w", ns, err)
	}
	if r.caches == nil {
		r.caches = map[string]cache.Cache{}
	}
	r.caches[ns] = c
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
