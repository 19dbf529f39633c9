package clusterapi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

const (
	namespace   = metav1.NamespaceDefault
	clusterName = "c1"
	// kubeletVersion is what the Machines ask for and the simulated kubelet reports.
	kubeletVersion = "v1.36.3"
	// bootstrapSecret is the bootstrap data every Machine names in spec.bootstrap.dataSecretName.
	bootstrapSecret = "bootstrap-data"
	// workerRole labels the Machines the MachineHealthCheck selects.
	workerRole = "worker"
	// keepFinalizer keeps a worker Machine after Cluster API is done with it, so that its last
	// state can be read.
	keepFinalizer = "clusterapi.test.machinestatus.io/keep"
	// unhealthyTimeout is how long the MachineHealthCheck lets a Node be NotReady: long enough
	// for the NotReady state to settle before the health check fails.
	unhealthyTimeout = 30
	// never is the largest delay a SimMachine accepts: the test lowers it to 0 to let a step
	// happen.
	never = 86400
)

// suiteClusterGroup is the API group of SuiteCluster, the InfrastructureCluster kind the test
// plays the provider of: a Cluster without infrastructureRef gets InfrastructureReady=Unknown, and
// the MachineHealthCheck then checks no Machine.
const suiteClusterGroup = "clusterapi.test.machinestatus.io"

// suiteClusterCRD is a minimal InfrastructureCluster CRD (v1beta2 contract label).
func suiteClusterCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "suiteclusters." + suiteClusterGroup,
			Labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1alpha1"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: suiteClusterGroup,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: "SuiteCluster", ListKind: "SuiteClusterList", Plural: "suiteclusters", Singular: "suitecluster",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1alpha1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", XPreserveUnknownFields: ptr.To(true)},
						"status": {Type: "object", XPreserveUnknownFields: ptr.To(true)},
					},
				}},
			}},
		},
	}
}

// createCluster creates a Cluster, its provisioned SuiteCluster and its kubeconfig Secret (the
// workload cluster is the same API server).
func (h *harness) createCluster(ctx context.Context, name string) error {
	kubeconfig, err := os.ReadFile(h.fleet.Kubeconfig)
	if err != nil {
		return err
	}
	infra := &unstructured.Unstructured{}
	infra.SetAPIVersion(suiteClusterGroup + "/v1alpha1")
	infra.SetKind("SuiteCluster")
	infra.SetNamespace(namespace)
	infra.SetName(name)
	if err := unstructured.SetNestedMap(infra.Object, map[string]any{}, "spec"); err != nil {
		return err
	}
	objects := []client.Object{
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-kubeconfig",
				// Cluster API's manager caches only Secrets with this label.
				Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
			Type: clusterv1.ClusterSecretType,
			Data: map[string][]byte{"value": kubeconfig},
		},
		infra,
		&clusterv1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: clusterv1.ClusterSpec{
				Paused: ptr.To(false),
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: suiteClusterGroup, Kind: "SuiteCluster", Name: name,
				},
			},
		},
	}
	for _, o := range objects {
		if err := h.c.Create(ctx, o); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
		}
	}
	// Act as the infrastructure provider of the Cluster.
	if err := unstructured.SetNestedField(infra.Object, true, "status", "initialization", "provisioned"); err != nil {
		return err
	}
	ready := map[string]any{"type": "Ready", "status": "True", "reason": "Provisioned", "message": "",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	if err := unstructured.SetNestedSlice(infra.Object, []any{ready}, "status", "conditions"); err != nil {
		return err
	}
	if err := h.c.Status().Update(ctx, infra); err != nil {
		return fmt.Errorf("cannot report the SuiteCluster provisioned: %w", err)
	}
	return nil
}

// createBootstrapData creates the bootstrap data every Machine names.
func (h *harness) createBootstrapData(ctx context.Context) error {
	return h.c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: bootstrapSecret},
		Data:       map[string][]byte{"value": []byte("#!/bin/true")},
	})
}

// healthCheck is the lifecycle worker's MachineHealthCheck: a Node NotReady or Unknown for
// unhealthyTimeout fails the check; it never remediates (unhealthyLessThanOrEqualTo 0%).
func healthCheck() *clusterv1.MachineHealthCheck {
	noRemediation := intstr.FromString("0%")
	return &clusterv1.MachineHealthCheck{
		// No webhook runs: the label its defaulting webhook adds is set here.
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "workers",
			Labels: map[string]string{clusterv1.ClusterNameLabel: clusterName}},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: clusterName,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{"role": workerRole}},
			Checks: clusterv1.MachineHealthCheckChecks{
				NodeStartupTimeoutSeconds: ptr.To[int32](600),
				UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: ptr.To[int32](unhealthyTimeout)},
					{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To[int32](unhealthyTimeout)},
				},
			},
			Remediation: clusterv1.MachineHealthCheckRemediation{
				TriggerIf: clusterv1.MachineHealthCheckRemediationTriggerIf{UnhealthyLessThanOrEqualTo: &noRemediation},
			},
		},
	}
}

// createMachine creates a SimMachine and its Cluster API Machine of cluster, bootstrapped by
// dataSecretName. provisionAfter and registerAfter are the SimMachine's delays (never: until
// the test lowers them).
func (h *harness) createMachine(ctx context.Context, cluster, name string, controlPlane bool, provisionAfter, registerAfter int32, finalizers ...string) error {
	sim := &infrav1.SimMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: infrav1.SimMachineSpec{
			ProvisionAfterSeconds: provisionAfter, RegisterNodeAfterSeconds: registerAfter, KubeletVersion: kubeletVersion,
		},
	}
	// No webhook runs: the label its defaulting webhook adds is set here.
	labels := map[string]string{clusterv1.ClusterNameLabel: cluster}
	if controlPlane {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	} else {
		labels["role"] = workerRole
	}
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, Finalizers: finalizers},
		Spec: clusterv1.MachineSpec{
			ClusterName: cluster,
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(bootstrapSecret)},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachine", Name: name,
			},
			Version: kubeletVersion,
			// The defaulting webhook's value.
			Deletion: clusterv1.MachineDeletionSpec{NodeDeletionTimeoutSeconds: ptr.To[int32](10)},
		},
	}
	for _, o := range []client.Object{sim, m} {
		if err := h.c.Create(ctx, o); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, name, err)
		}
	}
	return nil
}

// patchSimMachine changes a SimMachine's spec (e.g. lowers a delay to let a step happen).
func (h *harness) patchSimMachine(ctx context.Context, name string, edit func(*infrav1.SimMachineSpec)) error {
	sim := &infrav1.SimMachine{}
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, sim); err != nil {
		return err
	}
	patch := client.MergeFrom(sim.DeepCopy())
	edit(&sim.Spec)
	return h.c.Patch(ctx, sim, patch)
}

// labelNode sets or removes a label of a Node.
func (h *harness) labelNode(ctx context.Context, name, key string, set bool) error {
	n := &corev1.Node{}
	if err := h.c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		return err
	}
	patch := client.MergeFrom(n.DeepCopy())
	if set {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[key] = "true"
	} else {
		delete(n.Labels, key)
	}
	return h.c.Patch(ctx, n, patch)
}

// drainBlocker is a Pod on the Node that a finalizer keeps after its eviction, so that Cluster
// API drains visibly until the test releases it.
func drainBlocker(node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "drain-blocker", Finalizers: []string{keepFinalizer}},
		Spec: corev1.PodSpec{
			NodeName:    node,
			Containers:  []corev1.Container{{Name: "c", Image: "none"}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
	}
}

// removeFinalizer removes keepFinalizer from obj (re-read first).
func (h *harness) removeFinalizer(ctx context.Context, obj client.Object) error {
	if err := h.c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	var kept []string
	for _, f := range obj.GetFinalizers() {
		if f != keepFinalizer {
			kept = append(kept, f)
		}
	}
	obj.SetFinalizers(kept)
	return client.IgnoreNotFound(h.c.Patch(ctx, obj, patch))
}

// cliCluster is the Cluster of the CLI scenario (its own, so that its tree shows only its
// pools).
const cliCluster = "c2"

// createClusters creates the bootstrap data, Cluster clusterName with its control plane
// Machine and the lifecycle worker's MachineHealthCheck, and Cluster cliCluster with its own
// control plane Machine; it returns once Cluster API has initialized both control planes.
func (h *harness) createClusters(ctx context.Context) error {
	if err := h.createBootstrapData(ctx); err != nil {
		return err
	}
	for _, c := range []string{clusterName, cliCluster} {
		if err := h.createCluster(ctx, c); err != nil {
			return err
		}
	}
	if err := h.c.Create(ctx, healthCheck()); err != nil {
		return err
	}
	errs := make(chan error, 2)
	for c, cp := range map[string]string{clusterName: controlPlane, cliCluster: cliCluster + "-" + controlPlane} {
		go func() {
			if err := h.createControlPlane(ctx, c, cp); err != nil {
				errs <- fmt.Errorf("the control plane of Cluster %s was not initialized: %w", c, err)
				return
			}
			errs <- nil
		}()
	}
	return errors.Join(<-errs, <-errs)
}
