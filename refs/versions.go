package refs

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/machinestatus/machinestatus/status"
)

// The manager follows the API versions of referenced kinds while it runs (docs/reliability.md,
// "Referenced kinds whose API versions change"): it watches CustomResourceDefinitions, reads a
// kind at the version its CRD picks (versionOf, servedversion.go) once discovery lists it, and
// until then at the version read before while the CRD still serves it (versionToRead), stops
// the watch of a version that is no longer read, and reconciles the Machines referencing a kind
// whenever its CRD changes. Kinds without a CRD (aggregated APIs) are resolved with the
// RESTMapper (unserved.go).

// crdGVK is the CustomResourceDefinition kind, read as unstructured so that the reconciler
// needs nothing in its manager's scheme.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// crdKindIndex indexes CRDs by the group and kind they define, as groupKindKey values.
const crdKindIndex = "machinestatus.io/crdKind"

func groupKindKey(gk schema.GroupKind) string { return gk.Group + "/" + gk.Kind }

// NewCRD returns an empty unstructured CRD: the object the Machine controller watches CRDs with
// (see CRDChanged).
func NewCRD() *unstructured.Unstructured {
	return newObject(crdGVK)
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
func (r *Reader) crdFor(ctx context.Context, gk schema.GroupKind) (*apiextensionsv1.CustomResourceDefinition, error) {
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

// resolve returns the version of st's kind (in group) to read at now and its resource, with
// st.RetryAfter set while the version read before is read because discovery does not list the
// one the CRD picks yet; or no mapping and st saying why none can be read (KindNotServed). A
// kind defined by a CRD (or seen defined by one) is resolved from the CRD and discovery
// (followVersion); any other kind by the RESTMapper, asked about a kind it does not serve at
// most once per retry interval (restMapping).
func (r *Reader) resolve(ctx context.Context, st status.Ref, group string, now time.Time) (*meta.RESTMapping, status.Ref, error) {
	gk := schema.GroupKind{Group: group, Kind: st.Kind}
	crd, err := r.crdFor(ctx, gk)
	if err != nil {
		return nil, st, err
	}
	if _, defined := r.versionRead(gk); crd == nil && !defined {
		m, _, err := r.restMapping(gk, "", now, r.kindRetryInterval())
		switch {
		case meta.IsNoMatchError(err):
			return nil, kindNotServed(st, group, "", r.kindRetryInterval()), nil
		case err != nil:
			return nil, st, fmt.Errorf("cannot resolve kind %s: %w", gk, err)
		}
		return m, st, nil
	}
	vr, wait := r.followVersion(ctx, gk, crd, now)
	switch vr.Version {
	case "":
		return nil, kindNotServed(st, group, vr.Why, r.kindRetryInterval()), nil
	case vr.Waiting:
		return nil, notInDiscovery(st, group, vr.Waiting, wait, r.discoveryStep()), nil
	}
	st.RetryAfter = wait
	scope := meta.RESTScopeNamespace
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		scope = meta.RESTScopeRoot
	}
	return &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: gk.Group, Version: vr.Version, Resource: crd.Spec.Names.Plural},
		GroupVersionKind: gk.WithVersion(vr.Version),
		Scope:            scope,
	}, st, nil
}

// followVersion decides which version of gk to read at now (versionToRead) from its CRD (nil:
// deleted), the version read so far and discovery (asked about a version it does not list at
// most once per discovery step, restMapping), and records it (chooseVersion, which stops the
// watches of every other version) — except while it keeps reading the version read so far
// because discovery does not list the one the CRD picks yet: that version's watches stay, and a
// reconcile that decided so after another version was recorded has its watch refused
// (startWatch) and reads again. It returns the decision and, when it waits for a version, how
// long before discovery is asked about it again.
func (r *Reader) followVersion(ctx context.Context, gk schema.GroupKind, crd *apiextensionsv1.CustomResourceDefinition, now time.Time) (versionRead, time.Duration) {
	previous, _ := r.versionRead(gk)
	var wait time.Duration // of the version picked, the first asked about
	vr := versionToRead(crd, previous, func(v string) bool {
		_, retry, err := r.restMapping(gk, v, now, r.discoveryStep())
		if wait == 0 {
			wait = retry
		}
		return !meta.IsNoMatchError(err)
	})
	if vr.Waiting == "" || vr.Waiting == vr.Version {
		r.chooseVersion(ctx, gk, vr.Version)
	}
	return vr, wait
}

// CRDChanged maps a CRD change to the Machines referencing its kind, after bringing the
// watches of the kind in line with the CRD when a Machine read the kind (followVersion: a
// deleted or unserved version stops at once, even when no Machine references the kind any
// more; a version still served and listed is kept until discovery lists the one picked). A
// kind no Machine read is left alone: the CRDs listed at start do not each ask discovery.
func (r *Reader) CRDChanged(ctx context.Context, obj client.Object) []reconcile.Request {
	crd := crdOf(obj)
	if crd == nil {
		return nil
	}
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	if _, read := r.versionRead(gk); read {
		if current, err := r.crdFor(ctx, gk); err == nil {
			r.followVersion(ctx, gk, current, r.clock().Now())
		}
	}
	return r.Referrers(ctx, gk, "", "")
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
