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
)

// The manager follows the API versions of referenced kinds while it runs (the package
// documentation, "Versions from the CRD"): it watches CustomResourceDefinitions, reads a
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

// kindRead is how a referenced kind is read now (kindMapping).
type kindRead struct {
	// mapping is the version read and its resource; nil with a *meta.NoKindMatchError (why says
	// why, when known), or while discovery does not list the only version that can be read
	// (waiting).
	mapping *meta.RESTMapping
	why     string
	// waiting is the version the kind's CRD picks that discovery does not list yet ("" none), and
	// wait how long before discovery is asked about it again.
	waiting string
	wait    time.Duration
}

// kindMapping resolves gk to the version to read at now and its resource. A kind defined by a
// CRD (or seen defined by one) is resolved from the CRD and discovery by followVersion; when no
// version can be read (the CRD is gone, being deleted, not established or serves nothing) the
// error is a *meta.NoKindMatchError and the result says why. Other kinds are resolved by
// restMapping (discovery). Errors listing the CRDs are returned as they are.
func (r *Reader) kindMapping(ctx context.Context, gk schema.GroupKind, now time.Time) (kindRead, error) {
	crd, err := r.crdFor(ctx, gk)
	if err != nil {
		return kindRead{}, err
	}
	if crd == nil && !r.watches.definedByCRD(gk) {
		m, err := r.restMapping(gk, now)
		return kindRead{mapping: m}, err
	}
	vr, wait := r.followVersion(ctx, gk, crd, true, now)
	kr := kindRead{why: vr.Why, waiting: vr.Waiting, wait: wait}
	switch vr.Version {
	case "":
		return kr, &meta.NoKindMatchError{GroupKind: gk}
	case vr.Waiting:
		return kr, nil
	}
	scope := meta.RESTScopeNamespace
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		scope = meta.RESTScopeRoot
	}
	kr.mapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: gk.Group, Version: vr.Version, Resource: crd.Spec.Names.Plural},
		GroupVersionKind: gk.WithVersion(vr.Version),
		Scope:            scope,
	}
	return kr, nil
}

// followVersion decides which version of gk to read at now (versionToRead) from its CRD (nil:
// deleted), the version read so far and discovery (inDiscovery, whose backoff paces how often
// discovery is asked), and records it (chooseVersion, which stops the watches of every other
// version; the wait for a version missing from discovery then starts over) — except while it keeps reading the version read so far because discovery does not
// list the one the CRD picks yet: that version's watches stay, and a reconcile that decided
// so after another version was recorded has its watch refused (startWatch) and reads again.
// With record false, a kind not recorded yet is left alone (a CRD event about a kind no Machine
// read). Of the kind's versions missing from discovery, only the one waited for keeps its wait
// (discoveryLag): a version no longer waited for (listed, or no longer picked) starts over at
// DiscoveryRetryInterval if it is waited for again. It returns the decision and, when it waits
// for a version, how long before discovery is asked about it again.
func (r *Reader) followVersion(ctx context.Context, gk schema.GroupKind, crd *apiextensionsv1.CustomResourceDefinition, record bool, now time.Time) (versionRead, time.Duration) {
	previous, ok := r.watches.chosenVersion(gk)
	if !ok && !record {
		return versionRead{}, 0
	}
	waits := map[string]time.Duration{}
	vr := versionToRead(crd, previous, func(v string) bool {
		wait, listed := r.inDiscovery(gk.WithVersion(v), now)
		waits[v] = wait
		return listed
	})
	changed := false
	if vr.Waiting == "" || vr.Waiting == vr.Version {
		changed = r.chooseVersion(ctx, gk, vr.Version, record)
	}
	// Only the wait for the version waited for is kept: any other starts over at
	// DiscoveryRetryInterval if that version is waited for again, and so does this one when the
	// version read changed (it was found missing just now).
	if changed {
		r.discoveryLag.keepOnly(gk, "")
		if vr.Waiting != "" {
			waits[vr.Waiting] = r.discoveryLag.retryAfter(gk.WithVersion(vr.Waiting), now, r.kindRetryInterval())
		}
	} else {
		r.discoveryLag.keepOnly(gk, vr.Waiting)
	}
	return vr, waits[vr.Waiting]
}

// CRDChanged maps a CRD change to the Machines referencing its kind, after bringing the
// watches of the kind in line with the CRD (followVersion: a deleted or unserved version stops
// at once, even when no Machine references the kind any more; a version still served and
// listed is kept until discovery lists the one picked), and forgets that the kind was not
// served (its versions missing from discovery are asked about again at once).
func (r *Reader) CRDChanged(ctx context.Context, obj client.Object) []reconcile.Request {
	crd := crdOf(obj)
	if crd == nil {
		return nil
	}
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	r.unserved.forget(gk)
	r.discoveryLag.askNow(gk)
	if current, err := r.crdFor(ctx, gk); err == nil {
		r.followVersion(ctx, gk, current, false, r.clock().Now())
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
