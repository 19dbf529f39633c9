package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/test/harness"
)

// startShard runs a manager that reconciles only the Machines matching selector and writes
// status as fieldOwner, until the test ends.
func startShard(t *testing.T, selector, fieldOwner string) {
	t.Helper()
	sel, err := labels.Parse(selector)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  controllers.CacheOptions(sel, true),
		// Two managers in one test process register the same controller name.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &controllers.MachineReconciler{
		Client: mgr.GetClient(), Cache: mgr.GetCache(), RESTMapper: mgr.GetRESTMapper(),
		Recorder: mgr.GetEventRecorder(fieldOwner), FieldOwner: fieldOwner,
	}
	harness.RunManager(t, fieldOwner, mgr, func(ctx context.Context) error { return r.SetupWithManager(ctx, mgr) })
}

// TestShardsSplitAFleet: two managers with disjoint --machine-selector values against one API
// server; every Machine gets a status, written by exactly one of them.
func TestShardsSplitAFleet(t *testing.T) {
	ns := env.Namespace(t)
	startShard(t, "pool=a", "shard-a")
	startShard(t, "pool=b", "shard-b")

	want := map[string]string{}
	for i := range 20 {
		pool := []string{"a", "b"}[i%2]
		name := fmt.Sprintf("m-%d", i)
		m := newMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Labels = map[string]string{"pool": pool} })
		want[m.Name] = "shard-" + pool
	}
	unowned := newMachine(t, ns, "no-pool")

	harness.Wait(t, 2*time.Minute, "every Machine of a shard to get a status", func(ctx context.Context) (bool, string) {
		list := &v1alpha1.MachineList{}
		if err := k8s.List(ctx, list); err != nil {
			return false, err.Error()
		}
		pending := 0
		for _, m := range list.Items {
			if m.Namespace != ns {
				continue
			}
			writers := statusWriters(m.ManagedFields)
			switch {
			case m.Name == unowned.Name && len(writers) > 0:
				t.Fatalf("Machine %s matches no selector but was written by %v", m.Name, writers)
			case m.Name == unowned.Name:
			case len(writers) == 0 || m.Status.Phase == "":
				pending++
			case len(writers) != 1 || writers[0] != want[m.Name]:
				t.Fatalf("Machine %s written by %v, want only %s", m.Name, writers, want[m.Name])
			}
		}
		return pending == 0, fmt.Sprintf("%d Machines still without status", pending)
	})
}

// statusWriters lists the field managers that own fields of the status subresource.
func statusWriters(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Subresource == "status" {
			out = append(out, e.Manager)
		}
	}
	return out
}
