package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/refs"
	"github.com/machinestatus/machinestatus/status"
)

// DefaultFieldOwner is the server-side apply field manager of the controller's status writes.
const DefaultFieldOwner = "machinestatus"

// The manager's ClusterRole (config/rbac/role.yaml, `make manifests`): read Machines, Nodes and
// the Cluster API infrastructure and bootstrap groups, and CRDs (to follow the referenced kinds'
// API versions, versions.go); write only Machine status (server-side
// apply is a PATCH) and events (the events API creates, then patches a series). Referenced kinds
// in other groups need an extra grant (docs/operating.md, "Least privilege").
// +kubebuilder:rbac:groups=machinestatus.io,resources=machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=machinestatus.io,resources=machines/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// MachineReconciler observes Machines, their Nodes and referenced objects and writes the
// Machines' status.
type MachineReconciler struct {
	// Client reads Machines and Nodes from the cache and writes Machine status.
	Client client.Client
	// APIReader tells, live, whether a Machine gone from the cache still exists (it may have
	// left --machine-selector instead). Nil means Client.
	APIReader client.Reader
	// Cache reads referenced objects of any kind; watches on their kinds are added on first use.
	Cache cache.Cache
	// RESTMapper resolves a reference's API group and kind to a version.
	RESTMapper meta.RESTMapper
	// Recorder emits events on phase changes and operation results.
	Recorder events.EventRecorder
	// Clock gives the reconcile time. Nil means the real clock.
	Clock clock.PassiveClock
	// FieldOwner is the server-side apply field manager. Empty means DefaultFieldOwner.
	FieldOwner string
	// MaxConcurrentReconciles bounds parallel reconciles. Zero means 1.
	MaxConcurrentReconciles int
	// PoolLabel is the label that names a Machine's pool in metrics (aggregate.Pool). Empty
	// means aggregate.DefaultPoolLabel.
	PoolLabel string
	// KindRetryInterval is how often a Machine whose reference names a kind the API server
	// does not serve, or that RBAC does not let the manager read, is reconciled again, to notice
	// the kind once its CRD is installed or access granted; the RESTMapper (and the API server,
	// with access reviews) is asked about such a kind at most once per interval. Zero means
	// DefaultKindRetryInterval.
	KindRetryInterval time.Duration

	refs       *refs.Reader
	refsOnce   sync.Once
	written    writtenStatuses
	report     reporter
	reportOnce sync.Once
	refusals   refusedWrites
}

// SetupWithManager checks the reconciler's dependencies, registers its field indexes and
// watches (Machines, Nodes, and referenced kinds as they appear) with mgr. It returns an error
// naming a missing dependency or the failed registration.
func (r *MachineReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	switch {
	case r.Client == nil:
		return errors.New("machine reconciler: Client is required")
	case r.Cache == nil:
		return errors.New("machine reconciler: Cache is required")
	case r.RESTMapper == nil:
		return errors.New("machine reconciler: RESTMapper is required")
	case r.Recorder == nil:
		return errors.New("machine reconciler: Recorder is required")
	}
	r.reporter()
	if err := setupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	reader := r.reader()
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Machine{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.machinesForNode),
			builder.WithPredicates(nodeChangePredicate())).
		Watches(refs.NewCRD(), handler.EnqueueRequestsFromMapFunc(reader.CRDChanged)).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("machine").
		Build(r)
	if err != nil {
		return fmt.Errorf("cannot build the machine controller: %w", err)
	}
	// 1 once elected, like the controller: a standby replica reconciles nothing.
	served := machineAPIServedMetric.WithLabelValues(v1alpha1.GroupVersion.Group)
	served.Set(0)
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		served.Set(1)
		<-ctx.Done()
		return nil
	})); err != nil {
		return err
	}
	return reader.SetupWithManager(mgr, c)
}

// Reconcile computes the Machine's whole status and writes it when it differs from the stored
// one: get (ignore NotFound) → snapshot → observe → compute → one apply.
func (r *MachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &v1alpha1.Machine{}
	if err := r.Client.Get(ctx, req.NamespacedName, m); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
			if r.reporter().known(req.NamespacedName) {
				reader := r.APIReader
				if reader == nil {
					reader = r.Client
				}
				deleted := machineDeleted(ctx, reader, v1alpha1.GroupVersion.WithKind("Machine"), req.NamespacedName)
				r.reporter().gone(req.NamespacedName, r.clock().Now(), deleted)
			}
			r.refusals.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := m.DeepCopy()
	now := r.clock().Now()

	var next time.Time
	if status.IsPaused(m) {
		if err := status.ComputePaused(m, now); err != nil {
			return ctrl.Result{}, err
		}
	} else {
		in, err := r.observe(ctx, m, now)
		if err != nil {
			return ctrl.Result{}, err
		}
		if next, err = status.Compute(m, in); err != nil {
			return ctrl.Result{}, err
		}
		next = r.reader().RetryDeadline(now, next, in.Refs()...)
	}
	omitted := status.FitConditions(m)

	// The stored status as far as we know: our last write while the cache lags behind it.
	stored := before
	if s := r.written.lastWritten(before); s != nil {
		stored = &v1alpha1.Machine{Status: *s}
	}
	if !equality.Semantic.DeepEqual(stored.Status, m.Status) {
		r.reportOmitted(ctx, m, omitted)
		written, err := r.applyStatus(ctx, m)
		if err != nil {
			if delay, ok := r.handleRefusal(ctx, m, err); ok {
				return ctrl.Result{RequeueAfter: delay}, nil
			}
			return ctrl.Result{}, err
		}
		if r.refusals.accepted(req.NamespacedName) {
			log.FromContext(ctx).Info("the API server accepts this Machine's status again")
		}
		r.written.record(before, &m.Status, written)
	}
	r.reporter().report(observation{m: m, cluster: aggregate.Cluster("", m.Labels),
		pool:  aggregate.Pool(m.Labels, cmp.Or(r.PoolLabel, aggregate.DefaultPoolLabel)),
		phase: m.Status.Phase, op: m.Status.LastOperation},
		baseline{op: stored.Status.LastOperation, phase: stored.Status.Phase, phaseKnown: true})
	if next.IsZero() {
		return ctrl.Result{}, nil
	}
	// Deadlines come from second-precision times; a little slack avoids waking just before one.
	return ctrl.Result{RequeueAfter: max(next.Sub(now), 0) + 250*time.Millisecond}, nil
}

func (r *MachineReconciler) clock() clock.PassiveClock { return clockOrReal(r.Clock) }

// reader returns the reader of referenced objects, made on first use from r's fields; without
// SetupWithManager it starts no watch.
// reporter returns the reconciler's reporter, made on first use: by SetupWithManager, or by
// Reconcile when the reconciler is driven without a manager (as tests do).
func (r *MachineReconciler) reporter() *reporter {
	r.reportOnce.Do(func() {
		r.report = reporter{api: v1alpha1.GroupVersion.Group, apiVersion: v1alpha1.GroupVersion.String(),
			recorder: r.Recorder, allPhases: true}
		r.report.init()
	})
	return &r.report
}

func (r *MachineReconciler) reader() *refs.Reader {
	r.refsOnce.Do(func() {
		r.refs = &refs.Reader{Client: r.Client, Cache: r.Cache, RESTMapper: r.RESTMapper,
			RetryInterval: r.KindRetryInterval, Clock: r.Clock, Referrers: r.referrers}
	})
	return r.refs
}

// observe reads the referenced infrastructure and bootstrap objects and the Node. Problems that
// a condition can describe (not found, kind not served, forbidden, malformed) become part of
// the inputs; other errors are returned for a retry.
func (r *MachineReconciler) observe(ctx context.Context, m *v1alpha1.Machine, now time.Time) (status.Inputs, error) {
	in := status.Inputs{Now: now}
	var err error
	if in.Infra, err = r.reader().Read(ctx, m.Namespace, m.Spec.InfrastructureRef, "provisioned", now); err != nil {
		return in, err
	}
	if b := m.Spec.Bootstrap; b != nil && b.ConfigRef != nil {
		bs, err := r.reader().Read(ctx, m.Namespace, *b.ConfigRef, "dataSecretCreated", now)
		if err != nil {
			return in, err
		}
		in.Bootstrap = &bs
	}
	in.Node, in.SharedWith, err = r.findNode(ctx, m, in.Infra)
	return in, err
}

// findNode returns the Machine's Node among the Nodes with its providerID (found by field
// index; status.MachineNode chooses) and the other Nodes with that providerID; nil when there is
// none.
func (r *MachineReconciler) findNode(ctx context.Context, m *v1alpha1.Machine, infra status.Ref) (*corev1.Node, []string, error) {
	id := status.ProviderID(m, infra)
	if id == "" {
		return nil, nil, nil
	}
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.MatchingFields{nodeProviderIDIndex: id}); err != nil {
		return nil, nil, fmt.Errorf("cannot list Nodes with providerID %s: %w", id, err)
	}
	node, shared := status.MachineNode(id, m.Status.NodeRef, nodes.Items)
	return node, shared, nil
}

// referrers returns the Machines in namespace ("" all) that reference an object of kind gk named
// name ("" any): refs.Reader's Referrers.
func (r *MachineReconciler) referrers(ctx context.Context, gk schema.GroupKind, namespace, name string) []reconcile.Request {
	if name == "" {
		return r.machineRequests(ctx, client.InNamespace(namespace), client.MatchingFields{machineRefKindIndex: groupKindKey(gk)})
	}
	return r.machineRequests(ctx, client.InNamespace(namespace), client.MatchingFields{machineRefIndex: refKey(gk.Group, gk.Kind, name)})
}

// machinesForNode maps a Node to the Machines that name it (to notice a Node that is no longer
// theirs) or share its providerID.
func (r *MachineReconciler) machinesForNode(ctx context.Context, obj client.Object) []reconcile.Request {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return nil
	}
	reqs := r.machineRequests(ctx, client.MatchingFields{machineNodeNameIndex: node.Name})
	if node.Spec.ProviderID != "" {
		reqs = append(reqs, r.machineRequests(ctx, client.MatchingFields{machineProviderIDIndex: node.Spec.ProviderID})...)
	}
	return reqs
}

func (r *MachineReconciler) machineRequests(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	list := &v1alpha1.MachineList{}
	if err := r.Client.List(ctx, list, opts...); err != nil {
		log.FromContext(ctx).Error(err, "cannot list Machines for a watched object")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}
