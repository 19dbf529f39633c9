package clusterapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	clusterreconciler "sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	machinereconciler "sigs.k8s.io/cluster-api/core/reconcilers/machine"
	mdreconciler "sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment"
	mhcreconciler "sigs.k8s.io/cluster-api/core/reconcilers/machinehealthcheck"
	msreconciler "sigs.k8s.io/cluster-api/core/reconcilers/machineset"
	"sigs.k8s.io/cluster-api/core/setup"
	"sigs.k8s.io/cluster-api/util/index"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

// The user agents of Cluster API's reconcilers: each writes through a client of its own, so
// that the API server's audit log attributes every write (see audit.go).
const (
	agentPrefix              = "cluster-api/"
	clusterAgent             = agentPrefix + "cluster-controller"
	machineAgent             = agentPrefix + "machine-controller"
	machineSetAgent          = agentPrefix + "machineset-controller"
	machineDeploymentAgent   = agentPrefix + "machinedeployment-controller"
	machineHealthCheckAgent  = agentPrefix + "machinehealthcheck-controller"
	clusterAPIManagerAgent   = agentPrefix + "manager"
	clusterAPIControllerName = "cluster-api-controller-manager"
)

// clusterAPIOptions are core/main.go's defaults for what the suite sets: the REST client's QPS
// and burst, the ClusterCache client's, the sync period and each reconciler's concurrency.
const (
	clusterAPIQPS               = 100
	clusterAPIBurst             = 200
	clusterCacheQPS             = 20
	clusterCacheBurst           = 30
	clusterAPISyncPeriod        = 10 * time.Minute
	machineConcurrency          = 100
	otherConcurrency            = 50
	clusterCacheConcurrency     = 100
	remoteConnectionGrace       = 50 * time.Second
	remoteConditionsGracePeriod = 5 * time.Minute // Cluster API enforces at least 2 minutes.
)

// clusterAPIScheme has the types Cluster API's controllers and the suite read and write.
func clusterAPIScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, clusterv1.AddToScheme, infrav1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// clusterAPIControllers are Cluster API's Cluster, Machine, MachineSet, MachineDeployment and
// MachineHealthCheck reconcilers and a ClusterCache (whose workload cluster is the same API
// server), in one controller-runtime manager wired as Cluster API's core/main.go wires them
// (without webhooks, metrics, probes or leader election; feature gates at their defaults).
type clusterAPIControllers struct {
	// cache is stopped explicitly: its per-cluster caches run on their own context and would
	// keep the API server from stopping.
	cache        clustercache.ClusterCache
	broadcasters []record.EventBroadcaster
	cancel       context.CancelFunc
	done         chan error
}

// startClusterAPIControllers starts Cluster API's controllers against cfg (admin), logging
// through log; it returns once their cache has synced. Each reconciler writes (and records
// events) with the user agent agentPrefix+"<name>-controller"; the manager's own requests (the
// cache's lists and watches, API reads) carry clusterAPIManagerAgent.
func startClusterAPIControllers(ctx context.Context, cfg *rest.Config, log logr.Logger) (c *clusterAPIControllers, err error) {
	scheme, err := clusterAPIScheme()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst, cfg.UserAgent = clusterAPIQPS, clusterAPIBurst, clusterAPIManagerAgent
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:                  setup.ManagerCacheOptions(scheme, clusterAPIControllerName, "", clusterAPISyncPeriod),
		Client:                 setup.ManagerClientOptions(),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create Cluster API's manager: %w", err)
	}
	// Cluster API's controllers log through the context's logger.
	capiCtx, cancel := context.WithCancel(ctrl.LoggerInto(context.WithoutCancel(ctx), log))
	c = &clusterAPIControllers{cancel: cancel}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	if err := index.AddDefaultIndexes(capiCtx, mgr); err != nil {
		return c, fmt.Errorf("cannot add Cluster API's indexes: %w", err)
	}
	secrets, err := setup.CreateSecretCachingClient(mgr)
	if err != nil {
		return c, err
	}
	c.cache, err = clustercache.SetupWithManager(capiCtx, mgr, clustercache.Options{
		SecretClient: secrets,
		Cache:        setup.ClusterCacheCacheOptions(),
		Client:       setup.ClusterCacheClientOptions(clusterAPIControllerName, clusterCacheQPS, clusterCacheBurst),
	}, controller.Options{MaxConcurrentReconciles: clusterCacheConcurrency})
	if err != nil {
		return c, fmt.Errorf("cannot set up the ClusterCache: %w", err)
	}
	agent := func(userAgent string) (*agentManager, error) {
		a, err := newAgentManager(mgr, userAgent)
		if a != nil {
			c.broadcasters = append(c.broadcasters, a.broadcaster)
		}
		return a, err
	}
	opts := func(n int) controller.Options { return controller.Options{MaxConcurrentReconciles: n} }

	am, err := agent(clusterAgent)
	if err != nil {
		return c, err
	}
	if err := (&clusterreconciler.Reconciler{
		Client: am.client, APIReader: mgr.GetAPIReader(), ClusterCache: c.cache,
		RemoteConnectionGracePeriod: remoteConnectionGrace,
	}).SetupWithManager(capiCtx, am, opts(otherConcurrency)); err != nil {
		return c, fmt.Errorf("cannot set up Cluster API's Cluster controller: %w", err)
	}
	if am, err = agent(machineAgent); err != nil {
		return c, err
	}
	if err := (&machinereconciler.Reconciler{
		Client: am.client, APIReader: mgr.GetAPIReader(), ClusterCache: c.cache,
		RemoteConditionsGracePeriod: remoteConditionsGracePeriod,
	}).SetupWithManager(capiCtx, am, opts(machineConcurrency)); err != nil {
		return c, fmt.Errorf("cannot set up Cluster API's Machine controller: %w", err)
	}
	if am, err = agent(machineSetAgent); err != nil {
		return c, err
	}
	// No preflight check runs: they apply only to a Cluster with a controlPlaneRef.
	if err := (&msreconciler.Reconciler{
		Client: am.client, APIReader: mgr.GetAPIReader(), ClusterCache: c.cache,
		PreflightChecks: sets.Set[clusterv1.MachineSetPreflightCheck]{},
	}).SetupWithManager(capiCtx, am, opts(otherConcurrency)); err != nil {
		return c, fmt.Errorf("cannot set up Cluster API's MachineSet controller: %w", err)
	}
	if am, err = agent(machineDeploymentAgent); err != nil {
		return c, err
	}
	// RuntimeClient stays nil: it serves only in-place updates, a feature gate that is off.
	if err := (&mdreconciler.Reconciler{
		Client: am.client, APIReader: mgr.GetAPIReader(),
	}).SetupWithManager(capiCtx, am, opts(otherConcurrency)); err != nil {
		return c, fmt.Errorf("cannot set up Cluster API's MachineDeployment controller: %w", err)
	}
	if am, err = agent(machineHealthCheckAgent); err != nil {
		return c, err
	}
	if err := (&mhcreconciler.Reconciler{
		Client: am.client, ClusterCache: c.cache,
	}).SetupWithManager(capiCtx, am, opts(otherConcurrency)); err != nil {
		return c, fmt.Errorf("cannot set up Cluster API's MachineHealthCheck controller: %w", err)
	}
	c.done = make(chan error, 1)
	go func() { c.done <- mgr.Start(capiCtx) }()
	if !mgr.GetCache().WaitForCacheSync(capiCtx) {
		return c, fmt.Errorf("cluster API's cache did not sync")
	}
	return c, nil
}

// stop stops the controllers, the ClusterCache and the event broadcasters (each waits for at
// most 30 s).
func (c *clusterAPIControllers) stop() {
	if c == nil {
		return
	}
	c.cancel()
	if c.done != nil {
		select {
		case err := <-c.done:
			if err != nil {
				log := ctrl.Log.WithName("cluster-api")
				log.Error(err, "Cluster API's controllers stopped with an error")
			}
		case <-time.After(30 * time.Second):
		}
	}
	if s, ok := c.cache.(interface{ Shutdown() }); ok {
		s.Shutdown()
	}
	for _, b := range c.broadcasters {
		b.Shutdown()
	}
}

// agentManager is the controller-runtime manager as one Cluster API reconciler sees it: the
// client it is given, the config and HTTP client it builds clients from (the MachineSet
// controller deletes Machines through one of its own) and its event recorder carry that
// reconciler's user agent; everything else (cache, scheme, controllers) is the shared manager's.
type agentManager struct {
	ctrl.Manager
	config      *rest.Config
	http        *http.Client
	client      client.Client
	broadcaster record.EventBroadcaster
}

func newAgentManager(mgr ctrl.Manager, userAgent string) (*agentManager, error) {
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.UserAgent = userAgent
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot build the HTTP client of %s: %w", userAgent, err)
	}
	// As the manager's own client (setup.ManagerClientOptions), reading from its cache.
	opts := setup.ManagerClientOptions()
	opts.HTTPClient, opts.Scheme, opts.Mapper = httpClient, mgr.GetScheme(), mgr.GetRESTMapper()
	opts.Cache.Reader = mgr.GetCache()
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot build the client of %s: %w", userAgent, err)
	}
	events, err := typedcorev1.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("cannot build the event client of %s: %w", userAgent, err)
	}
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: events.Events("")})
	return &agentManager{Manager: mgr, config: cfg, http: httpClient, client: c, broadcaster: b}, nil
}

func (m *agentManager) GetConfig() *rest.Config     { return rest.CopyConfig(m.config) }
func (m *agentManager) GetHTTPClient() *http.Client { return m.http }
func (m *agentManager) GetClient() client.Client    { return m.client }
func (m *agentManager) GetEventRecorderFor(name string) record.EventRecorder {
	return m.broadcaster.NewRecorder(m.GetScheme(), corev1.EventSource{Component: name})
}
