package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/config/samples/infra"
	"github.com/machinestatus/machinestatus/internal/embedded"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/infra/controller"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// managerStopGrace is how long the manager may take to exit after SIGTERM.
const managerStopGrace = 10 * time.Second

// env is everything the demo started.
type env struct {
	o          options
	root       string
	stateDir   string
	kubeconfig string
	kubectlBin string

	cp       *embedded.ControlPlane
	kwok     *proc.Process
	manager  *proc.Process
	provider *inProcess
	c        client.Client
	log      *os.File
}

// inProcess is the simulated provider's controller-runtime manager, run in this process.
type inProcess struct {
	cancel context.CancelFunc
	done   chan error
}

// startEnv starts the control plane, kwok, the manager and the simulated provider, in that
// order. On error it stops what it started.
func startEnv(ctx context.Context, o options) (e *env, err error) {
	e = &env{o: o}
	defer func() {
		if err != nil {
			e.stop()
			e = nil
		}
	}()

	// Find every binary first, so that a missing one fails before anything starts.
	if e.root, err = repo.Root(); err != nil {
		return e, err
	}
	e.stateDir = inRoot(e.root, o.stateDir)
	e.kubeconfig = filepath.Join(e.stateDir, "kubeconfig")
	if e.kubectlBin, err = repo.Binary(e.root, "KUBECTL_BIN", "bin/k8s/kubectl"); err != nil {
		return e, err
	}
	kwokBin, err := repo.Binary(e.root, "KWOK_BIN", "bin/kwok")
	if err != nil {
		return e, err
	}
	managerBin, err := repo.Binary(e.root, "MANAGER_BIN", o.manager)
	if err != nil {
		return e, err
	}
	stagesDir, err := kwok.StagesDir(e.root)
	if err != nil {
		return e, err
	}
	if err := os.MkdirAll(e.stateDir, 0o755); err != nil {
		return e, fmt.Errorf("cannot create %s: %w", e.stateDir, err)
	}

	// The in-process provider and client-go log to a file, not over the demo's output.
	if e.log, err = os.Create(filepath.Join(e.stateDir, "provider.log")); err != nil {
		return e, fmt.Errorf("cannot create the provider log: %w", err)
	}
	logger := zap.New(zap.WriteTo(e.log), zap.UseDevMode(true))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	banner("Setup")
	crds, err := loadCRDs()
	if err != nil {
		return e, err
	}
	assets := os.Getenv(embedded.AssetsEnv)
	if assets == "" {
		assets = filepath.Join(e.root, "bin", "k8s")
	}
	t := time.Now()
	e.cp, err = embedded.Start(embedded.Options{AssetsDir: assets, CRDs: crds, KubeconfigPath: e.kubeconfig})
	if err != nil {
		return e, err
	}
	if ctx.Err() != nil {
		return e, context.Cause(ctx)
	}
	fmt.Printf("kube-apiserver + etcd from %s at %s (%s); CRDs machines.machinestatus.io, simmachines.infrastructure.machinestatus.io\n",
		rel(e.root, assets), e.cp.Config.Host, time.Since(t).Round(100*time.Millisecond))
	fmt.Printf("kubeconfig: %s  (below, `kubectl` means %s --kubeconfig %s)\n",
		rel(e.root, e.kubeconfig), rel(e.root, e.kubectlBin), rel(e.root, e.kubeconfig))

	kopts := kwok.Options{
		Binary: kwokBin, Kubeconfig: e.kubeconfig, StagesDir: stagesDir,
		LogPath: filepath.Join(e.stateDir, "kwok.log"),
	}
	if e.kwok, err = kwok.Start(kopts); err != nil {
		return e, err
	}
	fmt.Printf("kwok (pid %d, log %s):\n  %s\n  with stdin = test/kwok/stages/node-not-ready.yaml\n",
		e.kwok.Pid(), rel(e.root, e.kwok.LogPath), rel(e.root, strings.Join(kwok.Args(kopts), " ")))

	e.manager, err = proc.Start(proc.Options{
		Name: "manager",
		Args: []string{managerBin, "--kubeconfig", e.kubeconfig,
			"--metrics-bind-address=0", "--health-probe-bind-address=0"},
		LogPath: filepath.Join(e.stateDir, "manager.log"),
	})
	if err != nil {
		return e, err
	}
	fmt.Printf("manager (pid %d, log %s): %s --kubeconfig %s --metrics-bind-address=0 --health-probe-bind-address=0\n",
		e.manager.Pid(), rel(e.root, e.manager.LogPath), rel(e.root, managerBin), rel(e.root, e.kubeconfig))

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, infrav1.AddToScheme} {
		if err := add(scheme); err != nil {
			return e, fmt.Errorf("cannot build the scheme: %w", err)
		}
	}
	if e.provider, err = startProvider(e.cp, scheme); err != nil {
		return e, err
	}
	fmt.Printf("simulated infrastructure provider (test/infra/controller): in this process, log %s\n",
		rel(e.root, e.log.Name()))
	if e.c, err = client.New(e.cp.Config, client.Options{Scheme: scheme}); err != nil {
		return e, fmt.Errorf("cannot create a client: %w", err)
	}
	return e, nil
}

func loadCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	machines, err := embedded.LoadCRDs(crd.Bases)
	if err != nil {
		return nil, err
	}
	sims, err := embedded.LoadCRDs(infra.CRDs)
	if err != nil {
		return nil, err
	}
	return append(machines, sims...), nil
}

func startProvider(cp *embedded.ControlPlane, scheme *runtime.Scheme) (*inProcess, error) {
	mgr, err := ctrl.NewManager(cp.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create the simulated provider: %w", err)
	}
	if err := (&controller.SimMachineReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &inProcess{cancel: cancel, done: make(chan error, 1)}
	go func() { p.done <- mgr.Start(ctx) }()
	return p, nil
}

// watch cancels the demo when kwok, the manager or the provider stops on its own.
func (e *env) watch(ctx context.Context, cancel context.CancelCauseFunc) {
	select {
	case <-ctx.Done():
	case <-e.kwok.Done():
		cancel(e.kwok.ExitError())
	case <-e.manager.Done():
		cancel(e.manager.ExitError())
	case err := <-e.provider.done:
		e.provider.done <- err // for stop
		cancel(fmt.Errorf("the simulated provider stopped: %v", err))
	}
}

// stop stops everything that was started, in reverse order, and reports what went wrong.
func (e *env) stop() {
	if e == nil {
		return
	}
	fmt.Println("\nStopping the manager, kwok, the simulated provider and the control plane...")
	e.manager.Stop(managerStopGrace)
	e.kwok.Stop(kwok.StopGrace)
	if e.provider != nil {
		e.provider.cancel()
		select {
		case err := <-e.provider.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(os.Stderr, "the simulated provider: %v\n", err)
			}
		case <-time.After(10 * time.Second):
			fmt.Fprintln(os.Stderr, "the simulated provider did not stop within 10s")
		}
	}
	if err := e.cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "cannot stop the control plane cleanly: %v\n", err)
	}
	if e.log != nil {
		_ = e.log.Close()
	}
}

// logHint names the logs, with the manager's last lines, for failure messages.
func (e *env) logHint() string {
	var b strings.Builder
	if e.manager != nil {
		fmt.Fprintf(&b, "last lines of %s:\n%s\n", rel(e.root, e.manager.LogPath), indent(e.manager.Tail(15), "  "))
	}
	fmt.Fprintf(&b, "logs: %s", rel(e.root, e.stateDir))
	return b.String()
}

// inRoot resolves a path given relative to the repository root.
func inRoot(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

// rel shortens the repository root out of s, for display.
func rel(root, s string) string {
	return strings.ReplaceAll(s, root+string(filepath.Separator), "")
}

func indent(s, prefix string) string {
	if s == "" {
		return s
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
