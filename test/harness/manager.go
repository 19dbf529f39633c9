package harness

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// ManagerStopGrace is how long a manager may take to exit after SIGTERM (proc.Process.Stop).
const ManagerStopGrace = 10 * time.Second

// StartManager starts the manager binary (ManagerBin; when empty bin/manager, or $MANAGER_BIN:
// `make build` builds it) as its own process named name, logging to Dir/name.log, with --kubeconfig kubeconfig and
// --leader-election-namespace=ManagerNamespace followed by args (a later flag wins). The caller
// stops it (proc.Process.Stop). It returns an error when the binary is missing or cannot start.
func (e *Env) StartManager(name, kubeconfig string, args ...string) (*proc.Process, error) {
	bin := e.ManagerBin
	if bin == "" {
		var err error
		if bin, err = repo.Binary(e.Root, "MANAGER_BIN", filepath.Join("bin", "manager")); err != nil {
			return nil, err
		}
	}
	return proc.Start(proc.Options{
		Name:    name,
		Args:    append([]string{bin, "--kubeconfig", kubeconfig, "--leader-election-namespace=" + ManagerNamespace}, args...),
		LogPath: filepath.Join(e.Dir, name+".log"),
	})
}

// RunManager runs mgr in this process until the test ends, once setup (given the context that
// stops mgr, e.g. to register a reconciler) has succeeded; it fails t (Fatal) when setup fails,
// and (Error) when mgr, stopped at the end of the test, returns an error, named after name.
func RunManager(t testing.TB, name string, mgr ctrl.Manager, setup func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := setup(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager %s: %v", name, err)
		}
	})
}
