package controllers

import (
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// lastWrites remembers, per object, the last value of type T this controller wrote and the
// resourceVersion that write produced. While the cache shows the object at an older version (the
// cache lags behind our own writes, one watch event at a time, and other writers' events come in
// between), the last written value, not the cached one, is what a reconcile compares with:
// computing it again sends no duplicate write, and a new write changes it. The zero value is
// ready to use.
type lastWrites[T any] struct {
	mu sync.Mutex
	m  map[types.NamespacedName]written[T]
}

type written[T any] struct {
	// from is the version the value was computed from; produced the version the write
	// produced ("" when unknown).
	from, produced string
	value          T
}

// get returns the value last written to key, and true, while the cache shows key at version
// rv, older than that write. Once the cache has caught up, key is forgotten: the cache alone
// decides, and nothing is kept for an object at rest.
func (w *lastWrites[T]) get(key types.NamespacedName, rv string) (T, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var zero T
	last, ok := w.m[key]
	if !ok {
		return zero, false
	}
	if !last.olderThanWrite(rv) {
		delete(w.m, key)
		return zero, false
	}
	return last.value, true
}

// olderThanWrite reports whether version rv is older than the one the last write produced.
// resourceVersions are compared as the integers etcd gives; a version that is not one (the API
// calls them opaque) is older only when it is the one the value was computed from.
func (last written[T]) olderThanWrite(rv string) bool {
	have, err1 := strconv.ParseUint(rv, 10, 64)
	produced, err2 := strconv.ParseUint(last.produced, 10, 64)
	if err1 != nil || err2 != nil {
		return rv == last.from
	}
	return have < produced
}

// put remembers that value was written to key, computed from version rv, and that the write
// produced version produced ("" when unknown).
func (w *lastWrites[T]) put(key types.NamespacedName, rv, produced string, value T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]written[T]{}
	}
	w.m[key] = written[T]{from: rv, produced: produced, value: value}
}

// forget drops what is remembered about key (the object is gone).
func (w *lastWrites[T]) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

// writtenStatuses is lastWrites for the statuses of machinestatus Machines.
type writtenStatuses struct {
	w lastWrites[v1alpha1.MachineStatus]
}

// lastWritten returns the status last written, while m (from the cache) has a version older
// than that write; nil otherwise.
func (w *writtenStatuses) lastWritten(m *v1alpha1.Machine) *v1alpha1.MachineStatus {
	s, ok := w.w.get(keyOf(m), m.ResourceVersion)
	if !ok {
		return nil
	}
	return s.DeepCopy()
}

// record remembers that status was written, computed from the version before had, and that the
// write produced version produced ("" when unknown).
func (w *writtenStatuses) record(before *v1alpha1.Machine, status *v1alpha1.MachineStatus, produced string) {
	w.w.put(keyOf(before), before.ResourceVersion, produced, *status.DeepCopy())
}

// forget drops what is remembered about a Machine (it is gone).
func (w *writtenStatuses) forget(key types.NamespacedName) { w.w.forget(key) }

func keyOf(m *v1alpha1.Machine) types.NamespacedName {
	return types.NamespacedName{Namespace: m.Namespace, Name: m.Name}
}
