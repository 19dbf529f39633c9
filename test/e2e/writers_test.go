package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

const (
	alpha = "a.example.com/Alpha"
	beta  = "b.example.com/Beta"
)

// write records one successful write of a condition: the resourceVersion it produced and the
// message it set.
type write struct {
	rv  int64
	msg string
}

// patchWriter decides a new condition on the Machine as it reads it, and writes it with a
// three-way conditions.Patch and an optimistic-lock update, retrying on both kinds of conflict.
type patchWriter struct {
	name      string
	writes    []write
	conflicts int // conditions.ConflictError: another writer changed the type since we read it
	stale     int // 409 from the API server: the object changed between Apply and Update
}

// decide reads the Machine and computes the patch that sets typ to msg.
func (w *patchWriter) decide(ctx context.Context, key client.ObjectKey, typ, msg string) (conditions.Patch, error) {
	m := &v1alpha1.Machine{}
	if err := k8s.Get(ctx, key, m); err != nil {
		return nil, err
	}
	after := m.DeepCopy()
	if _, err := conditions.MarkTrue(after, typ, "Written", msg); err != nil {
		return nil, err
	}
	return conditions.NewPatch(m, after)
}

// commit applies p to the latest Machine and updates it; it returns the conflicts it met.
func (w *patchWriter) commit(ctx context.Context, key client.ObjectKey, p conditions.Patch, msg string) error {
	for {
		m := &v1alpha1.Machine{}
		if err := k8s.Get(ctx, key, m); err != nil {
			return err
		}
		if err := p.Apply(m); err != nil {
			return err // a *conditions.ConflictError: the caller decides again
		}
		err := k8s.Status().Update(ctx, m, client.FieldOwner(w.name))
		if apierrors.IsConflict(err) {
			w.stale++
			continue
		}
		if err != nil {
			return err
		}
		rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
		w.writes = append(w.writes, write{rv, msg})
		return nil
	}
}

// set decides and commits until the write lands, deciding again after each ConflictError.
func (w *patchWriter) set(ctx context.Context, key client.ObjectKey, typ, msg string) error {
	for {
		p, err := w.decide(ctx, key, typ, msg)
		if err != nil {
			return err
		}
		err = w.commit(ctx, key, p, msg)
		var conflict *conditions.ConflictError
		if errors.As(err, &conflict) {
			w.conflicts++
			continue
		}
		return err
	}
}

// ssaWriter sets its condition with server-side apply under its own field manager.
func ssaSet(ctx context.Context, key client.ObjectKey, typ, msg string) (write, error) {
	c := metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Written", Message: msg,
		LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(), "kind": "Machine",
		"metadata": map[string]any{"name": key.Name, "namespace": key.Namespace},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message,
			"lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339),
		}}},
	}}
	if err := k8s.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("writer-b")); err != nil {
		return write{}, err
	}
	rv, _ := strconv.ParseInt(u.GetResourceVersion(), 10, 64)
	return write{rv, msg}, nil
}

// TestConcurrentWriters: writer A (three-way patch + update) and writer B (server-side apply)
// update different condition types of one Machine 200 times each, concurrently; writer C fights
// A over A's type with patches of its own. Every final condition from A and B is present, C
// meets conflicts it retries, and the type A and C share ends as the write with the highest
// resourceVersion: no update was lost.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	key := keyOf(newMachine(t, ns, "shared"))
	const n = 200

	a := &patchWriter{name: "writer-a"}
	c := &patchWriter{name: "writer-c"}
	var bWrites []write
	aWrote := make(chan struct{}, 1)
	aDone := make(chan struct{})
	errs := make(chan error, 3)
	var wg sync.WaitGroup

	wg.Add(3)
	go func() { // A
		defer wg.Done()
		defer close(aDone)
		for i := range n {
			if err := a.set(ctx, key, alpha, fmt.Sprintf("a-%d", i)); err != nil {
				errs <- fmt.Errorf("writer A: %w", err)
				return
			}
			select {
			case aWrote <- struct{}{}:
			default:
			}
		}
	}()
	go func() { // B
		defer wg.Done()
		for i := range n {
			w, err := ssaSet(ctx, key, beta, fmt.Sprintf("b-%d", i))
			if err != nil {
				errs <- fmt.Errorf("writer B: %w", err)
				return
			}
			bWrites = append(bWrites, w)
		}
	}()
	go func() { // C: decide, let A write in between, then commit: a guaranteed conflict.
		defer wg.Done()
		forced := 0
		for r := 0; r < 20; r++ {
			msg := fmt.Sprintf("c-%d", r)
			p, err := c.decide(ctx, key, alpha, msg)
			if err != nil {
				errs <- fmt.Errorf("writer C: %w", err)
				return
			}
			select {
			case <-aWrote: // drain a stale signal, then wait for a fresh write by A
			default:
			}
			select {
			case <-aWrote:
				forced++
			case <-aDone:
			}
			err = c.commit(ctx, key, p, msg)
			var conflict *conditions.ConflictError
			if errors.As(err, &conflict) {
				c.conflicts++
				err = c.set(ctx, key, alpha, msg)
			}
			if err != nil {
				errs <- fmt.Errorf("writer C: %w", err)
				return
			}
		}
		if forced > 0 && c.conflicts == 0 {
			errs <- fmt.Errorf("writer C committed %d stale decisions without a single conflict", forced)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	m := &v1alpha1.Machine{}
	if err := k8s.Get(ctx, key, m); err != nil {
		t.Fatal(err)
	}
	if got := conditions.GetMessage(m, beta); got != fmt.Sprintf("b-%d", n-1) {
		t.Errorf("writer B's final condition: got %q, want b-%d", got, n-1)
	}
	if len(a.writes) != n || len(bWrites) != n {
		t.Errorf("writes landed: A %d, B %d, want %d each", len(a.writes), len(bWrites), n)
	}
	last := write{}
	for _, w := range append(append([]write(nil), a.writes...), c.writes...) {
		if w.rv > last.rv {
			last = w
		}
	}
	if got := conditions.GetMessage(m, alpha); got != last.msg {
		t.Errorf("shared type %s ends as %q, but the last write to land was %q (rv %d): an update was lost", alpha, got, last.msg, last.rv)
	}
	if c.conflicts == 0 {
		t.Errorf("writer C met no conflict while fighting writer A")
	}
	t.Logf("A: %d writes, %d conflicts, %d stale updates; C: %d writes, %d conflicts, %d stale updates; B: %d applies",
		len(a.writes), a.conflicts, a.stale, len(c.writes), c.conflicts, c.stale, len(bWrites))
}
