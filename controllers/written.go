package controllers

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// writtenStatuses remembers, per Machine, the last status this controller wrote and the
// resourceVersion it was computed from. Until the cache shows a newer version of the Machine,
// a reconcile that computes that same status again is answered from here instead of sending a
// duplicate write (the cache lags behind our own writes).
type writtenStatuses struct {
	mu sync.Mutex
	m  map[types.NamespacedName]written
}

type written struct {
	// fromResourceVersion is the version of the Machine the status was computed from.
	fromResourceVersion string
	status              v1alpha1.MachineStatus
}

// alreadyWritten reports whether status was written from the version m still has in the cache.
func (w *writtenStatuses) alreadyWritten(m *v1alpha1.Machine, status *v1alpha1.MachineStatus) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := keyOf(m)
	last, ok := w.m[key]
	if ok && last.fromResourceVersion != m.ResourceVersion {
		// The cache has caught up (or someone else wrote): it alone decides from now on, and
		// nothing is kept for a Machine at rest.
		delete(w.m, key)
		return false
	}
	return ok && equality.Semantic.DeepEqual(last.status, *status)
}

// record remembers that status was written from the version before had.
func (w *writtenStatuses) record(before *v1alpha1.Machine, status *v1alpha1.MachineStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]written{}
	}
	w.m[keyOf(before)] = written{fromResourceVersion: before.ResourceVersion, status: *status.DeepCopy()}
}

// forget drops what is remembered about a Machine (it is gone).
func (w *writtenStatuses) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

func keyOf(m *v1alpha1.Machine) types.NamespacedName {
	return types.NamespacedName{Namespace: m.Namespace, Name: m.Name}
}
