package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The Machines the tests describe. Cluster API Machines start from the running Machine of
// conditions/testdata/adapters/machine-v1beta2.yaml (as Cluster API's Machine controller
// writes it) with conditions as Cluster API writes them in each state; machinestatus Machines
// get the status aggregate.Summarize derives, as the controller writes it.

// cond returns a condition that changed age ago.
func cond(t, status, reason, message string, age time.Duration) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(time.Now().Add(-age).Truncate(time.Second)), ObservedGeneration: 1}
}

// runningCAPIMachine returns the fixture's running Cluster API Machine as ns/name, its
// conditions 20 minutes old, ready to create.
func runningCAPIMachine(t *testing.T, ns, name string) *clusterv1.Machine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, "conditions", "testdata", "adapters", "machine-v1beta2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := &clusterv1.Machine{}
	if err := yaml.UnmarshalStrict(b, m); err != nil {
		t.Fatal(err)
	}
	m.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: name, Labels: m.Labels}
	m.Status.ObservedGeneration = 1
	for i := range m.Status.Conditions {
		c := &m.Status.Conditions[i]
		*c = cond(c.Type, string(c.Status), c.Reason, c.Message, 20*time.Minute)
	}
	return m
}

// setCAPICondition replaces (or adds) a condition of m.
func setCAPICondition(m *clusterv1.Machine, c metav1.Condition) {
	for i := range m.Status.Conditions {
		if m.Status.Conditions[i].Type == c.Type {
			m.Status.Conditions[i] = c
			return
		}
	}
	m.Status.Conditions = append(m.Status.Conditions, c)
}

// createCAPIMachine creates m and then writes its status (the status subresource ignores the
// status of a create).
func createCAPIMachine(t *testing.T, m *clusterv1.Machine) *clusterv1.Machine {
	t.Helper()
	ctx := context.Background()
	status := *m.Status.DeepCopy()
	if err := env.Client.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Status = status
	if err := env.Client.Status().Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// unhealthyCAPIMachine is a Running Machine whose Node stopped posting status and that a
// MachineHealthCheck marked unhealthy; its controller kept the lastOperation of its creation
// in the machinestatus.io/last-operation annotation.
func unhealthyCAPIMachine(t *testing.T, ns, name string) *clusterv1.Machine {
	m := runningCAPIMachine(t, ns, name)
	created := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful,
		Description: "Created: the Node is Ready", LastUpdated: metav1.NewTime(time.Now().Add(-20 * time.Minute).Truncate(time.Second))}
	if _, err := aggregate.SetLastOperationAnnotation(m, created); err != nil {
		t.Fatal(err)
	}
	// As Cluster API's MachineHealthCheck controller words it.
	failed := "Health check failed:\n  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s"
	setCAPICondition(m, cond("Ready", "False", "NotReady",
		"* HealthCheckSucceeded: "+failed+"\n* NodeHealthy:\n  * Node.Ready: Kubelet stopped posting node status.", 4*time.Minute))
	setCAPICondition(m, cond("Available", "False", "NotAvailable", "* NodeHealthy:\n  * Node.Ready: Kubelet stopped posting node status.", 9*time.Minute))
	setCAPICondition(m, cond("NodeReady", "Unknown", clusterv1.MachineNodeReadyUnknownReason, "* Node.Ready: Kubelet stopped posting node status.", 9*time.Minute))
	setCAPICondition(m, cond("NodeHealthy", "Unknown", clusterv1.MachineNodeHealthUnknownReason, "* Node.Ready: Kubelet stopped posting node status.", 9*time.Minute))
	setCAPICondition(m, cond("HealthCheckSucceeded", "False", clusterv1.MachineHealthCheckUnhealthyNodeReason, failed, 4*time.Minute))
	setCAPICondition(m, cond("OwnerRemediated", "False", clusterv1.MachineOwnerRemediatedWaitingForRemediationReason,
		"Waiting for remediation", 4*time.Minute))
	return m
}

// provisioningCAPIMachine is a new Machine with a user-provided bootstrap data secret whose
// DockerMachine is being provisioned: no Node, no providerID yet.
func provisioningCAPIMachine(t *testing.T, ns, name string) *clusterv1.Machine {
	m := runningCAPIMachine(t, ns, name)
	secret := name + "-bootstrap"
	m.Spec.Bootstrap = clusterv1.Bootstrap{DataSecretName: &secret}
	m.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{
		APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: name}
	m.Spec.ProviderID = ""
	m.Status.NodeRef = clusterv1.MachineNodeReference{}
	m.Status.Phase = string(clusterv1.MachinePhaseProvisioning)
	m.Status.Deprecated = nil
	infra := false
	m.Status.Initialization.InfrastructureProvisioned = &infra
	m.Status.Conditions = []metav1.Condition{
		cond("Available", "False", "NotAvailable", "* InfrastructureReady: DockerMachine status.initialization.provisioned is false", time.Minute),
		cond("BootstrapConfigReady", "True", clusterv1.MachineBootstrapDataSecretProvidedReason, "", time.Minute),
		cond("Deleting", "False", clusterv1.MachineNotDeletingReason, "", time.Minute),
		cond("InfrastructureReady", "False", "NotReady", "DockerMachine status.initialization.provisioned is false", time.Minute),
		cond("NodeHealthy", "Unknown", clusterv1.MachineNodeDoesNotExistReason, "* Node: Waiting for a Node with spec.providerID to exist", time.Minute),
		cond("NodeReady", "Unknown", clusterv1.MachineNodeDoesNotExistReason, "* Node: Waiting for a Node with spec.providerID to exist", time.Minute),
		cond("Paused", "False", "NotPaused", "", time.Minute),
		cond("Ready", "False", "NotReady", "* InfrastructureReady: DockerMachine status.initialization.provisioned is false", time.Minute),
		cond("UpToDate", "True", clusterv1.MachineUpToDateReason, "", time.Minute),
	}
	return m
}

// deletingCAPIMachine is a Running Machine being deleted, its Node being drained; a finalizer
// keeps it (no Cluster API controller runs).
func deletingCAPIMachine(t *testing.T, ns, name string) *clusterv1.Machine {
	m := runningCAPIMachine(t, ns, name)
	m.Finalizers = []string{"test.machinestatus.io/keep"}
	m.Status.Phase = string(clusterv1.MachinePhaseDeleting)
	m.Status.Deletion = &clusterv1.MachineDeletionStatus{NodeDrainStartTime: metav1.NewTime(time.Now().Add(-2 * time.Minute).Truncate(time.Second))}
	setCAPICondition(m, cond("Deleting", "True", clusterv1.MachineDeletingDrainingNodeReason,
		"Drain not completed yet (started at 2m ago):\n* Pods with deletionTimestamp that still exist: web-7f9c5d-abcde\n* Pod web-7f9c5d-xyz12: cannot evict pod as it would violate the pod's disruption budget.", 2*time.Minute))
	setCAPICondition(m, cond("Ready", "False", "NotReady", "* Deleting: Machine deletion in progress, stage: DrainingNode", 2*time.Minute))
	return m
}

// deleteObject requests the deletion of obj (kept by its finalizers).
func deleteObject(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Delete(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// createMachinestatusMachine creates a machinestatus Machine ns/name with the given
// conditions and writes the status aggregate.Summarize derives from them.
func createMachinestatusMachine(t *testing.T, ns, name string, labels map[string]string, cs ...metav1.Condition) *v1alpha1.Machine {
	t.Helper()
	ctx := context.Background()
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: v1alpha1.MachineSpec{
			ProviderID: "sim://" + name,
			Version:    "v1.36.3",
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.machinestatus.io", Kind: "SimMachine", Name: name},
		},
	}
	if err := env.Client.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Status.Conditions = cs
	m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: name}
	aggregate.Summarize(m, time.Time{})
	if err := env.Client.Status().Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// runningConditions are a machinestatus Machine's conditions once its Node is Ready.
func runningConditions() []metav1.Condition {
	return []metav1.Condition{
		cond(v1alpha1.MachineInfrastructureReadyCondition, "True", v1alpha1.MachineInfrastructureProvisionedReason, "", 30*time.Minute),
		cond(v1alpha1.MachineNodeReadyCondition, "True", v1alpha1.MachineNodeReadyReason, "", 25*time.Minute),
		cond(v1alpha1.MachineNodeHealthyCondition, "True", v1alpha1.MachineNodeHealthyReason, "", 25*time.Minute),
		cond(v1alpha1.MachineHealthCheckSucceededCondition, "True", v1alpha1.MachineHealthCheckSucceededReason, "", 25*time.Minute),
		cond(v1alpha1.MachineDrainingCondition, "False", v1alpha1.MachineNotDrainingReason, "", 30*time.Minute),
		cond(v1alpha1.MachineUpdatingCondition, "False", v1alpha1.MachineNotUpdatingReason, "", 30*time.Minute),
	}
}

// failedConditions are a machinestatus Machine's conditions after its Node stayed NotReady
// past the health check's timeout.
func failedConditions() []metav1.Condition {
	return []metav1.Condition{
		cond(v1alpha1.MachineInfrastructureReadyCondition, "True", v1alpha1.MachineInfrastructureProvisionedReason, "", 30*time.Minute),
		cond(v1alpha1.MachineNodeReadyCondition, "False", v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting node status", 8*time.Minute),
		cond(v1alpha1.MachineNodeHealthyCondition, "True", v1alpha1.MachineNodeHealthyReason, "", 25*time.Minute),
		cond(v1alpha1.MachineHealthCheckSucceededCondition, "False", v1alpha1.MachineHealthCheckUnhealthyNodeReason,
			"Node condition Ready=False for more than 300s", 3*time.Minute),
		cond(v1alpha1.MachineDrainingCondition, "False", v1alpha1.MachineNotDrainingReason, "", 30*time.Minute),
	}
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// copyFile copies the file from to the file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// decodeJSON reads describe's --output json.
func decodeJSON(t *testing.T, r result, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), into); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r)
	}
}
