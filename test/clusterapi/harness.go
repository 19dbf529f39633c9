package clusterapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	clusterreconciler "sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	machinereconciler "sigs.k8s.io/cluster-api/core/reconcilers/machine"
	mhcreconciler "sigs.k8s.io/cluster-api/core/reconcilers/machinehealthcheck"
	"sigs.k8s.io/cluster-api/core/setup"
	"sigs.k8s.io/cluster-api/util/index"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/test/embedded"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// clusterAPIModule is the Go module whose controllers and CRDs the suite runs (pinned by go.mod).
const clusterAPIModule = "sigs.k8s.io/cluster-api"

// managerArgs run our manager (bin/manager) in its Cluster API mode, with no metrics or probe
// endpoint (nothing here reads them, and fixed ports would clash with other runs).
var managerArgs = []string{"--machine-apis=cluster.x-k8s.io", "--metrics-bind-address=0", "--health-probe-bind-address=0"}

// harness is everything a lifecycle runs on: the fleet (control plane, kwok, the simulated
// provider, our manager as its own process) and Cluster API's controllers in this process.
type harness struct {
	fleet *fleet.Fleet
	// c reads and writes with Cluster API's, the SimMachine's and the core types.
	c      client.Client
	scheme *runtime.Scheme
	// clusterCache is stopped explicitly: its per-cluster caches run on their own context and
	// would keep the API server from stopping.
	clusterCache clustercache.ClusterCache
	stopCAPI     context.CancelFunc
	capiDone     chan error
}

// startHarness starts the fleet with Cluster API's CRDs and our manager in its Cluster API mode
// (bin/manager --machine-apis=cluster.x-k8s.io, as a user bound only to the RBAC of
// config/clusterapi), then Cluster API's controllers; logs and kubeconfigs go to stateDir
// (relative to the repository root unless absolute). On error it stops what it started.
func startHarness(ctx context.Context, stateDir string, out io.Writer) (*harness, error) {
	crds, err := clusterAPICRDs()
	if err != nil {
		return nil, err
	}
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir:          stateDir,
		Manager:           "bin/manager",
		ManagerArgs:       managerArgs,
		ClusterAPIManager: true,
		CRDs:              append(crds, suiteClusterCRD()),
		Out:               out,
	})
	if err != nil {
		return nil, err
	}
	h := &harness{fleet: f}
	if err := h.startClusterAPI(ctx); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// clusterAPICRDs are the CRDs of Cluster API's core (core/config/crd/bases of the module go.mod
// pins). They carry no conversion webhook, so v1beta2 works without webhooks or certificates.
func clusterAPICRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", clusterAPIModule).Output()
	if err != nil {
		return nil, fmt.Errorf("cannot locate %s: go list -m: %w", clusterAPIModule, err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "core", "config", "crd", "bases")
	crds, err := embedded.LoadCRDs(os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", dir)
	}
	return crds, nil
}

// startClusterAPI runs Cluster API's Cluster, Machine and MachineHealthCheck reconcilers and a
// ClusterCache in one controller-runtime manager, wired as Cluster API's core/main.go wires them
// (without webhooks, metrics, probes or leader election; feature gates at their defaults).
func (h *harness) startClusterAPI(ctx context.Context) error {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, clusterv1.AddToScheme, infrav1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	h.scheme = scheme
	cfg := h.fleet.CP.Config
	var err error
	if h.c, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	const name = "clusterapi-suite"
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:                  setup.ManagerCacheOptions(scheme, name, "", 10*time.Minute),
		Client:                 setup.ManagerClientOptions(),
	})
	if err != nil {
		return fmt.Errorf("cannot create Cluster API's manager: %w", err)
	}
	// Cluster API's controllers log through the context's logger (the fleet's log file).
	capiCtx, cancel := context.WithCancel(ctrl.LoggerInto(context.WithoutCancel(ctx), ctrl.Log.WithName("cluster-api")))
	h.stopCAPI = cancel
	if err := index.AddDefaultIndexes(capiCtx, mgr); err != nil {
		return fmt.Errorf("cannot add Cluster API's indexes: %w", err)
	}
	secrets, err := setup.CreateSecretCachingClient(mgr)
	if err != nil {
		return err
	}
	opts := controller.Options{MaxConcurrentReconciles: 4}
	h.clusterCache, err = clustercache.SetupWithManager(capiCtx, mgr, clustercache.Options{
		SecretClient: secrets,
		Cache:        setup.ClusterCacheCacheOptions(),
		Client:       setup.ClusterCacheClientOptions(name, 20, 30),
	}, opts)
	if err != nil {
		return fmt.Errorf("cannot set up the ClusterCache: %w", err)
	}
	if err := (&clusterreconciler.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ClusterCache: h.clusterCache,
		RemoteConnectionGracePeriod: 50 * time.Second,
	}).SetupWithManager(capiCtx, mgr, opts); err != nil {
		return fmt.Errorf("cannot set up Cluster API's Cluster controller: %w", err)
	}
	if err := (&machinereconciler.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ClusterCache: h.clusterCache,
		// Cluster API enforces at least 2 minutes.
		RemoteConditionsGracePeriod: 5 * time.Minute,
	}).SetupWithManager(capiCtx, mgr, opts); err != nil {
		return fmt.Errorf("cannot set up Cluster API's Machine controller: %w", err)
	}
	if err := (&mhcreconciler.Reconciler{
		Client: mgr.GetClient(), ClusterCache: h.clusterCache,
	}).SetupWithManager(capiCtx, mgr, opts); err != nil {
		return fmt.Errorf("cannot set up Cluster API's MachineHealthCheck controller: %w", err)
	}
	h.capiDone = make(chan error, 1)
	go func() { h.capiDone <- mgr.Start(capiCtx) }()
	if !mgr.GetCache().WaitForCacheSync(capiCtx) {
		return fmt.Errorf("cluster API's cache did not sync")
	}
	return nil
}

// stop stops Cluster API's controllers, the ClusterCache and the fleet.
func (h *harness) stop() {
	if h.stopCAPI != nil {
		h.stopCAPI()
	}
	if h.capiDone != nil {
		select {
		case err := <-h.capiDone:
			if err != nil {
				fmt.Fprintf(os.Stderr, "Cluster API's controllers: %v\n", err)
			}
		case <-time.After(30 * time.Second):
		}
	}
	if s, ok := h.clusterCache.(interface{ Shutdown() }); ok {
		s.Shutdown()
	}
	h.fleet.Stop()
}
