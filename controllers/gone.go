package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// machineDeleted reports whether the Machine of kind gvk named key, gone from a reconciler's
// cache, no longer exists: reader (live) says NotFound. A Machine that still exists left the
// manager's selection (--machine-selector) instead. Asked once per Machine that goes.
func machineDeleted(ctx context.Context, reader client.Reader, gvk schema.GroupVersionKind, key types.NamespacedName) bool {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	return apierrors.IsNotFound(reader.Get(ctx, key, m))
}
