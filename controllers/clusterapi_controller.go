package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ClusterAPIMachineReconciler derives the phase and lastOperation of Cluster API v1beta2
// Machines (machines.cluster.x-k8s.io) with aggregate.ClusterAPIMachineStatus from the Machine
// alone (no Node, no referenced object is read), reports them through the same events and
// metrics as MachineReconciler, with the api_group label cluster.x-k8s.io, and keeps in their
// aggregate.LastOperationAnnotation what a later reader could not derive (aggregate.MustKeep).
//
// It observes and never acts on Cluster API's behalf: its only write is a JSON merge patch of
// metadata.annotations holding that one key, without a resourceVersion precondition, so it
// neither conflicts with Cluster API's own writes nor touches spec, status or any other
// metadata; a Machine that is gone when the patch lands has simply ended. It adds no finalizer:
// deletion is never blocked. Its RBAC is config/clusterapi/role.yaml.
//
// Between writes, the lastOperation lives in memory. After a restart the annotation is the
// baseline; a Machine without one, created before the manager started, is taken as it is at
// first sight, without reporting anything.
type ClusterAPIMachineReconciler struct {
	// Client patches the Machines' annotation.
	Client client.Client
	// APIReader reads, live, the Cluster of a Machine whose deletion starts (its
	// deletionTimestamp tells whether the Cluster is being deleted), and whether a Machine gone
	// from the cache still exists. Nil means Client.
	APIReader client.Reader
	// Cache holds the Cluster API Machines to reconcile (ServeClusterAPIMachines gives it one
	// of its own); the controller watches it and reads Machines from it.
	Cache cache.Cache
	// Recorder emits events on operation results and on phase Failed.
	Recorder events.EventRecorder
	// FieldOwner is the field manager of the annotation patches. Empty means DefaultFieldOwner.
	FieldOwner string
	// MaxConcurrentReconciles bounds parallel reconciles. Zero means 1.
	MaxConcurrentReconciles int
	// Clock gives the reconcile's instant, which dates a lastOperation change no condition's
	// lastTransitionTime dates (see aggregate.LastOperation). Nil means the real clock.
	Clock clock.PassiveClock

	started time.Time
	written lastWrites[v1alpha1.LastOperation]
	report  reporter
}

// deleteWriteDelay is how long a Delete waits, from its lastUpdated, before it is written while
// Cluster API's finalizer is on the Machine: Cluster API completes a deletion that nothing holds
// within a few seconds of the request (2-3 s in test/clusterapi) and deletes the Machine object
// within a second of reporting DeletionCompleted. A Delete Processing that ends meanwhile is an
// in-between state (its cause stays in memory and is written with the result), and a Machine
// that is gone needs no annotation (its result is reported when it goes). Once Cluster API's
// finalizer is gone, another controller's keeps the Machine: the result is written at once, so
// that a manager started next does not report it again.
const deleteWriteDelay = 5 * time.Second

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
	r.started = clockOrReal(r.Clock).Now()
	r.report = reporter{api: clusterv1.GroupVersion.Group, apiVersion: clusterv1.GroupVersion.String(), recorder: r.Recorder}
	r.report.init()
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

// Reconcile derives the Machine's phase and lastOperation, patches the annotation when
// aggregate.MustKeep says so, and reports them: get (NotFound: the Machine has ended) →
// baseline → derive → patch → report.
func (r *ClusterAPIMachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	now := clockOrReal(r.Clock).Now()
	m := &clusterv1.Machine{}
	if err := r.Cache.Get(ctx, req.NamespacedName, m); err != nil {
		if apierrors.IsNotFound(err) {
			r.gone(ctx, req.NamespacedName, now)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	stored := r.stored(ctx, m)
	previous, known := r.report.last(req.NamespacedName)
	if !known {
		previous = stored
	}
	clusterDeleting := r.clusterDeleting(ctx, m, previous)
	phase, op := aggregate.ClusterAPIMachineStatus(m, previous, clusterDeleting, now)

	// A Machine not known yet is compared with its annotation; without one, it is new to
	// machinestatus: reported from its creation when created while this manager runs, else taken
	// as it is now.
	b := baseline{op: stored}
	switch {
	case stored == nil && m.CreationTimestamp.Time.Before(r.started.Truncate(time.Second)):
		b = baseline{op: op, phase: phase, phaseKnown: true}
	case stored == nil:
		b = baseline{phaseKnown: true}
	}
	o := observation{m: m, cluster: aggregate.Cluster(m.Spec.ClusterName, m.Labels),
		pool: aggregate.Pool(m.Labels, ""), phase: phase, op: op, upToDate: upToDate(m)}

	// What must be kept is written before it is reported: a manager that stops in between
	// leaves a result that the next one reads from the annotation, never reports twice.
	keep := aggregate.MustKeep(m, stored, op, clusterDeleting)
	if keep && op.Type == v1alpha1.MachineOperationDelete && controllerutil.ContainsFinalizer(m, clusterv1.MachineFinalizer) {
		// Capped: an annotation dated in the future (hand-edited, a skewed writer) must not hold
		// the write back for longer.
		if wait := min(op.LastUpdated.Add(deleteWriteDelay).Sub(now), deleteWriteDelay); wait > 0 {
			r.report.report(o, b)
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	if keep {
		produced, err := r.patchAnnotation(ctx, m, op)
		switch {
		case apierrors.IsNotFound(err):
			r.report.report(o, b)
			r.gone(ctx, req.NamespacedName, now)
			return ctrl.Result{}, nil
		case err != nil:
			return ctrl.Result{}, err
		}
		r.written.put(req.NamespacedName, m.ResourceVersion, produced, *op)
	}
	r.report.report(o, b)
	return ctrl.Result{}, nil
}

// gone ends what is kept about a Machine gone from the cache; one deleted ends Delete
// Successful.
func (r *ClusterAPIMachineReconciler) gone(ctx context.Context, key types.NamespacedName, now time.Time) {
	r.written.forget(key)
	if r.report.known(key) {
		r.report.gone(key, now, machineDeleted(ctx, r.apiReader(), clusterv1.GroupVersion.WithKind("Machine"), key))
	}
}

func (r *ClusterAPIMachineReconciler) apiReader() client.Reader {
	if r.APIReader == nil {
		return r.Client
	}
	return r.APIReader
}

// stored returns what m's annotation holds, as far as this manager knows: its last write while
// the cache lags behind it, else the annotation (nil when none or unreadable: an unreadable one,
// hand-edited or corrupt, is overwritten by the next write).
func (r *ClusterAPIMachineReconciler) stored(ctx context.Context, m *clusterv1.Machine) *v1alpha1.LastOperation {
	if op, ok := r.written.get(client.ObjectKeyFromObject(m), m.ResourceVersion); ok {
		return &op
	}
	op, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil {
		log.FromContext(ctx).Info("ignoring an unreadable lastOperation annotation", "error", err.Error())
		return nil
	}
	return op
}

// clusterDeleting reports whether the Cluster of m, whose deletion starts (previous is not a
// Delete), is being deleted or gone: read live, once per deletion. False when it cannot tell.
func (r *ClusterAPIMachineReconciler) clusterDeleting(ctx context.Context, m *clusterv1.Machine, previous *v1alpha1.LastOperation) bool {
	if m.DeletionTimestamp == nil || m.Spec.ClusterName == "" ||
		(previous != nil && previous.Type == v1alpha1.MachineOperationDelete) {
		return false
	}
	c := &metav1.PartialObjectMetadata{}
	c.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("Cluster"))
	err := r.apiReader().Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: m.Spec.ClusterName}, c)
	switch {
	case apierrors.IsNotFound(err):
		return true
	case err != nil:
		log.FromContext(ctx).V(1).Info("cannot tell whether the Machine's Cluster is being deleted", "error", err.Error())
		return false
	}
	return c.DeletionTimestamp != nil
}

// upToDate is m's UpToDate condition as the machinestatus_machine_info label: "true", "false",
// or "" when Cluster API does not report it (or reports Unknown).
func upToDate(m *clusterv1.Machine) string {
	switch c := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineUpToDateCondition); {
	case c == nil:
		return ""
	case c.Status == metav1.ConditionTrue:
		return "true"
	case c.Status == metav1.ConditionFalse:
		return "false"
	}
	return ""
}

// patchAnnotation sets m's LastOperationAnnotation to keep op with a JSON merge patch of that
// key alone and returns the resourceVersion the API server stored.
func (r *ClusterAPIMachineReconciler) patchAnnotation(ctx context.Context, m *clusterv1.Machine, op *v1alpha1.LastOperation) (string, error) {
	value, err := aggregate.LastOperationAnnotationValue(op)
	if err != nil {
		return "", err
	}
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
