// Command manager runs the machinestatus controller.
//
// Against a cluster: `manager --kubeconfig ~/.kube/config` (or in-cluster config). Without a
// cluster, `make run-embedded` (hack/run-embedded) starts a local kube-apiserver and etcd and runs
// this binary against them; the test harness that does it stays out of this binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/internal/quietlog"
)

type options struct {
	metrics                 metricsFlags
	probeAddr               string
	leaderElect             bool
	leaderElectionNamespace string
	maxConcurrentReconciles int
	machineSelector         string
	poolLabel               string
	machineAPIs             string
	clusterAPICheckInterval time.Duration
	fieldManager            string
	leaderElectionID        string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	qps                     float64
	burst                   int
}

func main() {
	if printVersion(os.Args[1:], os.Stdout) {
		return
	}
	var o options
	bindMetricsFlags(flag.CommandLine, &o.metrics)
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address the health and readiness probes bind to; \"0\" disables them.")
	flag.BoolVar(&o.leaderElect, "leader-elect", false, "Enable leader election so that only one of several managers is active.")
	flag.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease (default: the pod's namespace).")
	flag.IntVar(&o.maxConcurrentReconciles, "max-concurrent-reconciles", 4, "How many Machines are reconciled in parallel.")
	flag.StringVar(&o.machineSelector, "machine-selector", "", "Label selector of the Machines this manager reconciles (e.g. 'pool=a'); empty means all. Managers with disjoint selectors split a fleet.")
	flag.StringVar(&o.poolLabel, "pool-label", aggregate.DefaultPoolLabel,
		"Label naming a machinestatus Machine's pool in metrics (Cluster API Machines: their deployment-, pool-, control-plane- or set-name label); the CLI's --pool-label.")
	flag.StringVar(&o.machineAPIs, "machine-apis", machineAPIMachinestatus,
		"Comma-separated Machine APIs to reconcile: "+machineAPIMachinestatus+" (machinestatus Machines: status written) and/or "+
			machineAPIClusterAPI+" (Cluster API v1beta2 Machines: lastOperation kept in the machinestatus.io/last-operation annotation; docs/clusterapi.md).")
	flag.DurationVar(&o.clusterAPICheckInterval, "clusterapi-check-interval", controllers.DefaultClusterAPICheckInterval,
		"With --machine-apis="+machineAPIClusterAPI+": how often to check again whether Cluster API's Machine CRD is served, while it is not.")
	flag.StringVar(&o.fieldManager, "field-manager", controllers.DefaultFieldOwner, "Field manager of the writes: server-side apply of machinestatus Machines' status, merge patches of Cluster API Machines' annotation.")
	flag.StringVar(&o.leaderElectionID, "leader-election-id", "", "Name of the leader election Lease (default machinestatus.machinestatus.io, plus a hash of --machine-selector when set, so each shard elects its own leader).")
	flag.DurationVar(&o.leaseDuration, "leader-election-lease-duration", 15*time.Second, "How long standby managers wait, after the last renewal, before taking the lease.")
	flag.DurationVar(&o.renewDeadline, "leader-election-renew-deadline", 10*time.Second, "How long the leader keeps retrying to renew before it gives up and exits (an API server outage longer than this restarts the leader); less than the lease duration.")
	flag.DurationVar(&o.retryPeriod, "leader-election-retry-period", 2*time.Second, "How often managers try to acquire or renew the lease; less than the renew deadline.")
	flag.Float64Var(&o.qps, "kube-api-qps", 50, "Requests per second the manager may send to the API server (client-side limit).")
	flag.IntVar(&o.burst, "kube-api-burst", 100, "Burst of requests above --kube-api-qps.")
	zapOpts := zap.Options{Development: true}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	// One logger for everything, client-go's klog output too, so that expected rejections are
	// kept out of ERROR in one place (internal/quietlog).
	logger := quietlog.Wrap(zap.New(zap.UseFlagOptions(&zapOpts)))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	if err := run(o); err != nil {
		ctrl.Log.WithName("setup").Error(err, "manager stopped")
		os.Exit(1)
	}
}

func run(o options) error {
	timingOK := 0 < o.retryPeriod && o.retryPeriod < o.renewDeadline && o.renewDeadline < o.leaseDuration
	if o.leaderElect && !timingOK {
		return fmt.Errorf("invalid leader election timing: need 0 < --leader-election-retry-period (%s) < --leader-election-renew-deadline (%s) < --leader-election-lease-duration (%s)",
			o.retryPeriod, o.renewDeadline, o.leaseDuration)
	}
	apis, err := parseMachineAPIs(o.machineAPIs)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("cannot load a kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst

	selector, err := labels.Parse(o.machineSelector)
	if err != nil {
		return fmt.Errorf("invalid --machine-selector %q: %w", o.machineSelector, err)
	}
	leaderID := o.leaderElectionID
	if leaderID == "" {
		leaderID = defaultLeaderElectionID(selector, apis)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	utilruntime.Must(clusterv1.AddToScheme(scheme))
	cacheOptions := controllers.CacheOptionsFor(selector, apis.machinestatus)

	metrics, certs, err := metricsOptions(o.metrics)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        leaderID,
		LeaderElectionNamespace: o.leaderElectionNamespace,
		LeaseDuration:           &o.leaseDuration,
		RenewDeadline:           &o.renewDeadline,
		RetryPeriod:             &o.retryPeriod,
		// The manager exits right after it stops leading, so it may hand the lease over at once.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cacheOptions,
	})
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	if certs != nil {
		if err := mgr.Add(certs); err != nil {
			return fmt.Errorf("cannot add the metrics certificate watcher: %w", err)
		}
	}
	if apis.machinestatus {
		r := &controllers.MachineReconciler{
			Client:                  mgr.GetClient(),
			Cache:                   mgr.GetCache(),
			RESTMapper:              mgr.GetRESTMapper(),
			Recorder:                mgr.GetEventRecorder("machinestatus"),
			MaxConcurrentReconciles: o.maxConcurrentReconciles,
			FieldOwner:              o.fieldManager,
			PoolLabel:               o.poolLabel,
			APIReader:               mgr.GetAPIReader(),
		}
		if err := r.SetupWithManager(ctx, mgr); err != nil {
			return err
		}
	}
	if apis.clusterAPI {
		r := &controllers.ClusterAPIMachineReconciler{
			Client:                  mgr.GetClient(),
			APIReader:               mgr.GetAPIReader(),
			Recorder:                mgr.GetEventRecorder("machinestatus"),
			FieldOwner:              o.fieldManager,
			MaxConcurrentReconciles: o.maxConcurrentReconciles,
		}
		if err := controllers.ServeClusterAPIMachines(mgr, r, selector, o.clusterAPICheckInterval); err != nil {
			return err
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("cannot add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("cannot add the readiness check: %w", err)
	}
	ctrl.Log.WithName("setup").Info("starting manager")
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("manager: %w", err)
	}
	return nil
}
