// Package bench compares machinestatus with Cluster API on identical inputs. It is a separate
// module so that the main module never requires sigs.k8s.io/cluster-api (the root module).
//
// Run it with `make bench`: the benchmarks are in bench_test.go, and cmd/benchtable turns their
// output into the side-by-side table of docs/benchmarks.md.
package bench

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Object holds conditions. It implements the Getter of both libraries (each asks for
// GetConditions() []metav1.Condition), so both summarize the very same slice.
type Object struct {
	Conditions []metav1.Condition
}

// GetConditions returns the conditions.
func (o *Object) GetConditions() []metav1.Condition { return o.Conditions }

// Target is the summary condition type computed in every case.
const Target = "Ready"

// Case is one summary input: an object, the condition types in scope, and the negative ones.
// Every library is given the same three.
type Case struct {
	// Name is the sub-benchmark name.
	Name string
	// Object is the object summarized.
	Object *Object
	// Scope lists the condition types in scope.
	Scope []string
	// Negative lists the types in scope for which True is the issue.
	Negative []string
}

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func condition(t string, s metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{
		Type: t, Status: s, Reason: reason, Message: message,
		ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(created.Add(10 * time.Minute)),
	}
}

// machineConditions are the ten conditions of a Cluster API-like Machine, all in their good
// state; the negative ones (Deleting, Paused, Updating) are False.
func machineConditions() []metav1.Condition {
	return []metav1.Condition{
		condition("BootstrapConfigReady", metav1.ConditionTrue, "Ready", ""),
		condition("Deleting", metav1.ConditionFalse, "NotDeleting", ""),
		condition("HealthCheckSucceeded", metav1.ConditionTrue, "HealthCheckSucceeded", ""),
		condition("InfrastructureReady", metav1.ConditionTrue, "Ready", ""),
		condition("NodeHealthy", metav1.ConditionTrue, "NodeHealthy", ""),
		condition("NodeReady", metav1.ConditionTrue, "NodeReady", ""),
		condition("Paused", metav1.ConditionFalse, "NotPaused", ""),
		condition("UpToDate", metav1.ConditionTrue, "UpToDate", ""),
		condition("Updating", metav1.ConditionFalse, "NotUpdating", ""),
		condition("example.com/NetworkAttached", metav1.ConditionTrue, "Attached", ""),
	}
}

// machineNegative are the negative-polarity types among machineConditions.
var machineNegative = []string{"Deleting", "Paused", "Updating"}

func types(list []metav1.Condition) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.Type
	}
	return out
}

func set(list []metav1.Condition, t string, s metav1.ConditionStatus, reason, message string) {
	for i := range list {
		if list[i].Type == t {
			list[i].Status, list[i].Reason, list[i].Message = s, reason, message
			return
		}
	}
	panic("no condition " + t)
}

// longMessage is a realistic long message: several lines of about 300 bytes each.
func longMessage(what string) string {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "* %s step %d: waiting for the provider to report progress; the last attempt returned "+
			"a transient error from the cloud API (request id 4f1c2a9e-%04d-4b7e-9d7a-0c6e5f3b2a1d, "+
			"throttled, retry after 30s); no action is needed unless this persists for more than 15 minutes\n", what, i, i)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Cases are the summary inputs both libraries are benchmarked on.
func Cases() []Case {
	oneFalse := machineConditions()
	set(oneFalse, "NodeReady", metav1.ConditionFalse, "NodeNotReady", "* Node.Ready: kubelet stopped posting node status")

	threeFalse := machineConditions()
	set(threeFalse, "InfrastructureReady", metav1.ConditionFalse, "NotReady", longMessage("InfrastructureReady"))
	set(threeFalse, "NodeReady", metav1.ConditionFalse, "NodeNotReady", longMessage("NodeReady"))
	set(threeFalse, "NodeHealthy", metav1.ConditionFalse, "NodeNotHealthy", longMessage("NodeHealthy"))

	fifty := machineConditions()
	for i := len(fifty); i < 50; i++ {
		fifty = append(fifty, condition(fmt.Sprintf("example.com/Gate%02d", i), metav1.ConditionTrue, "GateOpen", ""))
	}
	set(fifty, "example.com/Gate25", metav1.ConditionFalse, "GateClosed", "gate 25 is closed by policy")

	return []Case{
		{Name: "10conditions_1False", Object: &Object{Conditions: oneFalse}, Scope: types(oneFalse), Negative: machineNegative},
		{Name: "10conditions_allTrue", Object: &Object{Conditions: machineConditions()}, Scope: types(machineConditions()), Negative: machineNegative},
		{Name: "10conditions_3FalseLongMessages", Object: &Object{Conditions: threeFalse}, Scope: types(threeFalse), Negative: machineNegative},
		{Name: "50conditions_1False", Object: &Object{Conditions: fifty}, Scope: types(fifty), Negative: machineNegative},
	}
}

// RunningMachine is a realistic machinestatus Machine in its steady state: created, provisioned,
// its Node Ready and healthy, Ready, phase and lastOperation already derived (so Summarize
// computes everything and finds nothing to change, the common case in a controller).
func RunningMachine() *v1alpha1.Machine {
	at := func(minutes int) metav1.Time {
		return metav1.NewTime(created.Add(time.Duration(minutes) * time.Minute))
	}
	c := func(t string, s metav1.ConditionStatus, reason string, minutes int) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, ObservedGeneration: 1, LastTransitionTime: at(minutes)}
	}
	return &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default", Generation: 1, CreationTimestamp: at(0)},
		Spec: v1alpha1.MachineSpec{
			ProviderID: "aws:///eu-west-1a/i-0123456789abcdef0",
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AWSMachine", Name: "worker-0",
			},
			Bootstrap: &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "worker-0",
			}},
			Version: "v1.36.3",
		},
		Status: v1alpha1.MachineStatus{
			Conditions: []metav1.Condition{
				c(v1alpha1.MachineReadyCondition, metav1.ConditionTrue, "NoIssuesReported", 12),
				c(v1alpha1.MachineBootstrapConfigReadyCondition, metav1.ConditionTrue, v1alpha1.MachineBootstrapDataSecretCreatedReason, 1),
				c(v1alpha1.MachineDeletingCondition, metav1.ConditionFalse, v1alpha1.MachineNotDeletingReason, 0),
				c(v1alpha1.MachineDrainingCondition, metav1.ConditionFalse, v1alpha1.MachineNotDrainingReason, 0),
				c(v1alpha1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue, v1alpha1.MachineHealthCheckSucceededReason, 12),
				c(v1alpha1.MachineInfrastructureReadyCondition, metav1.ConditionTrue, v1alpha1.MachineInfrastructureProvisionedReason, 8),
				c(v1alpha1.MachineNodeHealthyCondition, metav1.ConditionTrue, v1alpha1.MachineNodeHealthyReason, 12),
				c(v1alpha1.MachineNodeReadyCondition, metav1.ConditionTrue, v1alpha1.MachineNodeReadyReason, 12),
				c(v1alpha1.MachinePausedCondition, metav1.ConditionFalse, v1alpha1.MachineNotPausedReason, 0),
				c(v1alpha1.MachineStandbyCondition, metav1.ConditionFalse, v1alpha1.MachineNotInStandbyReason, 0),
				c(v1alpha1.MachineUpdatingCondition, metav1.ConditionFalse, v1alpha1.MachineNotUpdatingReason, 0),
			},
			Phase: v1alpha1.MachinePhaseRunning,
			LastOperation: &v1alpha1.LastOperation{
				Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful,
				Description: "Created: the Node is Ready", LastUpdated: at(12),
			},
			ProviderID:         "aws:///eu-west-1a/i-0123456789abcdef0",
			NodeRef:            &v1alpha1.MachineNodeReference{Name: "ip-10-0-1-23.eu-west-1.compute.internal"},
			ObservedGeneration: 1,
		},
	}
}

// RunningClusterAPIMachine is a Cluster API v1beta2 Machine whose Node is Ready, as Cluster
// API's Machine controller reports it, and its lastOperation as ClusterAPIMachineStatus
// returned it before (the steady state of a caller that keeps it in an annotation).
func RunningClusterAPIMachine() (*clusterv1.Machine, *v1alpha1.LastOperation) {
	at := func(minutes int) metav1.Time {
		return metav1.NewTime(created.Add(time.Duration(minutes) * time.Minute))
	}
	c := func(t string, s metav1.ConditionStatus, reason string, minutes int) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, ObservedGeneration: 1, LastTransitionTime: at(minutes)}
	}
	yes := true
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default", Generation: 1, CreationTimestamp: at(0)},
		Spec: clusterv1.MachineSpec{
			ClusterName: "prod",
			ProviderID:  "aws:///eu-west-1a/i-0123456789abcdef0",
			Version:     "v1.36.3",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "worker-0"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AWSMachine", Name: "worker-0"},
		},
		Status: clusterv1.MachineStatus{
			Initialization: clusterv1.MachineInitializationStatus{BootstrapDataSecretCreated: &yes, InfrastructureProvisioned: &yes},
			NodeRef:        clusterv1.MachineNodeReference{Name: "ip-10-0-1-23.eu-west-1.compute.internal"},
			Conditions: []metav1.Condition{
				c(clusterv1.AvailableCondition, metav1.ConditionTrue, clusterv1.MachineAvailableReason, 12),
				c(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionTrue, clusterv1.MachineBootstrapConfigReadyReason, 1),
				c(clusterv1.MachineDeletingCondition, metav1.ConditionFalse, clusterv1.MachineNotDeletingReason, 0),
				c(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue, clusterv1.MachineHealthCheckSucceededReason, 12),
				c(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.MachineInfrastructureReadyReason, 8),
				c(clusterv1.MachineNodeHealthyCondition, metav1.ConditionTrue, clusterv1.MachineNodeHealthyReason, 12),
				c(clusterv1.MachineNodeReadyCondition, metav1.ConditionTrue, clusterv1.MachineNodeReadyReason, 12),
				c(clusterv1.PausedCondition, metav1.ConditionFalse, clusterv1.NotPausedReason, 0),
				c(clusterv1.MachineReadyCondition, metav1.ConditionTrue, clusterv1.MachineReadyReason, 12),
				c(clusterv1.MachineUpToDateCondition, metav1.ConditionTrue, clusterv1.MachineUpToDateReason, 0),
				c(clusterv1.MachineUpdatingCondition, metav1.ConditionFalse, clusterv1.MachineNotUpdatingReason, 0),
			},
			Phase: string(clusterv1.MachinePhaseRunning),
		},
	}
	previous := &v1alpha1.LastOperation{
		Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful,
		Description: "Created: the Node is Ready", LastUpdated: at(12),
	}
	return m, previous
}
