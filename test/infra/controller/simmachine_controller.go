package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

// SimMachineReconciler provisions SimMachines and registers their Nodes:
//   - provisionAfterSeconds after creation it sets spec.providerID (sim://<namespace>/<name>),
//     status.initialization.provisioned=true and Ready=True;
//   - registerNodeAfterSeconds later it creates the Node (spec.providerID, the kwok annotation,
//     status.nodeInfo.kubeletVersion = spec.kubeletVersion), and from then on keeps the Node's
//     kubelet version equal to spec.kubeletVersion (a simulated in-place upgrade);
//   - on deletion it deletes the Node, then releases its finalizer.
//
// A Node of the wanted name that belongs to another host is a terminal failure
// (status.failureReason NodeNameConflict); the provider then leaves the SimMachine alone.
//
// +kubebuilder:rbac:groups=infrastructure.machinestatus.io,resources=simmachines,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.machinestatus.io,resources=simmachines/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=nodes/status,verbs=patch
type SimMachineReconciler struct {
	// Client reads and writes SimMachines and Nodes.
	Client client.Client
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// SetupWithManager registers the reconciler with mgr: it watches SimMachines and the Nodes it
// created (mapped back by annotation), so that a Node changed or deleted behind its back is
// put right.
func (r *SimMachineReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		return errors.New("cannot set up the SimMachine reconciler: Client is nil")
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.SimMachine{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(nodeToSimMachine)).
		Named("simmachine").
		Complete(r)
}

// nodeToSimMachine maps a Node to the SimMachine named by its annotations.
func nodeToSimMachine(_ context.Context, o client.Object) []reconcile.Request {
	a := o.GetAnnotations()
	name := a[infrav1.SimMachineNameAnnotation]
	if name == "" {
		return nil
	}
	key := types.NamespacedName{Namespace: a[infrav1.SimMachineNamespaceAnnotation], Name: name}
	return []reconcile.Request{{NamespacedName: key}}
}

// Reconcile moves one SimMachine one step along: finalizer, provisioning, Node registration,
// kubelet version; or, when it is being deleted, Node deletion and finalizer removal.
func (r *SimMachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &infrav1.SimMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !m.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, m)
	}
	if !controllerutil.ContainsFinalizer(m, infrav1.SimMachineFinalizer) {
		patch := client.MergeFrom(m.DeepCopy())
		controllerutil.AddFinalizer(m, infrav1.SimMachineFinalizer)
		if err := r.Client.Patch(ctx, m, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("cannot add finalizer to SimMachine %s: %w", req, err)
		}
	}
	if m.Status.FailureReason != "" {
		return ctrl.Result{}, nil // terminal: a real provider gives up too
	}

	now := r.now()
	provisionAt := m.CreationTimestamp.Add(seconds(m.Spec.ProvisionAfterSeconds))
	if wait := provisionAt.Sub(now); wait > 0 {
		err := r.patchStatus(ctx, m, func(s *infrav1.SimMachineStatus) {
			setReady(s, m.Generation, now, metav1.ConditionFalse, infrav1.SimMachineProvisioningReason,
				"Waiting for the instance to start") // as a cloud provider says it, with no deadline to quote
		})
		return ctrl.Result{RequeueAfter: wait}, err
	}

	if m.Spec.ProviderID == "" {
		patch := client.MergeFrom(m.DeepCopy())
		m.Spec.ProviderID = infrav1.ProviderIDPrefix + m.Namespace + "/" + m.Name
		if err := r.Client.Patch(ctx, m, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("cannot set providerID of SimMachine %s: %w", req, err)
		}
	}
	if err := r.patchStatus(ctx, m, func(s *infrav1.SimMachineStatus) {
		s.Initialization = &infrav1.SimMachineInitializationStatus{Provisioned: ptr.To(true)}
		setReady(s, m.Generation, now, metav1.ConditionTrue, infrav1.SimMachineProvisionedReason,
			"Provisioned as "+m.Spec.ProviderID)
	}); err != nil {
		return ctrl.Result{}, err
	}

	ready := meta.FindStatusCondition(m.Status.Conditions, infrav1.SimMachineReadyCondition)
	registerAt := ready.LastTransitionTime.Add(seconds(m.Spec.RegisterNodeAfterSeconds))
	if wait := registerAt.Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return ctrl.Result{}, r.reconcileNode(ctx, m, now)
}

// reconcileNode creates the host's Node, or keeps its kubelet version equal to
// spec.kubeletVersion.
func (r *SimMachineReconciler) reconcileNode(ctx context.Context, m *infrav1.SimMachine, now time.Time) error {
	node := &corev1.Node{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: m.NodeName()}, node)
	if apierrors.IsNotFound(err) {
		if err := r.Client.Create(ctx, newNode(m)); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create Node %s for SimMachine %s/%s: %w", m.NodeName(), m.Namespace, m.Name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot get Node %s: %w", m.NodeName(), err)
	}

	if node.Spec.ProviderID != m.Spec.ProviderID {
		msg := fmt.Sprintf("Node %s exists with providerID %q, want %q", node.Name, node.Spec.ProviderID, m.Spec.ProviderID)
		return r.patchStatus(ctx, m, func(s *infrav1.SimMachineStatus) {
			s.FailureReason = infrav1.SimMachineNodeNameConflictFailure
			s.FailureMessage = msg
			setReady(s, m.Generation, now, metav1.ConditionFalse, infrav1.SimMachineFailedReason, msg)
		})
	}

	if m.Spec.KubeletVersion == "" || node.Status.NodeInfo.KubeletVersion == m.Spec.KubeletVersion {
		return nil
	}
	patch := client.MergeFrom(node.DeepCopy())
	node.Status.NodeInfo.KubeletVersion = m.Spec.KubeletVersion
	if err := r.Client.Status().Patch(ctx, node, patch); err != nil {
		return fmt.Errorf("cannot update the kubelet version of Node %s: %w", node.Name, err)
	}
	return nil
}

// reconcileDelete deletes the host's Node (only when it is this host's), then removes the
// finalizer.
func (r *SimMachineReconciler) reconcileDelete(ctx context.Context, m *infrav1.SimMachine) error {
	if !controllerutil.ContainsFinalizer(m, infrav1.SimMachineFinalizer) {
		return nil
	}
	node := &corev1.Node{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: m.NodeName()}, node)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("cannot get Node %s: %w", m.NodeName(), err)
	case m.Spec.ProviderID != "" && node.Spec.ProviderID == m.Spec.ProviderID:
		if err := r.Client.Delete(ctx, node); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("cannot delete Node %s: %w", node.Name, err)
		}
	}
	patch := client.MergeFrom(m.DeepCopy())
	controllerutil.RemoveFinalizer(m, infrav1.SimMachineFinalizer)
	if err := r.Client.Patch(ctx, m, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("cannot remove finalizer from SimMachine %s/%s: %w", m.Namespace, m.Name, err)
	}
	return nil
}

// patchStatus applies mutate to a copy of m's status and patches the status only when it changed.
func (r *SimMachineReconciler) patchStatus(ctx context.Context, m *infrav1.SimMachine, mutate func(*infrav1.SimMachineStatus)) error {
	before := m.DeepCopy()
	mutate(&m.Status)
	if equality.Semantic.DeepEqual(before.Status, m.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, m, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("cannot patch status of SimMachine %s/%s: %w", m.Namespace, m.Name, err)
	}
	return nil
}

func (r *SimMachineReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// newNode returns the Node a provisioned host registers: kwok manages it (annotation), the
// machinestatus controller finds it (spec.providerID), the provider maps it back (annotations).
func newNode(m *infrav1.SimMachine) *corev1.Node {
	name := m.NodeName()
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				infrav1.KwokNodeAnnotation:            infrav1.KwokNodeAnnotationValue,
				infrav1.SimMachineNamespaceAnnotation: m.Namespace,
				infrav1.SimMachineNameAnnotation:      m.Name,
			},
			Labels: map[string]string{
				corev1.LabelHostname:   name,
				corev1.LabelOSStable:   "linux",
				corev1.LabelArchStable: "amd64",
				"type":                 "kwok",
			},
		},
		Spec: corev1.NodeSpec{ProviderID: m.Spec.ProviderID},
		// The API server keeps the status of a created Node (the kubelet registers that way);
		// kwok keeps a kubelet version that is already set.
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: m.Spec.KubeletVersion}},
	}
}

// setReady sets the Ready condition, moving lastTransitionTime only when the status changes.
func setReady(s *infrav1.SimMachineStatus, generation int64, now time.Time, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type:               infrav1.SimMachineReadyCondition,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(now.Truncate(time.Second)),
	})
}

func seconds(s int32) time.Duration { return time.Duration(s) * time.Second }
