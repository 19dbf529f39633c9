package controllers

import (
	"context"
	"fmt"
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
// starts or stops, so that stopping a version (versions.go) or a scope (an access revoked) stops
// every watch of it, in every scope, and a new version gets new watches in every scope.

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
	// crdKinds are the kinds ever seen defined by a CRD.
	crdKinds map[schema.GroupKind]bool
}

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

// crdKind reports whether gk was ever seen defined by a CRD, recording it when seen is true.
func (w *watchSet) crdKind(gk schema.GroupKind, seen bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.crdKinds == nil {
		w.crdKinds = map[schema.GroupKind]bool{}
	}
	if seen {
		w.crdKinds[gk] = true
	}
	return w.crdKinds[gk]
}

// startWatch starts watching mapping's kind, at mapping's version, in namespace ns ("": all
// namespaces) through c, once: changes to referenced objects then reconcile the Machines that
// reference them. It returns the controller's error when the watch cannot be added.
func (r *MachineReconciler) startWatch(mapping *meta.RESTMapping, ns string, c cache.Cache) error {
	w := &r.watches
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{gvk: mapping.GroupVersionKind, namespace: ns}
	if _, ok := w.watched[k]; ok || r.controller == nil {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(k.gvk)
	src := source.Kind[client.Object](c, obj, handler.EnqueueRequestsFromMapFunc(r.machinesForRef))
	if err := r.controller.Watch(src); err != nil {
		if ns == "" {
			return fmt.Errorf("cannot watch %s: %w", k.gvk, err)
		}
		return fmt.Errorf("cannot watch %s in namespace %s: %w", k.gvk, ns, err)
	}
	if w.watched == nil {
		w.watched = map[watchKey]schema.GroupVersionResource{}
	}
	w.watched[k] = mapping.Resource
	return nil
}

// stopWatches stops every recorded watch for which stop returns true: its informer is removed
// from its cache (the manager's for all namespaces, else the namespace's), so that its objects
// are never read again and it retries no list, and it is forgotten, so that a later read starts
// a new one. A watch whose informer cannot be removed is kept, and logged. It returns the keys
// stopped.
func (r *MachineReconciler) stopWatches(ctx context.Context, why string, stop func(watchKey) bool) []watchKey {
	w := &r.watches
	w.mu.Lock()
	defer w.mu.Unlock()
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
