package refs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
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
	// RESTMapper resolves kinds that no CRD defines.
	RESTMapper meta.RESTMapper
	// RetryInterval is how often a kind that is not served, forbidden or unreadable is asked
	// about again. Zero means DefaultKindRetryInterval.
	RetryInterval time.Duration
	// Clock dates the access rechecks. Nil means the real clock.
	Clock clock.PassiveClock
	// Referrers maps a referenced object's change to the Machines to reconcile.
	Referrers Referrers

	controller controller.Controller
	// events receives the Machines to reconcile after an access change.
	events chan event.GenericEvent
	// newCache creates a cache of one namespace and starts it with the manager.
	newCache func(namespace string) (cache.Cache, error)

	// mu guards answers, versions, watches and caches, and is held while a watch starts or stops.
	mu sync.Mutex
	// answers are the last answers of the API server (recent.go): by scopeKey, the verbs access
	// reviews denied; by kind (version "") or version, when the RESTMapper did not map it.
	answers map[any]answer
	// versions is the version read of each referenced kind seen defined by a CRD ("" when none
	// can be read now); a kind not in it was never seen defined by one. Only versions read are
	// watched.
	versions map[schema.GroupKind]string
	// watches are the running watches of referenced kinds (watches.go).
	watches map[watchKey]watch
	// caches are the namespace caches, by namespace, created on first use (access.go).
	caches map[string]cache.Cache
}

// Read reads the object ref names in namespace ns and returns what it says by contract
// (readyField: "provisioned" for infrastructure, "dataSecretCreated" for bootstrap objects) or
// why it cannot be used. Problems a condition can describe (not found, kind not served,
// forbidden, malformed, not synced) are in the Ref; other errors are returned for a retry. When
// the version of the kind changes while it is read (its CRD changed), it reads again, up to three
// times in all.
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
	if err != nil {
		return st, err
	}
	if verbs != "" {
		return forbidden(st, mapping.Resource.GroupResource(), scope, verbs, r.kindRetryInterval()), nil
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
