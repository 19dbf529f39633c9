//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/internal/quietlog"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

// TestNamespaceDeletionLogsNoError deletes a namespace whose Machines another finalizer keeps
// (and its content, as the namespace controller does). The manager sees them Deleted and emits events the API server refuses, because the namespace
// is being terminated: an expected, harmless rejection. The manager must log it quietly (below
// ERROR), and its log must hold no ERROR line at all (checkLog, with nothing allowed).
func TestNamespaceDeletionLogsNoError(t *testing.T) {
	ctx := t.Context()
	fx := newFixture(t, "nsdelete", 3)
	for _, name := range fx.names {
		if err := addFinalizer(ctx, fx.name, name); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, name := range fx.names {
			_ = removeFinalizer(context.Background(), fx.name, name)
		}
	})
	mgr := fx.startManager("")
	fx.waitStates(2*time.Minute, fx.all(healthy))

	if err := env.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fx.name}}); err != nil {
		t.Fatal(err)
	}
	// The namespace is Terminating: nothing new may be created in it. The test deletes its
	// content as kube-controller-manager's namespace controller would (the fleet runs none).
	for _, name := range fx.names {
		for _, obj := range []client.Object{
			&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name}},
			&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name}},
		} {
			if err := env.Client.Delete(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	harness.Wait(fx.t, time.Minute, "the held Machines to be Deleted", func(ctx context.Context) (bool, string) {
		ms, err := fx.list(ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, name := range fx.names {
			if m, ok := ms[name]; !ok || m.Status.Phase != v1alpha1.MachinePhaseDeleted {
				return false, name + " not Deleted yet"
			}
		}
		return true, ""
	})
	// The phase events (MachineDeleting, MachineDeleted, DeleteSucceeded) are refused; the
	// manager says so at debug level.
	harness.Wait(fx.t, time.Minute, "the manager to note the refused events", func(context.Context) (bool, string) {
		b, err := os.ReadFile(mgr.LogPath)
		if err != nil {
			return false, err.Error()
		}
		n := strings.Count(string(b), "event not recorded: its namespace is being deleted")
		return n >= len(fx.names), fmt.Sprintf("%d refused events noted", n)
	})
	if n, err := managerlog.Count(mgr.LogPath, quietlog.RejectedEventMessage); err != nil || n != 0 {
		t.Errorf("%d ERROR lines %q (err %v), want 0", n, quietlog.RejectedEventMessage, err)
	}
}
