package controllers_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/test/harness"
)

// countingReconciler is a second reconciler on the manager's cache whose client counts every
// write it sends.
func countingReconciler(t *testing.T) (*controllers.MachineReconciler, *atomic.Int64) {
	t.Helper()
	var writes atomic.Int64
	base, err := client.NewWithWatch(managerConfig, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: mgr.GetCache()}})
	if err != nil {
		t.Fatal(err)
	}
	count := func() { writes.Add(1) }
	c := interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, o, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, o, p, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, o runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			count()
			return c.Apply(ctx, o, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, o client.Object, opts ...client.SubResourceUpdateOption) error {
			count()
			return c.SubResource(sub).Update(ctx, o, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, o runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			count()
			return c.SubResource(sub).Apply(ctx, o, opts...)
		},
	})
	return &controllers.MachineReconciler{
		Client: c, Cache: mgr.GetCache(), RESTMapper: mgr.GetRESTMapper(), Recorder: mgr.GetEventRecorder("test"),
	}, &writes
}

// TestNoWriteWithoutChange checks that reconciling a Machine whose status is already right
// sends nothing, and that a real change sends exactly one write.
func TestNoWriteWithoutChange(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	pid := "fake://" + ns + "/idle"
	env.CreateInfra(t, ns, "idle", map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, ns+"-idle", pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	env.Create(t, harness.NewMachine(ns, "idle"))
	env.WaitPhase(t, ns, "idle", v1alpha1.MachinePhaseRunning)

	r, writes := countingReconciler(t)
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "idle"}}
	// Running is reached before the manager's last writes of the Machine's first minutes reach
	// the cache (under load, seconds later): wait until a reconcile changes nothing, so that the
	// count below is about a steady Machine. A reconciler that writes every time never gets there.
	harness.Wait(t, harness.MachineTimeout, "a reconcile of the Running Machine that writes nothing", func(context.Context) (bool, string) {
		writes.Store(0)
		if _, err := r.Reconcile(ctx, req); err != nil {
			return false, err.Error()
		}
		return writes.Load() == 0, fmt.Sprintf("%d writes", writes.Load())
	})
	before := env.GetMachine(t, ns, "idle")
	for range 20 {
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("20 reconciles of an unchanged Machine sent %d writes, want 0", n)
	}
	if after := env.GetMachine(t, ns, "idle"); after.ResourceVersion != before.ResourceVersion {
		t.Fatalf("resourceVersion moved from %s to %s without a change", before.ResourceVersion, after.ResourceVersion)
	}

	// A real change (the Node is cordoned) is one write, however often it is reconciled.
	env.UpdateNode(t, ns+"-idle", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	harness.Wait(t, harness.MachineTimeout, "the cache to see the cordon", func(context.Context) (bool, string) {
		n := &corev1.Node{}
		if err := mgr.GetCache().Get(ctx, client.ObjectKey{Name: ns + "-idle"}, n); err != nil || !n.Spec.Unschedulable {
			return false, "not yet"
		}
		return true, ""
	})
	// Stop the manager's own reconciler from racing: compare the written status instead.
	env.WaitPhase(t, ns, "idle", v1alpha1.MachinePhaseDraining)
	writes.Store(0)
	for range 5 {
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("reconciles after the change was written sent %d writes, want 0", n)
	}
}

// TestOtherWritersConditionsKept checks that a condition another controller wrote on the
// Machine survives the controller's own status writes, and feeds Ready as a readiness gate.
func TestOtherWritersConditionsKept(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	pid := "fake://" + ns + "/gated"
	env.CreateInfra(t, ns, "gated", map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, ns+"-gated", pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	m := harness.NewMachine(ns, "gated")
	m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: "example.com/Networked"}}
	env.Create(t, m)
	env.WaitPhase(t, ns, "gated", v1alpha1.MachinePhaseRunning)

	// Another controller applies its own condition with its own field manager.
	other := env.GetMachine(t, ns, "gated")
	if _, err := conditions.MarkFalse(other, "example.com/Networked", "LinkDown", "no carrier"); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Status().Update(ctx, other, client.FieldOwner("network-controller")); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, harness.MachineTimeout, "Ready=False from the gate", func(context.Context) (bool, string) {
		got := env.GetMachine(t, ns, "gated")
		if !conditions.IsFalse(got, v1alpha1.MachineReadyCondition) {
			return false, harness.Describe(got)
		}
		return true, ""
	})

	// The controller writes again (a Node change); the other condition must still be there.
	env.UpdateNode(t, ns+"-gated", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	got := env.WaitPhase(t, ns, "gated", v1alpha1.MachinePhaseDraining)
	c := conditions.Get(got, "example.com/Networked")
	if c == nil || c.Reason != "LinkDown" || c.Status != metav1.ConditionFalse {
		t.Fatalf("the other writer's condition was lost or changed: %+v", c)
	}
}
