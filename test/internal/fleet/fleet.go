// Package fleet starts what the demo and the scale harness run against: kube-apiserver + etcd
// (test/embedded), kwok as every Node's kubelet, the machinestatus manager as its own
// process (bin/manager), and the simulated infrastructure provider (test/infra) in this process.
package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/config/samples/infra"
	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/infra/controller"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// Options configure Start.
type Options struct {
	// StateDir, relative to the repository root unless absolute, receives the kubeconfig and logs.
	StateDir string
	// Manager is the manager binary, relative to the repository root unless absolute.
	Manager string
	// ManagerArgs are added to the manager's command line (after --kubeconfig).
	ManagerArgs []string
	// NoManager, when true, starts no manager: the caller starts its own with StartManager.
	NoManager bool
	// AdminManager, when true, runs managers with the admin kubeconfig instead of as
	// ManagerUser (the least-privilege RBAC of config/rbac).
	AdminManager bool
	// ClusterAPIManager, when true (and AdminManager is not), binds ManagerUser to the RBAC of
	// the manager's Cluster API mode instead (GrantClusterAPIManager: config/clusterapi's
	// ClusterRole and config/rbac's leader election Role), for managers run with
	// --machine-apis=cluster.x-k8s.io.
	ClusterAPIManager bool
	// BothMachineAPIs, when true (and AdminManager is not), binds ManagerUser to the RBAC of
	// both Machine APIs (config/rbac's roles, SimMachineReaderRole and config/clusterapi's
	// ClusterRole), for managers run with --machine-apis=machinestatus.io,cluster.x-k8s.io.
	BothMachineAPIs bool
	// AddToScheme adds types to the admin client's Scheme (e.g. Cluster API's).
	AddToScheme []func(*runtime.Scheme) error
	// CRDs are installed with machinestatus's and the SimMachine's (e.g. Cluster API's).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// APIServerFlags are extra kube-apiserver flags (see embedded.Options.APIServerFlags).
	APIServerFlags map[string]string
	// ProviderConcurrency is how many SimMachines the provider reconciles at once (default 1).
	ProviderConcurrency int
	// QPS and Burst of Client and the provider (zero: client-go's defaults, 5 and 10, as a
	// provider built on client-go would have).
	QPS   float32
	Burst int
	// Out receives one line per component started (nil: discarded).
	Out io.Writer
}

// Fleet is everything Start started: the harness's control plane, kwok and admin client
// (whose Scheme has the SimMachine's types too), the manager and the provider.
type Fleet struct {
	*harness.Env
	o        Options
	StateDir string
	// ManagerKubeconfig is what managers run with: ManagerUser's kubeconfig, or Kubeconfig
	// with Options.AdminManager.
	ManagerKubeconfig string
	Manager           *proc.Process // nil with Options.NoManager
	provider          *inProcess
	log               *os.File
}

// inProcess is the simulated provider's controller-runtime manager, run in this process.
type inProcess struct {
	cancel context.CancelFunc
	done   chan error
}

// Start starts the control plane, kwok, the manager and the simulated provider, in that order.
// On error it stops what it started.
func Start(ctx context.Context, o Options) (e *Fleet, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	e = &Fleet{o: o}
	defer func() {
		if err != nil {
			e.Stop()
			e = nil
		}
	}()

	// Find the binaries the harness does not look for first, so that a missing one fails
	// before anything starts.
	root, err := repo.Root()
	if err != nil {
		return e, err
	}
	e.StateDir = InRoot(root, o.StateDir)
	managerBin, err := repo.Binary(root, "MANAGER_BIN", o.Manager)
	if err != nil {
		return e, err
	}
	if err := os.MkdirAll(e.StateDir, 0o755); err != nil {
		return e, fmt.Errorf("cannot create %s: %w", e.StateDir, err)
	}

	// The in-process provider and client-go log to a file, not over the demo's output.
	if e.log, err = os.Create(filepath.Join(e.StateDir, "provider.log")); err != nil {
		return e, fmt.Errorf("cannot create the provider log: %w", err)
	}
	logger := zap.New(zap.WriteTo(e.log), zap.UseDevMode(true))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	sims, err := embedded.LoadCRDs(infra.CRDs)
	if err != nil {
		return e, err
	}
	t := time.Now()
	e.Env, err = harness.Start(harness.Options{
		Dir: e.StateDir, MachineCRD: true, CRDs: append(sims, o.CRDs...), APIServerFlags: o.APIServerFlags,
		Kwok: true, AddToScheme: append([]func(*runtime.Scheme) error{infrav1.AddToScheme}, o.AddToScheme...), QPS: cmp.Or(o.QPS, rest.DefaultQPS), Burst: cmp.Or(o.Burst, rest.DefaultBurst),
	})
	if err != nil {
		return e, err
	}
	e.ManagerBin = managerBin
	if ctx.Err() != nil {
		return e, context.Cause(ctx)
	}
	e.ManagerKubeconfig = e.Kubeconfig
	if !o.AdminManager {
		if e.ManagerKubeconfig, err = e.grantManager(ctx, o.ClusterAPIManager, o.BothMachineAPIs); err != nil {
			return e, err
		}
	}
	fmt.Fprintf(o.Out, "kube-apiserver + etcd from %s at %s (%s); CRDs machines.machinestatus.io, simmachines.infrastructure.machinestatus.io\n",
		rel(e.Root, e.Assets), e.Config.Host, time.Since(t).Round(100*time.Millisecond))
	fmt.Fprintf(o.Out, "kubeconfig: %s  (below, `kubectl` means %s --kubeconfig %s)\n",
		rel(e.Root, e.Kubeconfig), rel(e.Root, e.KubectlBin), rel(e.Root, e.Kubeconfig))
	fmt.Fprintf(o.Out, "kwok (pid %d, log %s):\n  %s\n  with stdin = test/kwok/stages/node-not-ready.yaml\n",
		e.Kwok.Pid(), rel(e.Root, e.Kwok.LogPath), rel(e.Root, strings.Join(e.Kwok.Args(), " ")))

	if !o.NoManager {
		if e.Manager, err = e.StartManager("manager", "", o.ManagerArgs...); err != nil {
			return e, err
		}
		fmt.Fprintf(o.Out, "manager (pid %d, log %s): %s --kubeconfig %s --leader-election-namespace=%s %s\n",
			e.Manager.Pid(), rel(e.Root, e.Manager.LogPath), rel(e.Root, e.ManagerBin), rel(e.Root, e.ManagerKubeconfig), ManagerNamespace, strings.Join(o.ManagerArgs, " "))
	}

	if e.provider, err = startProvider(e.Config, e.Scheme, o.ProviderConcurrency); err != nil {
		return e, err
	}
	fmt.Fprintf(o.Out, "simulated infrastructure provider (test/infra/controller): in this process, log %s\n",
		rel(e.Root, e.log.Name()))
	return e, nil
}

// StartManager starts one more manager process named name (see harness.Env.StartManager) with
// --kubeconfig kubeconfig (empty: ManagerKubeconfig). The caller stops it (proc.Process.Stop);
// Stop stops only e.Manager.
func (e *Fleet) StartManager(name, kubeconfig string, args ...string) (*proc.Process, error) {
	if kubeconfig == "" {
		kubeconfig = e.ManagerKubeconfig
	}
	return e.Env.StartManager(name, kubeconfig, args...)
}

func startProvider(cfg *rest.Config, scheme *runtime.Scheme, concurrency int) (*inProcess, error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// A process may start the provider more than once (go test -count=2, one fleet per test):
		// controller-runtime refuses a controller name already used in the process unless told.
		Controller: config.Controller{MaxConcurrentReconciles: max(concurrency, 1), SkipNameValidation: ptr.To(true)},
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

// Watch cancels ctx (through cancel) when kwok, the manager or the provider stops on its own.
func (e *Fleet) Watch(ctx context.Context, cancel context.CancelCauseFunc) {
	var managerDone <-chan struct{} // nil (never ready) without a manager
	if e.Manager != nil {
		managerDone = e.Manager.Done()
	}
	select {
	case <-ctx.Done():
	case <-e.Kwok.Done():
		cancel(e.Kwok.ExitError())
	case <-managerDone:
		cancel(e.Manager.ExitError())
	case err := <-e.provider.done:
		e.provider.done <- err // for stop
		cancel(fmt.Errorf("the simulated provider stopped: %w", err))
	}
}

// Stop stops everything that was started, in reverse order, and reports what went wrong.
func (e *Fleet) Stop() {
	if e == nil {
		return
	}
	fmt.Fprintln(e.o.Out, "\nStopping the manager, the simulated provider, kwok and the control plane...")
	e.Manager.Stop(harness.ManagerStopGrace)
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
	e.Env.Stop()
	if e.log != nil {
		_ = e.log.Close()
	}
}

// LogHint names the logs, with the manager's last lines, for failure messages.
func (e *Fleet) LogHint() string {
	var b strings.Builder
	if e.Manager != nil {
		fmt.Fprintf(&b, "last lines of %s:\n%s\n", rel(e.Root, e.Manager.LogPath), indent(e.Manager.Tail(15), "  "))
	}
	fmt.Fprintf(&b, "logs: %s", rel(e.Root, e.StateDir))
	return b.String()
}

// InRoot resolves path, relative to the repository root unless absolute.
func InRoot(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

// Rel shortens the repository root out of s, for display.
func (e *Fleet) Rel(s string) string { return rel(e.Root, s) }

func rel(root, s string) string {
	return strings.ReplaceAll(s, root+string(filepath.Separator), "")
}

func indent(s, prefix string) string {
	if s == "" {
		return s
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
