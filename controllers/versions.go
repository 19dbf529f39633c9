package controllers

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The manager follows the API versions of referenced kinds while it runs (docs/reliability.md,
// "Referenced kinds whose API versions change"): it watches CustomResourceDefinitions, reads a
// kind at the version its CRD serves now (chosen by versionOf, servedversion.go), stops the watch of a version
// that is no longer chosen, and reconciles the Machines referencing a kind whenever its CRD
// changes. Kinds without a CRD (aggregated APIs) are resolved with the RESTMapper (unserved.go).

// crdGVK is the CustomResourceDefinition kind, read as unstructured so that the reconciler
// needs nothing in its manager's scheme.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// crdKindIndex indexes CRDs by the group and kind they define, as groupKindKey values.
const crdKindIndex = "machinestatus.io/crdKind"

// machineRefKindIndex indexes Machines by the group and kind of the objects they reference.
const machineRefKindIndex = "machinestatus.io/refKind"

func groupKindKey(gk schema.GroupKind) string { return gk.Group + "/" + gk.Kind }

// newCRD returns an empty unstructured CRD.
func newCRD() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(crdGVK)
	return u
}

// crdOf converts an unstructured CRD; nil when obj is not one.
func crdOf(obj any) *apiextensionsv1.CustomResourceDefinition {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GroupVersionKind() != crdGVK {
		return nil
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil
	}
	return crd
}

// crdFor returns the CRD defining gk, nil when there is none, from the cache (the client would
// ask the API server for unstructured objects).
func (r *MachineReconciler) crdFor(ctx context.Context, gk schema.GroupKind) (*apiextensionsv1.CustomResourceDefinition, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crdGVK.GroupVersion().WithKind("CustomResourceDefinitionList"))
	if err := r.Cache.List(ctx, list, client.MatchingFields{crdKindIndex: groupKindKey(gk)}); err != nil {
		return nil, fmt.Errorf("cannot list the CustomResourceDefinitions of %s: %w", gk, err)
	}
	for i := range list.Items {
		if crd := crdOf(&list.Items[i]); crd != nil {
			return crd, nil
		}
	}
	return nil, nil
}

// kindMapping resolves gk to the version to read and its resource. A kind defined by a CRD is
// resolved from the CRD (versionOf), and the version recorded (chooseVersion, which stops the
// watches of another version when it changed); when the CRD cannot be read at any version, or
// is gone after the kind was seen defined by one, the result is a *meta.NoKindMatchError
// wrapped with why. Other kinds are resolved by restMapping (discovery).
func (r *MachineReconciler) kindMapping(ctx context.Context, gk schema.GroupKind) (*meta.RESTMapping, string, error) {
	crd, err := r.crdFor(ctx, gk)
	if err != nil {
		return nil, "", err
	}
	if crd == nil {
		if r.watches.definedByCRD(gk) {
			r.chooseVersion(ctx, gk, "", true)
			return nil, "its CustomResourceDefinition was deleted", &meta.NoKindMatchError{GroupKind: gk}
		}
		m, err := r.restMapping(gk, r.clock().Now())
		return m, "", err
	}
	v, why := versionOf(crd)
	r.chooseVersion(ctx, gk, v, true)
	if v == "" {
		return nil, why, &meta.NoKindMatchError{GroupKind: gk}
	}
	scope := meta.RESTScopeNamespace
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		scope = meta.RESTScopeRoot
	}
	return &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: gk.Group, Version: v, Resource: crd.Spec.Names.Plural},
		GroupVersionKind: gk.WithVersion(v),
		Scope:            scope,
	}, "", nil
}

// machinesForCRD maps a CRD change to the Machines referencing its kind, after bringing the
// watches of the kind in line with the CRD (a deleted or unserved version stops at once, even
// when no Machine references the kind any more), and forgets that the kind was not served (its
// versions missing from discovery are asked about again at the next read).
func (r *MachineReconciler) machinesForCRD(ctx context.Context, obj client.Object) []reconcile.Request {
	crd := crdOf(obj)
	if crd == nil {
		return nil
	}
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	r.unserved.forget(gk)
	r.discoveryLag.askNow(gk)
	if current, err := r.crdFor(ctx, gk); err == nil {
		keep := ""
		if current != nil {
			keep, _ = versionOf(current)
		}
		r.chooseVersion(ctx, gk, keep, false)
	}
	return r.machineRequests(ctx, client.MatchingFields{machineRefKindIndex: groupKindKey(gk)})
}

// crdIndex indexes unstructured CRDs by the group and kind they define.
func crdIndex(o client.Object) []string {
	crd := crdOf(o)
	if crd == nil {
		return nil
	}
	return []string{groupKindKey(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind})}
}

// stripCRD keeps what versionOf and kindMapping read: name, labels, deletionTimestamp, group,
// kind, plural, scope, each version's name, served and storage, and status conditions. The
// schemas, by far the largest part, are dropped.
func stripCRD(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	crd := crdOf(u)
	if crd == nil {
		return obj, nil
	}
	kept := &apiextensionsv1.CustomResourceDefinition{}
	kept.Name, kept.UID, kept.ResourceVersion, kept.Generation = crd.Name, crd.UID, crd.ResourceVersion, crd.Generation
	kept.Labels, kept.DeletionTimestamp = crd.Labels, crd.DeletionTimestamp
	kept.Spec.Group, kept.Spec.Scope = crd.Spec.Group, crd.Spec.Scope
	kept.Spec.Names.Kind, kept.Spec.Names.Plural = crd.Spec.Names.Kind, crd.Spec.Names.Plural
	for _, v := range crd.Spec.Versions {
		kept.Spec.Versions = append(kept.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v.Name, Served: v.Served, Storage: v.Storage})
	}
	kept.Status.Conditions = crd.Status.Conditions
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(kept)
	if err != nil {
		return nil, fmt.Errorf("cannot strip CustomResourceDefinition %s: %w", crd.Name, err)
	}
	out := &unstructured.Unstructured{Object: m}
	out.SetGroupVersionKind(crdGVK)
	return out, nil
}
