package controllers

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// DefaultClusterAPICheckInterval is how often ServeClusterAPIMachines asks the API server
// whether it serves Cluster API Machines, while it does not.
const DefaultClusterAPICheckInterval = 30 * time.Second

// machineAPIServedMetric is machinestatus_machine_api_served{api_group}: 1 while this manager
// reconciles the Machines of that API (it leads and the API server serves them), else 0.
var machineAPIServedMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "machinestatus_machine_api_served",
	Help: "1 when this manager reconciles the Machines of the API group (it leads and the CRD is served), 0 while it waits for either.",
}, []string{apiGroupLabel})

func init() { metrics.Registry.MustRegister(machineAPIServedMetric) }

// clusterAPICache returns a cache of the Cluster API Machines matching machineSelector (nil or
// empty: all), without managedFields and kubectl's last-applied annotation, which the
// reconciler never reads. It is a cache of its own, created once the CRD is served: the
// manager's cache maps every kind configured for it when it starts.
func clusterAPICache(mgr ctrl.Manager, machineSelector labels.Selector) (cache.Cache, error) {
	entry := cache.ByObject{Transform: stripMachine}
	if machineSelector != nil && !machineSelector.Empty() {
		entry.Label = machineSelector
	}
	return newManagerLikeCache(mgr, cache.Options{
		ByObject: map[client.Object]cache.ByObject{&clusterv1.Machine{}: entry},
	})
}

// ServeClusterAPIMachines adds to mgr a runnable (elected with the manager's leader election)
// that sets r up, on a cache of the Cluster API Machines matching machineSelector (nil or
// empty: all), as soon as the API server serves machines.cluster.x-k8s.io at v1beta2
// (Cluster API v1.11 or later). Until then it logs once that Cluster API is not installed and
// checks again every interval (zero: DefaultClusterAPICheckInterval), with
// machinestatus_machine_api_served{api_group="cluster.x-k8s.io"} at 0: a manager started
// before Cluster API keeps running, healthy, and picks the Machines up once the CRD is
// installed. It returns an error when the runnable cannot be added.
func ServeClusterAPIMachines(mgr ctrl.Manager, r *ClusterAPIMachineReconciler, machineSelector labels.Selector, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultClusterAPICheckInterval
	}
	served := machineAPIServedMetric.WithLabelValues(clusterv1.GroupVersion.Group)
	served.Set(0)
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		logger := ctrl.Log.WithName("clusterapi")
		logged := ""
		for {
			err := clusterAPIMachinesServed(mgr.GetRESTMapper())
			if err == nil {
				c, err := clusterAPICache(mgr, machineSelector)
				if err != nil {
					return fmt.Errorf("cannot create the Cluster API Machine cache: %w", err)
				}
				if err := mgr.Add(c); err != nil {
					return fmt.Errorf("cannot start the Cluster API Machine cache: %w", err)
				}
				r.Cache = c
				if err := r.SetupWithManager(mgr); err != nil {
					return err
				}
				served.Set(1)
				logger.Info("Cluster API Machines are served: reconciling them", "resource", "machines.cluster.x-k8s.io/v1beta2")
				return nil
			}
			if msg := err.Error(); msg != logged {
				logger.Info("not reconciling Cluster API Machines yet: "+msg, "checkingEvery", interval.String())
				logged = msg
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(interval):
			}
		}
	}))
}

// clusterAPIMachinesServed returns nil when mapper maps Cluster API's Machine kind at v1beta2,
// else an error saying what is missing.
func clusterAPIMachinesServed(mapper meta.RESTMapper) error {
	gk := clusterv1.GroupVersion.WithKind("Machine").GroupKind()
	_, err := mapper.RESTMapping(gk, clusterv1.GroupVersion.Version)
	switch {
	case meta.IsNoMatchError(err):
		if _, other := mapper.RESTMapping(gk); other == nil {
			return fmt.Errorf("the API server serves machines.cluster.x-k8s.io, but not at %s (Cluster API v1.11 or later is needed)", clusterv1.GroupVersion.Version)
		}
		return fmt.Errorf("the API server serves no machines.cluster.x-k8s.io (is Cluster API installed?)")
	case err != nil:
		return fmt.Errorf("cannot ask the API server for machines.cluster.x-k8s.io: %w", err)
	}
	return nil
}
