package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
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
// Only Machines matching machineSelector are cached, and so reconciled; nil means every Machine.
// Managers with disjoint selectors split a fleet between them without overlap.
func CacheOptions(machineSelector labels.Selector) cache.Options {
	return CacheOptionsFor(machineSelector, true)
}

// CacheOptionsFor is CacheOptions for a manager that serves machinestatus Machines or not (our
// CRD must then be served: the cache maps every kind configured for it when it starts). Cluster
// API Machines have a cache of their own (ServeClusterAPIMachines).
func CacheOptionsFor(machineSelector labels.Selector, machinestatus bool) cache.Options {
	o := cache.Options{
		DefaultTransform: stripDefault,
		ByObject:         map[client.Object]cache.ByObject{&corev1.Node{}: {Transform: stripNode}},
	}
	if machinestatus {
		machines := cache.ByObject{Transform: stripMachine}
		if machineSelector != nil && !machineSelector.Empty() {
			machines.Label = machineSelector
		}
		o.ByObject[&v1alpha1.Machine{}] = machines
		// The referenced kinds' CRDs, followed for their served versions (versions.go).
		o.ByObject[newCRD()] = cache.ByObject{Transform: stripCRD}
	}
	return o
}

// stripDefault drops managedFields and reduces unstructured objects (the referenced kinds) to
// the fields of the Cluster API contract.
func stripDefault(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return stripContractObject(u), nil
	}
	return cache.TransformStripManagedFields()(obj)
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

func stripNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	kept := &corev1.Node{}
	kept.TypeMeta = n.TypeMeta
	kept.Name, kept.UID, kept.ResourceVersion, kept.Generation = n.Name, n.UID, n.ResourceVersion, n.Generation
	kept.CreationTimestamp, kept.DeletionTimestamp = n.CreationTimestamp, n.DeletionTimestamp
	kept.Spec.ProviderID, kept.Spec.Unschedulable = n.Spec.ProviderID, n.Spec.Unschedulable
	kept.Status.Conditions = n.Status.Conditions
	kept.Status.NodeInfo.KubeletVersion = n.Status.NodeInfo.KubeletVersion
	return kept, nil
}

// contractStatusFields are the status fields readContract and readyConditionMessage read.
var contractStatusFields = []string{
	"initialization", "ready", "failureReason", "failureMessage", "deprecated", "dataSecretName", "conditions", "v1beta2",
}

func stripContractObject(u *unstructured.Unstructured) *unstructured.Unstructured {
	kept := &unstructured.Unstructured{Object: map[string]any{}}
	kept.SetAPIVersion(u.GetAPIVersion())
	kept.SetKind(u.GetKind())
	kept.SetName(u.GetName())
	kept.SetNamespace(u.GetNamespace())
	kept.SetUID(u.GetUID())
	kept.SetResourceVersion(u.GetResourceVersion())
	kept.SetGeneration(u.GetGeneration())
	kept.SetCreationTimestamp(u.GetCreationTimestamp())
	kept.SetDeletionTimestamp(u.GetDeletionTimestamp())
	if spec, ok := u.Object["spec"].(map[string]any); ok {
		if id, ok := spec["providerID"]; ok {
			kept.Object["spec"] = map[string]any{"providerID": id}
		}
	}
	if status, ok := u.Object["status"].(map[string]any); ok {
		s := map[string]any{}
		for _, f := range contractStatusFields {
			if v, ok := status[f]; ok {
				s[f] = v
			}
		}
		kept.Object["status"] = s
	} else if status, ok := u.Object["status"]; ok {
		kept.Object["status"] = status // keep a malformed status so that it is reported as such
	}
	return kept
}

// newManagerLikeCache returns a cache configured by o and created with mgr's client settings
// (REST config, HTTP client, scheme and RESTMapper), as the manager's own cache is: the caches
// the reconcilers create besides it (a namespace's, the Cluster API Machines'). The caller starts
// it (mgr.Add). It returns cache.New's error.
func newManagerLikeCache(mgr ctrl.Manager, o cache.Options) (cache.Cache, error) {
	o.HTTPClient, o.Scheme, o.Mapper = mgr.GetHTTPClient(), mgr.GetScheme(), mgr.GetRESTMapper()
	return cache.New(mgr.GetConfig(), o)
}
