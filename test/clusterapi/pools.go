package clusterapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// A pool is a MachineDeployment (named after the pool) of SimMachines cloned from a
// SimMachineTemplate of the same name. No webhook runs, so what Cluster API's defaulting
// webhooks would set is set here.

// simMachineTemplateCRD is the CRD of SimMachineTemplate, the simulated provider's
// InfrastructureMachineTemplate: its spec is kept as given (spec.template.spec is a
// SimMachine's spec), and it carries the v1beta2 contract label.
func simMachineTemplateCRD() *apiextensionsv1.CustomResourceDefinition {
	group := infrav1.GroupVersion.Group
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "simmachinetemplates." + group,
			Labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1alpha1"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: "SimMachineTemplate", ListKind: "SimMachineTemplateList", Plural: "simmachinetemplates", Singular: "simmachinetemplate",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: infrav1.GroupVersion.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:       "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", XPreserveUnknownFields: ptr.To(true)}},
				}},
			}},
		},
	}
}

// poolSpec describes a pool.
type poolSpec struct {
	name     string
	cluster  string
	replicas int32
	// sim is the SimMachines' spec (the template's).
	sim infrav1.SimMachineSpec
}

// createSimTemplate creates a SimMachineTemplate.
func (h *harness) createSimTemplate(ctx context.Context, name string, sim infrav1.SimMachineSpec) error {
	if sim.KubeletVersion == "" {
		sim.KubeletVersion = kubeletVersion
	}
	simSpec := map[string]any{"kubeletVersion": sim.KubeletVersion}
	if sim.ProvisionAfterSeconds != 0 {
		simSpec["provisionAfterSeconds"] = int64(sim.ProvisionAfterSeconds)
	}
	if sim.RegisterNodeAfterSeconds != 0 {
		simSpec["registerNodeAfterSeconds"] = int64(sim.RegisterNodeAfterSeconds)
	}
	tmpl := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": infrav1.GroupVersion.String(), "kind": "SimMachineTemplate",
		"metadata": map[string]any{"namespace": namespace, "name": name},
		"spec":     map[string]any{"template": map[string]any{"spec": simSpec}},
	}}
	if err := h.c.Create(ctx, tmpl); err != nil {
		return fmt.Errorf("cannot create SimMachineTemplate %s: %w", name, err)
	}
	return nil
}

// createPool creates the pool's SimMachineTemplate and MachineDeployment.
func (h *harness) createPool(ctx context.Context, p poolSpec) error {
	if err := h.createSimTemplate(ctx, p.name, p.sim); err != nil {
		return err
	}
	// What the MachineDeployment's defaulting webhook sets: the cluster-name label, the
	// selector (deployment-name and cluster-name) and the template's labels, the RollingUpdate
	// strategy with maxSurge 1 and maxUnavailable 0; and the Machine's (which Machines a
	// MachineSet creates never go through): deletion.nodeDeletionTimeoutSeconds.
	selector := map[string]string{clusterv1.MachineDeploymentNameLabel: p.name, clusterv1.ClusterNameLabel: p.cluster}
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: p.name, Labels: map[string]string{clusterv1.ClusterNameLabel: p.cluster}},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: p.cluster,
			Replicas:    ptr.To(p.replicas),
			Selector:    metav1.LabelSelector{MatchLabels: selector},
			Rollout: clusterv1.MachineDeploymentRolloutSpec{Strategy: clusterv1.MachineDeploymentRolloutStrategy{
				Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: selector},
				Spec: clusterv1.MachineSpec{
					ClusterName: p.cluster,
					Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(bootstrapSecret)},
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachineTemplate", Name: p.name,
					},
					Version:  kubeletVersion,
					Deletion: clusterv1.MachineDeletionSpec{NodeDeletionTimeoutSeconds: ptr.To[int32](10)},
				},
			},
		},
	}
	if err := h.c.Create(ctx, md); err != nil {
		return fmt.Errorf("cannot create MachineDeployment %s: %w", p.name, err)
	}
	return nil
}

// poolHealthCheck is a MachineHealthCheck of the pool's Machines that remediates (the default
// triggerIf): a Node NotReady or Unknown for unhealthy seconds, or no Node startup seconds after
// the infrastructure is ready, fails the check and the MachineSet replaces the Machine.
func poolHealthCheck(p poolSpec, unhealthy, startup int32) *clusterv1.MachineHealthCheck {
	return &clusterv1.MachineHealthCheck{
		// The label the defaulting webhook adds.
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: p.name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: p.cluster}},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: p.cluster,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{clusterv1.MachineDeploymentNameLabel: p.name}},
			Checks: clusterv1.MachineHealthCheckChecks{
				NodeStartupTimeoutSeconds: ptr.To(startup),
				UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: ptr.To(unhealthy)},
					{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To(unhealthy)},
				},
			},
		},
	}
}

// poolMachines lists the pool's Machines, by name.
func (h *harness) poolMachines(ctx context.Context, pool string) ([]clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	if err := h.c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: pool}); err != nil {
		return nil, err
	}
	slices.SortFunc(list.Items, func(a, b clusterv1.Machine) int { return strings.Compare(a.Name, b.Name) })
	return list.Items, nil
}

// editMachineDeployment changes a MachineDeployment (re-read on a conflict).
func (h *harness) editMachineDeployment(ctx context.Context, name string, edit func(*clusterv1.MachineDeployment)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		md := &clusterv1.MachineDeployment{}
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, md); err != nil {
			return err
		}
		patch := client.MergeFromWithOptions(md.DeepCopy(), client.MergeFromWithOptimisticLock{})
		edit(md)
		return h.c.Patch(ctx, md, patch)
	})
}

// rollOut moves the pool to newVersion: a new SimMachineTemplate whose kubelet reports it, and
// the MachineDeployment's version and infrastructure template (Cluster API v1.14 counts a
// Machine up to date only once its Node's kubelet reports the version).
func (h *harness) rollOut(ctx context.Context, pool string) error {
	name := pool + "-" + strings.ReplaceAll(strings.TrimPrefix(newVersion, "v"), ".", "-")
	if err := h.createSimTemplate(ctx, name, infrav1.SimMachineSpec{KubeletVersion: newVersion}); err != nil {
		return err
	}
	return h.editMachineDeployment(ctx, pool, func(md *clusterv1.MachineDeployment) {
		md.Spec.Template.Spec.Version = newVersion
		md.Spec.Template.Spec.InfrastructureRef.Name = name
	})
}

// scalePool sets the pool's replicas.
func (h *harness) scalePool(ctx context.Context, pool string, replicas int32) error {
	return h.editMachineDeployment(ctx, pool, func(md *clusterv1.MachineDeployment) { md.Spec.Replicas = ptr.To(replicas) })
}

// editMachine changes a Machine's metadata (re-read on a conflict, so that nothing Cluster API
// wrote meanwhile is lost); a Machine that is gone is left alone.
func (h *harness) editMachine(ctx context.Context, name string, edit func(*clusterv1.Machine)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, m); err != nil {
			return err
		}
		patch := client.MergeFromWithOptions(m.DeepCopy(), client.MergeFromWithOptimisticLock{})
		edit(m)
		return h.c.Patch(ctx, m, patch)
	})
	return client.IgnoreNotFound(err)
}

// editPool applies edit to each of the pool's Machines that match.
func (h *harness) editPool(ctx context.Context, pool string, match func(*clusterv1.Machine) bool, edit func(*clusterv1.Machine)) error {
	ms, err := h.poolMachines(ctx, pool)
	if err != nil {
		return err
	}
	for i := range ms {
		if match(&ms[i]) {
			if err := h.editMachine(ctx, ms[i].Name, edit); err != nil {
				return err
			}
		}
	}
	return nil
}

func addFinalizer(m *clusterv1.Machine) {
	if !slices.Contains(m.Finalizers, keepFinalizer) {
		m.Finalizers = append(m.Finalizers, keepFinalizer)
	}
}

func dropFinalizer(m *clusterv1.Machine) {
	m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == keepFinalizer })
}

func everyMachine(*clusterv1.Machine) bool { return true }

func deleting(m *clusterv1.Machine) bool { return m.DeletionTimestamp != nil }

// keepPool gives each of the pool's Machines the test finalizer, so that each one deleted
// stays, with its last state, until the test releases it.
func (h *harness) keepPool(ctx context.Context, pool string) error {
	return h.editPool(ctx, pool, everyMachine, addFinalizer)
}

// releasePool removes the test finalizer from the pool's Machines that match.
func (h *harness) releasePool(ctx context.Context, pool string, match func(*clusterv1.Machine) bool) error {
	return h.editPool(ctx, pool, match, dropFinalizer)
}

// The deletion hooks the suite sets and releases (their value names the owner).
const (
	preDrainHook     = clusterv1.PreDrainDeleteHookAnnotationPrefix + "/suite"
	preTerminateHook = clusterv1.PreTerminateDeleteHookAnnotationPrefix + "/suite"
)

func setAnnotation(key string) func(*clusterv1.Machine) {
	return func(m *clusterv1.Machine) {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[key] = "clusterapi-suite"
	}
}

func dropAnnotation(key string) func(*clusterv1.Machine) {
	return func(m *clusterv1.Machine) { delete(m.Annotations, key) }
}

// nodeNotReady makes the Node of the pool's first Machine (by name) NotReady and returns that
// Machine's name.
func (h *harness) nodeNotReady(ctx context.Context, pool string) (string, error) {
	ms, err := h.poolMachines(ctx, pool)
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		if m.Status.NodeRef.Name != "" && m.DeletionTimestamp == nil {
			return m.Name, h.labelNode(ctx, m.Status.NodeRef.Name, kwok.NotReadyLabel, true)
		}
	}
	return "", fmt.Errorf("pool %s has no Machine with a Node", pool)
}

// createControlPlane creates the control plane Machine of a Cluster and waits until Cluster
// API has initialized the Cluster's control plane with it (with ControlPlaneInitialized set by
// hand instead, deletion would skip the drain and the Node deletion).
func (h *harness) createControlPlane(ctx context.Context, cluster, name string) error {
	if err := h.createMachine(ctx, cluster, name, true, 0, 0); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, poll, stepTimeout, true, func(ctx context.Context) (bool, error) {
		cl := &clusterv1.Cluster{}
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: cluster}, cl); err != nil {
			return false, err
		}
		for _, c := range cl.Status.Conditions {
			if c.Type == clusterv1.ClusterControlPlaneInitializedCondition && c.Status == metav1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}
