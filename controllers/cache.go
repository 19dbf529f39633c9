package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/refs"
	"github.com/machinestatus/machinestatus/status"
)

// lastAppliedAnnotation is kubectl's copy of the last applied object; never read here.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// CacheOptions returns the manager cache options the reconciler is designed for. The cache keeps
// only what the controller reads, for a small memory footprint per Machine at fleet scale:
//   - managedFields are dropped from every object, kubectl's last-applied annotation from
//     Machines;
//   - Nodes keep their name, providerID, unschedulable, conditions and kubelet version;
//   - referenced infrastructure and bootstrap objects (unstructured) keep their metadata
//     identity, spec.providerID and the contract's status fields;
//   - CustomResourceDefinitions keep their group, names, scope and versions, without schemas.
//
// machinestatus says whether the manager serves machinestatus Machines (our CRD must then be
// served: the cache maps every kind configured for it when it starts); Cluster API Machines have
// a cache of their own (ServeClusterAPIMachines). Only Machines matching machineSelector are
// cached, and so reconciled; nil means every Machine. Managers with disjoint selectors split a
// fleet between them without overlap.
func CacheOptions(machineSelector labels.Selector, machinestatus bool) cache.Options {
	o := cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject:         map[client.Object]cache.ByObject{&corev1.Node{}: {Transform: stripNode}},
	}
	if machinestatus {
		machines := cache.ByObject{Transform: stripMachine}
		if machineSelector != nil && !machineSelector.Empty() {
			machines.Label = machineSelector
		}
		o.ByObject[&v1alpha1.Machine{}] = machines
		// Referenced objects keep their contract's fields, CRDs what package refs reads.
		refs.AddCacheOptions(&o)
	}
	return o
}

// stripMachine drops managedFields and kubectl's last-applied annotation from a Machine of
// either API.
func stripMachine(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a != nil {
			delete(a, lastAppliedAnnotation)
		}
	}
	return obj, nil
}

// stripNode keeps what the status computation reads of a Node (status.NodeFields).
func stripNode(obj any) (any, error) {
	if n, ok := obj.(*corev1.Node); ok {
		return status.NodeFields(n), nil
	}
	return obj, nil
}

// newManagerLikeCache returns a cache configured by o and created with mgr's client settings
// (REST config, HTTP client, scheme and RESTMapper), as the manager's own cache is: the caches
// the reconcilers create besides it (a namespace's, the Cluster API Machines'). The caller starts
// it (mgr.Add). It returns cache.New's error.
func newManagerLikeCache(mgr ctrl.Manager, o cache.Options) (cache.Cache, error) {
	o.HTTPClient, o.Scheme, o.Mapper = mgr.GetHTTPClient(), mgr.GetScheme(), mgr.GetRESTMapper()
	return cache.New(mgr.GetConfig(), o)
}
