//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// holdFinalizer is another controller's finalizer (the test's) on some Machines.
const holdFinalizer = "test.example/hold"

// goneWithin bounds how long a Machine free of finalizers may take to disappear.
const goneWithin = 30 * time.Second

// TestDeletionNeverBlocked deletes Machines while the manager is stopped, running, and
// crash-looping (killed with SIGKILL and restarted over and over), half of them held by
// another finalizer. A Machine without that finalizer must disappear at once, a held one as
// soon as the finalizer is removed, and no finalizer but the test's may ever appear on any
// Machine (the watch sees every version).
func TestDeletionNeverBlocked(t *testing.T) {
	fig := figures.section(t, "deletion")
	ctx := t.Context()
	modes := []string{"manager stopped", "manager running", "manager crash-looping"}
	const perMode = 6
	fx := newFixture(t, "deletion", perMode*len(modes))
	finalizers := watchFinalizers(t, fx.name)
	held := map[string]bool{}
	for i, name := range fx.names {
		if i%2 == 0 {
			held[name] = true
			if err := addFinalizer(ctx, fx.name, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	mgr := fx.startManager("")
	fx.waitStates(2*time.Minute, fx.all(healthy))

	var slowest time.Duration
	deleted := 0
	for i, mode := range modes {
		group := fx.names[i*perMode : (i+1)*perMode]
		var stopLoop func() int
		switch mode {
		case "manager stopped":
			mgr.kill()
		case "manager running":
			mgr = fx.startManager("")
			fx.waitReconciled(mgr, 1)
		case "manager crash-looping":
			mgr.kill()
			stopLoop = fx.crashLoop()
		}
		for _, name := range group {
			if err := env.Client.Delete(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name}}); err != nil {
				t.Fatal(err)
			}
		}
		// Unheld Machines go at once; held ones stay, marked for deletion.
		for _, name := range group {
			if held[name] {
				continue
			}
			if _, err := waitGone(ctx, fx.name, name); err != nil {
				t.Fatalf("%s: Machine %s without other finalizers: %v", mode, name, err)
			}
			deleted++
		}
		if mode == "manager running" {
			harness.Wait(fx.t, time.Minute, "the held Machines to be Deleting", func(ctx context.Context) (bool, string) {
				ms, err := fx.list(ctx)
				if err != nil {
					return false, err.Error()
				}
				for _, name := range group {
					if m, ok := ms[name]; held[name] && (!ok || m.Status.Phase != v1alpha1.MachinePhaseDeleting) {
						return false, fmt.Sprintf("%s not Deleting yet", name)
					}
				}
				return true, ""
			})
		} else {
			time.Sleep(2 * time.Second) // let the crash-looping managers see the deletions
		}
		for _, name := range group {
			if !held[name] {
				continue
			}
			m := &v1alpha1.Machine{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: fx.name, Name: name}, m); err != nil {
				t.Fatalf("%s: held Machine %s: %v", mode, name, err)
			}
			if m.DeletionTimestamp == nil {
				t.Fatalf("%s: held Machine %s is not marked for deletion", mode, name)
			}
			if err := removeFinalizer(ctx, fx.name, name); err != nil {
				t.Fatal(err)
			}
			took, err := waitGone(ctx, fx.name, name)
			if err != nil {
				t.Fatalf("%s: Machine %s after its last other finalizer was removed: %v", mode, name, err)
			}
			slowest = max(slowest, took)
			deleted++
		}
		if stopLoop != nil {
			fig("manager restarts (each killed with SIGKILL) while deleting", "%d", stopLoop())
		}
	}
	seen := finalizers()
	if len(seen) != 1 || seen[0] != holdFinalizer {
		t.Errorf("finalizers seen on the Machines: %v, want only %s", seen, holdFinalizer)
	}

	fig("Machines deleted (half held by "+holdFinalizer+")", "%d of %d: %d each with the manager stopped, running, crash-looping", deleted, len(fx.names), perMode)
	fig("finalizers the manager added", "%d (seen on any version of any Machine: %v)", len(seen)-1, seen)
	fig("held Machine: finalizer removed → gone (slowest)", "%s (bound %s)", slowest.Round(time.Millisecond), goneWithin)
}

// addFinalizer adds holdFinalizer to Machine ns/name.
func addFinalizer(ctx context.Context, ns, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &v1alpha1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return err
		}
		controllerutil.AddFinalizer(m, holdFinalizer)
		return env.Client.Update(ctx, m)
	})
}

// removeFinalizer removes holdFinalizer (only it) from Machine ns/name.
func removeFinalizer(ctx context.Context, ns, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &v1alpha1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return err
		}
		controllerutil.RemoveFinalizer(m, holdFinalizer)
		return env.Client.Update(ctx, m)
	})
}

// waitGone polls every 20 ms until Machine ns/name is gone, at most goneWithin, and returns how
// long it took.
func waitGone(ctx context.Context, ns, name string) (time.Duration, error) {
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, goneWithin, true, func(ctx context.Context) (bool, error) {
		return gone(ctx, ns, name)
	})
	if err != nil {
		return 0, fmt.Errorf("still there after %s: %w", goneWithin, err)
	}
	return time.Since(start), nil
}

// crashLoop starts a manager and kills it with SIGKILL after 0.5–2 s, over and over, until
// the returned function is called; that function stops the loop and returns the number of
// managers killed, or fails the test when one could not be started.
func (fx *fixture) crashLoop() func() int {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	kills := 0
	var startErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			m, err := fx.launchManager("")
			if err != nil {
				startErr = err
				return
			}
			select {
			case <-stop:
				m.kill()
				kills++
				return
			case <-time.After(500*time.Millisecond + time.Duration(i%4)*500*time.Millisecond):
			}
			m.kill()
			kills++
		}
	}()
	return func() int {
		fx.t.Helper()
		close(stop)
		wg.Wait()
		if startErr != nil {
			fx.t.Fatal(startErr)
		}
		return kills
	}
}

// watchFinalizers watches the Machines of namespace ns from now on and returns a function
// that lists every finalizer seen on any version of any of them.
func watchFinalizers(t *testing.T, ns string) func() []string {
	t.Helper()
	wc, err := client.NewWithWatch(env.CP.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(t.Context(), &v1alpha1.MachineList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	var mu sync.Mutex
	seen := map[string]bool{}
	go func() {
		for ev := range w.ResultChan() {
			if m, ok := ev.Object.(*v1alpha1.Machine); ok {
				mu.Lock()
				for _, f := range m.Finalizers {
					seen[f] = true
				}
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := sortedKeys(seen)
		slices.Sort(out)
		return out
	}
}
