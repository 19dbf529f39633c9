//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/proc"
)

// managerStopGrace is how long a manager may take to exit after SIGTERM.
const managerStopGrace = 10 * time.Second

// managerSeq numbers the managers' log files.
var managerSeq atomic.Int32

// manager is a bin/manager process started by a test.
type manager struct {
	*proc.Process
	// metricsURL is its Prometheus endpoint.
	metricsURL string
}

// startManager starts bin/manager for the fixture's Machines (--machine-selector), with its
// metrics on a free local port, talking to the API server through kubeconfig (empty: the
// admin kubeconfig), with extra flags. The test's cleanup stops it.
func (fx *fixture) startManager(kubeconfig string, extra ...string) *manager {
	fx.t.Helper()
	m, err := fx.launchManager(kubeconfig, extra...)
	if err != nil {
		fx.t.Fatal(err)
	}
	return m
}

// launchManager is startManager that returns its error instead of failing the test, so that
// other goroutines than the test's may call it.
func (fx *fixture) launchManager(kubeconfig string, extra ...string) (*manager, error) {
	port, err := host.FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--machine-selector=" + fx.selector(),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port),
		// Plain HTTP: these tests read the metrics while the API server is down, when the
		// default (authenticated by the API server) could not answer. test/metrics covers it.
		"--metrics-secure=false",
		"--health-probe-bind-address=0",
	}, extra...)
	name := fmt.Sprintf("%s-manager-%d", fx.name, managerSeq.Add(1))
	p, err := env.StartManager(name, kubeconfig, args...)
	if err != nil {
		return nil, err
	}
	fx.t.Cleanup(func() {
		p.Stop(managerStopGrace)
		fx.checkLog(p.Name, p.LogPath)
	})
	fx.t.Logf("started %s (pid %d, log %s)", name, p.Pid(), p.LogPath)
	return &manager{Process: p, metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)}, nil
}

// kill sends SIGKILL to the manager's process group and waits until it is reaped.
func (m *manager) kill() {
	_ = syscall.Kill(-m.Pid(), syscall.SIGKILL)
	<-m.Done()
}

// alive reports whether the process has not exited.
func (m *manager) alive() bool {
	select {
	case <-m.Done():
		return false
	default:
		return true
	}
}

// metric sums the samples of family name whose labels include want, from the manager's
// metrics endpoint.
func (m *manager) metric(ctx context.Context, name string, want map[string]string) (float64, error) {
	fams, err := metricstest.Fetch(ctx, nil, m.metricsURL, "")
	if err != nil {
		return 0, err
	}
	return fams.Sum(name, want), nil
}

// reconciles returns how many reconciles of the machine controller the manager has finished.
func (m *manager) reconciles(ctx context.Context) (int, error) {
	v, err := m.metric(ctx, "controller_runtime_reconcile_total", map[string]string{"controller": "machine"})
	return int(v), err
}

// waitReconciled waits until the manager has finished at least n reconciles.
func (fx *fixture) waitReconciled(m *manager, n int) {
	fx.t.Helper()
	harness.Wait(fx.t, 2*time.Minute, fmt.Sprintf("%s to finish %d reconciles", m.Name, n), func(ctx context.Context) (bool, string) {
		if !m.alive() {
			fx.t.Fatalf("%s exited: %v\n%s", m.Name, m.ExitError(), m.Tail(20))
		}
		got, err := m.reconciles(ctx)
		if err != nil {
			return false, err.Error()
		}
		return got >= n, fmt.Sprintf("%d reconciles", got)
	})
}

// requireAlive fails the test when the manager has exited.
func requireAlive(t *testing.T, m *manager) {
	t.Helper()
	if !m.alive() {
		t.Fatalf("%s exited: %v\n%s", m.Name, m.ExitError(), m.Tail(20))
	}
}

// allowErrors explains ERROR lines the test's fault makes its managers log (each with why).
func (fx *fixture) allowErrors(a ...managerlog.Allowed) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	fx.allowed = append(fx.allowed, a...)
}

// checkLog fails the test when the log of manager name holds an ERROR line that neither
// managerlog.Always nor the test's allowErrors explains: every ERROR must be something an
// operator must act on (docs/operating.md, "Reliability").
func (fx *fixture) checkLog(name, path string) {
	fx.mu.Lock()
	allowed := slices.Clone(fx.allowed)
	fx.mu.Unlock()
	lines, err := managerlog.Unexpected(path, allowed...)
	if err != nil {
		fx.t.Error(err)
		return
	}
	if len(lines) > 0 {
		fx.t.Errorf("%s logged %d unexpected ERROR lines (%s), e.g.:\n%s", name, len(lines), path, strings.Join(lines[:min(len(lines), 5)], "\n"))
	}
}
