package refs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/status"
)

// readTimeout bounds how long a read waits for a referenced object's informer to sync (e.g. when
// its kind is forbidden), so that no reconcile is stuck.
const readTimeout = 10 * time.Second

// DefaultKindRetryInterval is Reader.RetryInterval when left zero: a Machine whose
// reference names a kind the API server does not serve is reconciled again after one minute.
const DefaultKindRetryInterval = time.Minute

// DiscoveryRetryInterval is how often discovery is asked again about a version that a CRD serves
// and discovery does not list yet (it follows a CRD within milliseconds), and how soon the
// Machines reading the kind meanwhile are read again (at most the kind retry interval).
const DiscoveryRetryInterval = 2 * time.Second

// Referrers returns the Machines to reconcile when an object of kind gk changes in namespace
// ("" any namespace) whose name is name ("" any object of the kind).
type Referrers func(ctx context.Context, gk schema.GroupKind, namespace, name string) []reconcile.Request

// Reader reads the objects Machines reference, by contract, through watches it starts per kind
// (see the package documentation for what it does and why). Set the exported fields, call
// SetupWithManager once the Machine controller is built, then Read.
type Reader struct {
	// Client creates the SelfSubjectAccessReviews.
	Client client.Client
	// Cache is the manager's cache: CRDs, and the referenced kinds the manager may watch in all
	// namespaces.
	Cache cache.Cache
	// RESTMapper resolves kinds that no CRD defines, and tells whether discovery lists a version.
	RESTMapper meta.RESTMapper
	// RetryInterval is how often a kind that is not served, forbidden or unreadable is asked
	// about again. Zero means DefaultKindRetryInterval.
	RetryInterval time.Duration
	// Clock dates the access rechecks. Nil means the real clock.
	Clock clock.PassiveClock
	// Referrers maps a referenced object's change to the Machines to reconcile.
	Referrers Referrers

	// controller, mgr and events are set by SetupWithManager: the Machine controller the
	// watches feed, the manager namespace caches start with, and the Machines to reconcile after
	// an access change.
	controller controller.Controller
	mgr        ctrl.Manager
	events     chan event.GenericEvent

	// mu guards answers, versions, watches and caches, and is held while a watch starts or stops.
	mu sync.Mutex
	// answers are the last answers of the API server: by scopeKey, the verbs access reviews
	// denied; by kind (version "") or version, when the RESTMapper did not map it.
	answers map[any]answer
	// versions is the version read of each referenced kind seen defined by a CRD ("" when none
	// can be read now); a kind not in it was never seen defined by one. Only versions read are
	// watched.
	versions map[schema.GroupKind]string
	// watches are the running watches of referenced kinds (watches.go).
	watches map[watchKey]watch
	// caches are the namespace caches, by namespace, created on first use (watches.go).
	caches map[string]cache.Cache
}

// Read reads the object ref names in namespace ns and returns what it says by contract
// (readyField: "provisioned" for infrastructure, "dataSecretCreated" for bootstrap objects) or
// why it cannot be used. Problems a condition can describe (not found, kind not served,
// forbidden, malformed, not synced) are in the Ref; other errors are returned for a retry (the
// Ref then means nothing). When the version of the kind changes while it is read (its CRD
// changed), it reads again, up to three times in all.
func (r *Reader) Read(ctx context.Context, ns string, ref v1alpha1.ContractVersionedObjectReference, readyField string, now time.Time) (status.Ref, error) {
	for attempt := 1; ; attempt++ {
		st, err := r.readOnce(ctx, ns, ref, readyField, now)
		if !errors.Is(err, errVersionChanged) || attempt == 3 {
			return st, err
		}
	}
}

// readOnce is one attempt of Read.
func (r *Reader) readOnce(ctx context.Context, ns string, ref v1alpha1.ContractVersionedObjectReference, readyField string, now time.Time) (status.Ref, error) {
	mapping, st, err := r.resolve(ctx, status.Ref{Kind: ref.Kind, Name: ref.Name}, ref.APIGroup, now)
	if mapping == nil || err != nil {
		return st, err
	}
	reader, scope, verbs, err := r.readerFor(ctx, mapping, ns, now)
	if verbs != "" || err != nil {
		return forbidden(st, mapping.Resource.GroupResource(), scope, verbs, r.kindRetryInterval()), err
	}
	obj := newObject(mapping.GroupVersionKind)
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	err = r.readWatched(ctx, rctx, reader, scope.namespace, client.ObjectKey{Namespace: ns, Name: ref.Name}, obj)
	switch {
	case errors.Is(err, errVersionChanged):
		return st, err
	case apierrors.IsNotFound(err):
		return st, nil
	case meta.IsNoMatchError(err):
		return notInDiscovery(st, ref.APIGroup, mapping.GroupVersionKind.Version, r.discoveryStep(), r.discoveryStep()), nil
	case (apierrors.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded)) && ctx.Err() == nil:
		// The informer cache reports a sync that outlasted rctx as a Timeout status error.
		st.Unreadable = fmt.Sprintf("cannot read %s: timed out waiting for the %s cache (missing RBAC?)", st, ref.Kind)
		return st, nil
	case err != nil:
		return st, fmt.Errorf("cannot read %s: %w", st, err)
	}
	return status.RefFromObject(st, obj, readyField), nil
}

// The reader follows the API versions of referenced kinds while it runs ("Versions from the
// CRD" in the package documentation): it watches CustomResourceDefinitions, reads a
// kind at the version its CRD picks (versionOf, rules.go) once discovery lists it, and until
// then at the version read before while the CRD still serves it (versionToRead), stops the
// watch of a version that is no longer read, and reconciles the Machines referencing a kind
// whenever its CRD changes. Kinds without a CRD (aggregated APIs) are resolved with the
// RESTMapper (restMapping).

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
		if meta.IsNoMatchError(err) {
			return nil, kindNotServed(st, group, "", r.kindRetryInterval()), nil
		}
		return m, st, err
	}
	vr, wait := r.followVersion(ctx, gk, crd, now)
	switch vr.Version {
	case "":
		return nil, kindNotServed(st, group, vr.Why, r.kindRetryInterval()), nil
	case vr.Waiting:
		return nil, notInDiscovery(st, group, vr.Waiting, wait, r.discoveryStep()), nil
	}
	st.RetryAfter = wait
	scope, gvk := meta.RESTScopeNamespace, gk.WithVersion(vr.Version)
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		scope = meta.RESTScopeRoot
	}
	return &meta.RESTMapping{Resource: gvk.GroupVersion().WithResource(crd.Spec.Names.Plural), GroupVersionKind: gvk, Scope: scope}, st, nil
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
		wait = cmp.Or(wait, retry)
		return !meta.IsNoMatchError(err)
	})
	if vr.Waiting == "" || vr.Waiting == vr.Version {
		r.chooseVersion(ctx, gk, vr.Version)
	}
	return vr, wait
}

// CRDChanged maps a CRD change (obj, the CRD as it is now, or as it was last when deleted) to
// the Machines referencing its kind, after bringing the watches of the kind in line with the
// CRD when a Machine read the kind (followVersion: a deleted or unserved version stops at once,
// even when no Machine references the kind any more; a version still served and listed is kept
// until discovery lists the one picked). A kind no Machine read is left alone: the CRDs listed
// at start do not each ask discovery.
func (r *Reader) CRDChanged(ctx context.Context, obj client.Object) []reconcile.Request {
	crd := crdOf(obj)
	if crd == nil {
		return nil
	}
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	if _, read := r.versionRead(gk); read {
		r.followVersion(ctx, gk, crd, r.clock().Now())
	}
	return r.Referrers(ctx, gk, "", "")
}

// crdFor returns the CRD defining gk, nil when there is none, from the cache (the client would
// ask the API server for unstructured objects).
func (r *Reader) crdFor(ctx context.Context, gk schema.GroupKind) (*apiextensionsv1.CustomResourceDefinition, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crdGVK.GroupVersion().WithKind("CustomResourceDefinitionList"))
	if err := r.Cache.List(ctx, list, client.MatchingFields{crdKindIndex: groupKindKey(gk)}); err != nil || len(list.Items) == 0 {
		return nil, err
	}
	return crdOf(&list.Items[0]), nil
}

// restMapping is RESTMapper.RESTMapping of gk at version ("": its preferred version), except that
// a kind and version the RESTMapper did not map less than interval before now is a
// *meta.NoKindMatchError without asking again (answer.fresh), so that it is asked at most once
// per interval however many Machines read it. With a no-match error it returns how long before
// the RESTMapper is asked again.
func (r *Reader) restMapping(gk schema.GroupKind, version string, now time.Time, interval time.Duration) (*meta.RESTMapping, time.Duration, error) {
	gvk := gk.WithVersion(version)
	if a, ok := r.recentAnswer(gvk, now, interval); ok {
		return nil, a.at.Add(interval).Sub(now), &meta.NoKindMatchError{GroupKind: gk}
	}
	mapping, err := r.RESTMapper.RESTMapping(gk, version)
	if meta.IsNoMatchError(err) {
		r.record(gvk, answer{at: now})
		return nil, interval, err
	}
	return mapping, 0, err
}

// recentAnswer returns the last answer to question k and whether it is fresh at now.
func (r *Reader) recentAnswer(k any, now time.Time, interval time.Duration) (answer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.answers[k]
	return a, ok && a.fresh(now, interval)
}

// record notes a as the last answer to question k.
func (r *Reader) record(k any, a answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	put(&r.answers, k, a)
}

// put sets (*m)[k] to v, making the map first when it is nil (the zero Reader is ready to use).
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// AddCacheOptions configures the manager's cache for r: referenced objects (unstructured) keep
// only what status.ReadContract reads, every other object loses its managedFields, and CRDs keep
// what the version rule reads (no schemas).
func AddCacheOptions(o *cache.Options) {
	o.DefaultTransform = StripObject
	put(&o.ByObject, client.Object(NewCRD()), cache.ByObject{Transform: stripCRD})
}

// SetupIndexes registers the field index of CRDs by the group and kind they define.
func SetupIndexes(ctx context.Context, idx client.FieldIndexer) error {
	if err := idx.IndexField(ctx, NewCRD(), crdKindIndex, crdIndex); err != nil {
		return fmt.Errorf("cannot index CustomResourceDefinitions by kind: %w", err)
	}
	return nil
}

func (r *Reader) kindRetryInterval() time.Duration {
	if r.RetryInterval <= 0 {
		return DefaultKindRetryInterval
	}
	return r.RetryInterval
}

// discoveryStep is how often discovery is asked about a version it does not list yet.
func (r *Reader) discoveryStep() time.Duration {
	return min(DiscoveryRetryInterval, r.kindRetryInterval())
}

// machinesForObject maps a watched referenced object to the Machines that reference it.
func (r *Reader) machinesForObject(ctx context.Context, obj client.Object) []reconcile.Request {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return r.Referrers(ctx, gvk.GroupKind(), obj.GetNamespace(), obj.GetName())
}

func (r *Reader) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}
