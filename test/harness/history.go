package harness

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// History is every value a watch saw the objects of one kind in one namespace go through, by
// object name, from when WatchHistory started it.
type History struct {
	mu     sync.Mutex
	values map[string][]string
	err    error
	// last is the resourceVersion of the last event delivered, or the one the watch started at.
	last string
}

// WatchHistory lists the objects of list's kind in ns and watches them from that list's
// resourceVersion (WatchHistoryFrom) until t ends. It fails t when the list or the watch cannot
// start.
func (e *Env) WatchHistory(t testing.TB, list client.ObjectList, ns string, value func(client.Object) (string, bool)) *History {
	t.Helper()
	wc, err := client.NewWithWatch(e.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := wc.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return watchHistory(t, wc, list, ns, list.GetResourceVersion(), value)
}

// WatchHistoryFrom watches the objects of list's kind in ns from resourceVersion rv (client-go's
// RetryWatcher: a watch the API server closes is resumed, no change is missed) until t ends. For
// each object of each event it records value(obj) when ok, once per change of value (a value
// that comes back after another is recorded again). value must be safe to call from the watch's
// goroutine. It fails t when the watch cannot start.
func (e *Env) WatchHistoryFrom(t testing.TB, list client.ObjectList, ns, rv string, value func(client.Object) (string, bool)) *History {
	t.Helper()
	wc, err := client.NewWithWatch(e.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return watchHistory(t, wc, list, ns, rv, value)
}

// watchHistory is WatchHistoryFrom with its client.
func watchHistory(t testing.TB, wc client.WithWatch, list client.ObjectList, ns, rv string, value func(client.Object) (string, bool)) *History {
	t.Helper()
	empty, ok := list.DeepCopyObject().(client.ObjectList)
	if !ok {
		t.Fatalf("%T is no client.ObjectList", list)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, &toolscache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, lo metav1.ListOptions) (watch.Interface, error) {
			return wc.Watch(ctx, empty.DeepCopyObject().(client.ObjectList), client.InNamespace(ns), &client.ListOptions{Raw: &lo})
		},
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	h := &History{values: map[string][]string{}, last: rv}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Error:
				h.fail(fmt.Errorf("the watch failed: %w", apierrors.FromObject(ev.Object)))
			case watch.Added, watch.Modified, watch.Deleted:
				if obj, ok := ev.Object.(client.Object); ok {
					v, ok := value(obj)
					h.record(obj.GetName(), v, ok, obj.GetResourceVersion())
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
	})
	return h
}

// WaitDelivered waits until the watch has delivered the event of resourceVersion rv (at once when
// the watch started at rv), so that the values recorded include every change up to rv.
func (h *History) WaitDelivered(t testing.TB, rv string) {
	t.Helper()
	Wait(t, MachineTimeout, "the watch to deliver resourceVersion "+rv, func(context.Context) (bool, string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.last == rv, "last delivered " + h.last
	})
}

func (h *History) record(name, v string, ok bool, rv string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = rv
	if !ok {
		return
	}
	if seen := h.values[name]; len(seen) == 0 || seen[len(seen)-1] != v {
		h.values[name] = append(seen, v)
	}
}

func (h *History) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		h.err = err
	}
}

// Values returns the values recorded so far, by object name, in the order seen, and the first
// error the watch reported (nil when none).
func (h *History) Values() (map[string][]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string][]string, len(h.values))
	for name, v := range h.values {
		out[name] = slices.Clone(v)
	}
	return out, h.err
}

// Check fails t for every recorded value that allowed[name] does not hold (every value of an
// object allowed does not name), and for an error of the watch; what says names the values.
func (h *History) Check(t testing.TB, what string, allowed map[string][]string) {
	t.Helper()
	values, err := h.Values()
	if err != nil {
		t.Error(err)
	}
	bad := map[string][]string{}
	for name, vs := range values {
		for _, v := range vs {
			if !slices.Contains(allowed[name], v) {
				bad[name] = append(bad[name], v)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s no object may go through: %v\nevery one seen: %v", what, bad, values)
	}
}
