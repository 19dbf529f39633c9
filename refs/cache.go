package refs

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/status"
)

// AddCacheOptions configures the manager's cache for r: referenced objects (unstructured) keep
// only what status.ReadContract reads, every other object loses its managedFields, and CRDs keep
// what the version rule reads (no schemas).
func AddCacheOptions(o *cache.Options) {
	o.DefaultTransform = StripObject
	if o.ByObject == nil {
		o.ByObject = map[client.Object]cache.ByObject{}
	}
	o.ByObject[NewCRD()] = cache.ByObject{Transform: stripCRD}
}

// StripObject reduces an unstructured object (a referenced kind) to status.ContractFields and
// drops managedFields from any other object.
func StripObject(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return status.ContractFields(u), nil
	}
	return cache.TransformStripManagedFields()(obj)
}

// SetupIndexes registers the field index of CRDs by the group and kind they define.
func SetupIndexes(ctx context.Context, idx client.FieldIndexer) error {
	if err := idx.IndexField(ctx, NewCRD(), crdKindIndex, crdIndex); err != nil {
		return fmt.Errorf("cannot index CustomResourceDefinitions by kind: %w", err)
	}
	return nil
}
