package refs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The rule: every watch (informer) the reconciler starts on a referenced kind is recorded once,
// by kind, version and namespace ("" all namespaces, through the manager's cache; else through
// a cache of that namespace, access.go). One lock guards the record and is held while a watch
// starts (its informer is created then) or stops (its informer is removed), so that stopping a
// version (versions.go) or a scope (an access revoked) stops every watch of it, in every scope,
// and a new version gets new watches in every scope. A read that made the cache create an
// informer for a watch stopped meanwhile removes it (readWatched): no informer outlives its
// record.

// watchKey is a referenced kind at one version, watched in one namespace ("": all namespaces).
type watchKey struct {
	gvk       schema.GroupVersionKind
	namespace string
}

// watchSet records the watches started on referenced kinds. The zero value is ready to use; it
// is safe for concurrent use.
type watchSet struct {
	mu sync.Mutex
	// watched maps each running watch to its resource (asked again by the access recheck).
	watched map[watchKey]schema.GroupVersionResource
	// chosen is the version read of each referenced kind seen defined by a CRD ("" when none can
	// be read now); a kind not in it was never seen defined by one. Only versions chosen are
	// watched.
	chosen map[schema.GroupKind]string
}

// errVersionChanged: a watch was asked for a version of a kind that is no longer the one read.
var errVersionChanged = errors.New("the version read of the kind changed")

// watching reports whether the resource gr is watched in namespace ns ("": all namespaces) at
// any version.
func (w *watchSet) watching(gr schema.GroupResource, ns string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, gvr := range w.watched {
		if k.namespace == ns && gvr.GroupResource() == gr {
			return true
		}
	}
	return false
}

// list returns a copy of the record.
func (w *watchSet) list() map[watchKey]schema.GroupVersionResource {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[watchKey]schema.GroupVersionResource, len(w.watched))
	for k, gvr := range w.watched {
		out[k] = gvr
	}
	return out
}

// definedByCRD reports whether gk was ever seen defined by a CRD (chooseVersion).
func (w *watchSet) definedByCRD(gk schema.GroupKind) bool {
	_, ok := w.chosenVersion(gk)
	return ok
}

// chosenVersion returns the version of gk read now ("" none) and true, or false when gk was
// never seen defined by a CRD (chooseVersion).
func (w *watchSet) chosenVersion(gk schema.GroupKind) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.chosen[gk]
	return v, ok
}

// chooseVersion records v as the version of gk read now ("" none), gk being defined by a CRD.
// Only when it changes (or gk is new and record is true)
// does it stop every watch of gk at another version, in every namespace (stopWatches): the
// informer of a version no longer read is removed from its cache, so that its stale objects are
// never read and it does not retry a list that can only fail. A kind not recorded yet is left
// alone when record is false (a CRD event about a kind no Machine read).
func (r *Reader) chooseVersion(ctx context.Context, gk schema.GroupKind, v string, record bool) {
	w := &r.watches
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, ok := w.chosen[gk]
	if (ok && prev == v) || (!ok && !record) {
		return
	}
	if w.chosen == nil {
		w.chosen = map[schema.GroupKind]string{}
	}
	w.chosen[gk] = v
	why := "no version of the kind is read now"
	if v != "" {
		why = "version no longer read (now " + v + ")"
	}
	r.stopWatchesLocked(ctx, why, func(k watchKey) bool { return k.gvk.GroupKind() == gk && k.gvk.Version != v })
}

// startWatch starts watching mapping's kind, at mapping's version, in namespace ns ("": all
// namespaces) through c, once: changes to referenced objects then reconcile the Machines that
// reference them. The informer is created in c and recorded under the record's lock, so that a
// watch stopped (stopWatches) has no informer left behind. It returns errVersionChanged when
// mapping's version is no longer the one read, or the cache's or controller's error when the
// watch cannot be added (then no informer is left either).
func (r *Reader) startWatch(ctx context.Context, mapping *meta.RESTMapping, ns string, c cache.Cache) error {
	w := &r.watches
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{gvk: mapping.GroupVersionKind, namespace: ns}
	if v, ok := w.chosen[k.gvk.GroupKind()]; ok && v != k.gvk.Version {
		// The CRD changed since mapping was resolved: a watch of this version would be stale.
		return fmt.Errorf("cannot watch %s (now %q): %w", k.gvk, v, errVersionChanged)
	}
	if _, ok := w.watched[k]; ok || r.controller == nil {
		return nil
	}
	where := ""
	if ns != "" {
		where = " in namespace " + ns
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(k.gvk)
	informer, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("cannot watch %s%s: %w", k.gvk, where, err)
	}
	src := &source.Informer{Informer: informer, Handler: handler.EnqueueRequestsFromMapFunc(r.machinesForObject)}
	if err := r.controller.Watch(src); err != nil {
		if rerr := c.RemoveInformer(ctx, obj); rerr != nil {
			log.FromContext(ctx).Info("cannot stop a watch", "kind", k.gvk.String(), "namespace", ns, "why", "its handler was not added", "error", rerr.Error())
		}
		return fmt.Errorf("cannot watch %s%s: %w", k.gvk, where, err)
	}
	if w.watched == nil {
		w.watched = map[watchKey]schema.GroupVersionResource{}
	}
	w.watched[k] = mapping.Resource
	return nil
}

// readWatched reads the object named key into obj (its kind and version set) from c, the cache
// of a watch started by startWatch in namespace ns ("": all namespaces), and returns c's error.
// The cache creates an informer on demand for a kind it does not watch: when the watch was
// stopped meanwhile (its version is no longer read, or access was revoked), that informer is
// removed and the result is errVersionChanged, so that nothing untracked keeps watching and the
// read resolves the kind again. Without a controller (nothing watched), it is c.Get.
func (r *Reader) readWatched(ctx, rctx context.Context, c cache.Cache, ns string, key client.ObjectKey, obj *unstructured.Unstructured) error {
	err := c.Get(rctx, key, obj)
	if r.controller == nil {
		return err
	}
	k := watchKey{gvk: obj.GroupVersionKind(), namespace: ns}
	w := &r.watches
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.watched[k]; ok {
		return err
	}
	stale := &unstructured.Unstructured{}
	stale.SetGroupVersionKind(k.gvk)
	if rerr := c.RemoveInformer(ctx, stale); rerr != nil {
		log.FromContext(ctx).Info("cannot stop a watch", "kind", k.gvk.String(), "namespace", ns, "why", "stopped while read", "error", rerr.Error())
	}
	return fmt.Errorf("cannot read %s: its watch stopped meanwhile: %w", k.gvk, errVersionChanged)
}

// stopWatches stops every recorded watch for which stop returns true: its informer is removed
// from its cache (the manager's for all namespaces, else the namespace's), so that its objects
// are never read again and it retries no list, and it is forgotten, so that a later read starts
// a new one. A watch whose informer cannot be removed is kept, and logged. It returns the keys
// stopped.
func (r *Reader) stopWatches(ctx context.Context, why string, stop func(watchKey) bool) []watchKey {
	r.watches.mu.Lock()
	defer r.watches.mu.Unlock()
	return r.stopWatchesLocked(ctx, why, stop)
}

// stopWatchesLocked is stopWatches with r.watches.mu held.
func (r *Reader) stopWatchesLocked(ctx context.Context, why string, stop func(watchKey) bool) []watchKey {
	w := &r.watches
	var stopped []watchKey
	for k := range w.watched {
		if !stop(k) {
			continue
		}
		c := r.Cache
		if k.namespace != "" {
			r.access.mu.Lock()
			c = r.access.caches[k.namespace]
			r.access.mu.Unlock()
		}
		if c != nil {
			obj := &unstructured.Unstructured{}
			obj.SetGroupVersionKind(k.gvk)
			if err := c.RemoveInformer(ctx, obj); err != nil {
				log.FromContext(ctx).Info("cannot stop a watch", "kind", k.gvk.String(), "namespace", k.namespace, "why", why, "error", err.Error())
				continue
			}
		}
		delete(w.watched, k)
		stopped = append(stopped, k)
		log.FromContext(ctx).Info("stopped a watch", "kind", k.gvk.String(), "namespace", k.namespace, "why", why)
	}
	return stopped
}

// WatchedVersions returns the versions of gk watched in any namespace, sorted, without repeats.
func (r *Reader) WatchedVersions(gk schema.GroupKind) []string {
	var vs []string
	for k := range r.watches.list() {
		if k.gvk.GroupKind() == gk {
			vs = append(vs, k.gvk.Version)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}
