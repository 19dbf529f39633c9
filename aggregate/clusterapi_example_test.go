package aggregate_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
)

// A controller or GUI that watches Cluster API Machines derives a phase and lastOperation for
// each one, keeping the lastOperation in an annotation between calls.
func ExampleClusterAPIMachineStatus() {
	at := func(minutes int) metav1.Time {
		return metav1.NewTime(time.Date(2026, 1, 1, 0, minutes, 0, 0, time.UTC))
	}
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default", CreationTimestamp: at(0)},
		Spec: clusterv1.MachineSpec{
			ClusterName: "prod",
			ProviderID:  "aws:///eu-west-1a/i-0123456789abcdef0",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "worker-0"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AWSMachine", Name: "worker-0"},
		},
		Status: clusterv1.MachineStatus{
			Initialization: clusterv1.MachineInitializationStatus{
				BootstrapDataSecretCreated: ptr.To(true), InfrastructureProvisioned: ptr.To(true)},
			NodeRef: clusterv1.MachineNodeReference{Name: "ip-10-0-1-23"},
			Conditions: []metav1.Condition{
				{Type: "NodeReady", Status: metav1.ConditionTrue, Reason: "NodeReady", LastTransitionTime: at(7)},
			},
		},
	}

	// Read the previous lastOperation (none yet), derive, and keep the result.
	previous, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil {
		previous = nil // unreadable: start again from the conditions
	}
	phase, op := aggregate.ClusterAPIMachineStatus(m, previous, false, time.Time{})
	changed, _ := aggregate.SetLastOperationAnnotation(m, op)
	fmt.Println(phase, op.Type, op.State, op.LastUpdated.UTC().Format(time.RFC3339), changed)

	// Later the kubelet stops posting status.
	m.Status.Conditions[0] = metav1.Condition{Type: "NodeReady", Status: metav1.ConditionUnknown,
		Reason: "NodeReadyUnknown", Message: "* Node.Ready: Kubelet stopped posting node status.", LastTransitionTime: at(30)}
	previous, _ = aggregate.LastOperationFromAnnotations(m.Annotations)
	phase, op = aggregate.ClusterAPIMachineStatus(m, previous, false, time.Time{})
	changed, _ = aggregate.SetLastOperationAnnotation(m, op)
	fmt.Println(phase, op.Type, op.State, op.LastUpdated.UTC().Format(time.RFC3339), changed)
	fmt.Println(op.Description)

	// Nothing changed since: nothing to write.
	previous, _ = aggregate.LastOperationFromAnnotations(m.Annotations)
	_, op = aggregate.ClusterAPIMachineStatus(m, previous, false, time.Time{})
	changed, _ = aggregate.SetLastOperationAnnotation(m, op)
	fmt.Println(changed)

	// Output:
	// Running Create Successful 2026-01-01T00:07:00Z true
	// Unknown HealthCheck Processing 2026-01-01T00:30:00Z true
	// Node is not Ready: * Node.Ready: Kubelet stopped posting node status.
	// false
}
