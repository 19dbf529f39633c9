package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ClusterAPIMachineReconciler keeps the lastOperation of Cluster API v1beta2 Machines
// (machines.cluster.x-k8s.io) in their aggregate.LastOperationAnnotation, derived with
// aggregate.ClusterAPIMachineStatus from the Machine alone (no Node, no referenced object is
// read), and reports the derived phase and lastOperation through the same events and metrics as
// MachineReconciler, with the api_group label cluster.x-k8s.io.
//
// It observes and never acts on Cluster API's behalf: its only write is a JSON merge patch of
// metadata.annotations holding that one key, sent only when the value changes (never for a
// status rewrite that leaves phase and lastOperation as they were), without a resourceVersion
// precondition, so it neither conflicts with Cluster API's own writes nor touches spec, status
// or any other metadata. It adds no finalizer: deletion is never blocked. Its RBAC is
// config/clusterapi/role.yaml.
type ClusterAPIMachineReconciler struct {
	// Client patches the Machines' annotation.
	Client client.Client
	// Cache holds the Cluster API Machines to reconcile (ServeClusterAPIMachines gives it one
	// of its own); the controller watches it and reads Machines from it.
	Cache cache.Cache
	// Recorder emits events on phase changes and operation results.
	Recorder events.EventRecorder
	// FieldOwner is the field manager of the annotation patches. Empty means DefaultFieldOwner.
	FieldOwner string
	// MaxConcurrentReconciles bounds parallel reconciles. Zero means 1.
	MaxConcurrentReconciles int
	// Clock gives the reconcile's instant, which dates a lastOperation change no condition's
	// lastTransitionTime dates (see aggregate.LastOperation). Nil means the real clock.
	Clock clock.PassiveClock

	written writtenAnnotations
	phases  phaseGauge
}

// SetupWithManager checks the reconciler's dependencies and registers a controller watching
// Cluster API Machines in r.Cache with mgr (named "clusterapi-machine"). The Cluster API Machine
// CRD must be served (see ServeClusterAPIMachines, which waits for it). It returns an error naming a
// missing dependency or the failed registration.
func (r *ClusterAPIMachineReconciler) SetupWithManager(mgr ctrl.Manager) error {
	switch {
	case r.Client == nil:
		return errors.New("cluster API machine reconciler: Client is required")
	case r.Cache == nil:
		return errors.New("cluster API machine reconciler: Cache is required")
	case r.Recorder == nil:
		return errors.New("cluster API machine reconciler: Recorder is required")
	}
	r.phases.api = clusterv1.GroupVersion.Group
	r.phases.init()
	err := ctrl.NewControllerManagedBy(mgr).
		WatchesRawSource(source.Kind(r.Cache, &clusterv1.Machine{}, &handler.TypedEnqueueRequestForObject[*clusterv1.Machine]{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("clusterapi-machine").
		Complete(r)
	if err != nil {
		return fmt.Errorf("cannot build the Cluster API machine controller: %w", err)
	}
	return nil
}

// Reconcile derives the Machine's phase and lastOperation and patches the annotation when its
// value changes: get (ignore NotFound) → read the annotation → derive → patch when different.
func (r *ClusterAPIMachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &clusterv1.Machine{}
	if err := r.Cache.Get(ctx, req.NamespacedName, m); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
			r.phases.set(req.NamespacedName, "")
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// What the annotation holds as far as we know: our last write while the cache lags behind.
	stored, ok := r.written.get(req.NamespacedName, m.ResourceVersion)
	if !ok {
		stored, ok = m.Annotations[aggregate.LastOperationAnnotation]
	}
	previous, err := aggregate.LastOperationFromAnnotations(map[string]string{aggregate.LastOperationAnnotation: stored})
	if !ok {
		previous, err = nil, nil
	}
	if err != nil {
		// Hand-edited or corrupt: start again from the conditions, and overwrite it.
		log.FromContext(ctx).Info("ignoring an unreadable lastOperation annotation", "error", err.Error())
		previous = nil
	}
	phase, op := aggregate.ClusterAPIMachineStatus(m, previous, clockOrReal(r.Clock).Now())
	value, err := json.Marshal(op)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("cannot encode the lastOperation of Cluster API Machine %s: %w", req.NamespacedName, err)
	}

	lastPhase, known := r.phases.get(req.NamespacedName)
	if !ok || stored != string(value) {
		produced, err := r.patchAnnotation(ctx, m, string(value))
		if err != nil {
			return ctrl.Result{}, err
		}
		r.written.put(req.NamespacedName, m.ResourceVersion, produced, string(value))
	}
	// Phase changes are known only while this manager remembers the Machine's last phase; a
	// Machine first seen without the annotation is new to machinestatus ("none").
	t := transition{to: phase}
	switch {
	case known:
		t.from, t.phaseChanged = lastPhase, lastPhase != phase
	case !ok:
		t.phaseChanged = true
	}
	if op != nil && op.State != v1alpha1.MachineOperationStateProcessing &&
		(previous == nil || previous.Type != op.Type || previous.State != op.State) {
		t.result = op
	}
	recordEvents(r.Recorder, eventRegarding(clusterv1.GroupVersion.String(), m), t)
	recordTransition(clusterv1.GroupVersion.Group, t)
	r.phases.set(req.NamespacedName, phase)
	return ctrl.Result{}, nil
}

// patchAnnotation sets m's LastOperationAnnotation to value with a JSON merge patch of that key
// alone and returns the resourceVersion the API server stored.
func (r *ClusterAPIMachineReconciler) patchAnnotation(ctx context.Context, m *clusterv1.Machine, value string) (string, error) {
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{aggregate.LastOperationAnnotation: value}},
	})
	if err != nil {
		return "", err
	}
	// Patch into a copy: the cached object must not change.
	target := &clusterv1.Machine{}
	target.Namespace, target.Name = m.Namespace, m.Name
	if err := r.Client.Patch(ctx, target, client.RawPatch(types.MergePatchType, body),
		fieldOwner(r.FieldOwner)); err != nil {
		return "", fmt.Errorf("cannot patch the %s annotation of Cluster API Machine %s/%s: %w",
			aggregate.LastOperationAnnotation, m.Namespace, m.Name, err)
	}
	return target.ResourceVersion, nil
}
