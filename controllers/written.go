package controllers

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// writtenStatuses remembers, per Machine, the last status this controller wrote and the
// versions of the Machine the cache may still show until it has caught up with that write: the
// versions statuses were computed from and those earlier writes produced. While the cache shows
// one of them, the last written status, not the cached one, is what a reconcile compares with:
// computing it again sends no duplicate write, and a new write changes it (the cache lags
// behind our own writes, one watch event at a time).
type writtenStatuses struct {
	mu sync.Mutex
	m  map[types.NamespacedName]written
}

type written struct {
	// lagging are versions older than the last write (see writtenStatuses).
	lagging []string
	// produced is the version the last write produced; "" when unknown.
	produced string
	status   v1alpha1.MachineStatus
}

// lastWritten returns the status last written, while m (from the cache) has a version older
// than that write; nil otherwise. Once the cache has caught up (or someone else wrote), the
// Machine is forgotten: the cache alone decides, and nothing is kept for a Machine at rest.
func (w *writtenStatuses) lastWritten(m *v1alpha1.Machine) *v1alpha1.MachineStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := keyOf(m)
	last, ok := w.m[key]
	if !ok {
		return nil
	}
	if !slices.Contains(last.lagging, m.ResourceVersion) {
		delete(w.m, key)
		return nil
	}
	return last.status.DeepCopy()
}

// record remembers that status was written, computed from the version before had, and that the
// write produced version produced ("" when unknown).
func (w *writtenStatuses) record(before *v1alpha1.Machine, status *v1alpha1.MachineStatus, produced string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]written{}
	}
	key := keyOf(before)
	last, ok := w.m[key]
	if !ok || !slices.Contains(last.lagging, before.ResourceVersion) {
		last = written{}
	}
	last.lagging = append(last.lagging, before.ResourceVersion)
	if last.produced != "" {
		last.lagging = append(last.lagging, last.produced)
	}
	last.produced, last.status = produced, *status.DeepCopy()
	w.m[key] = last
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
