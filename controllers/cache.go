package controllers

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions returns the manager cache options the reconciler is designed for: managedFields
// are dropped from every cached object and Node images from Nodes, since the controller never
// reads them (less memory per Machine at fleet scale). Only Machines matching machineSelector
// are cached, and so reconciled; nil means every Machine. Managers with disjoint selectors split
// a fleet between them without overlap.
func CacheOptions(machineSelector labels.Selector) cache.Options {
	machines := cache.ByObject{}
	if machineSelector != nil && !machineSelector.Empty() {
		machines.Label = machineSelector
	}
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Node{}:      {Transform: stripNode},
			&v1alpha1.Machine{}: machines,
		},
	}
}

func stripNode(obj any) (any, error) {
	if n, ok := obj.(*corev1.Node); ok {
		n.ManagedFields = nil
		n.Status.Images = nil
	}
	return obj, nil
}
