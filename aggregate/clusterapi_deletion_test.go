package aggregate_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestClusterAPIDeletionSaysWhy: scale-down, rollout, remediation and a manual delete must not
// all read "Deletion in progress": the description names why Cluster API deletes the Machine,
// from what the Machine carries when its deletion starts, and keeps it (with the failure that
// caused a remediation) until the Machine is gone, whatever the conditions say later.
func TestClusterAPIDeletionSaysWhy(t *testing.T) {
	T, F := metav1.ConditionTrue, metav1.ConditionFalse
	deleting := func(m *clusterv1.Machine) { ts := capiAt(60); m.DeletionTimestamp = &ts }
	drain := capiCond(clusterv1.MachineDeletingCondition, T, clusterv1.MachineDeletingDrainingNodeReason, "Drain not completed yet", 61)
	notUpToDate := capiCond(clusterv1.MachineUpToDateCondition, F, clusterv1.MachineNotUpToDateReason, "* Version v1.36.3, v1.36.4 required", 50)
	startupTimeout := capiCond(clusterv1.MachineHealthCheckSucceededCondition, F, clusterv1.MachineHealthCheckNodeStartupTimeoutReason,
		"Health check failed: Node failed to report startup in 10m0s", 55)
	unhealthyNode := capiCond(clusterv1.MachineHealthCheckSucceededCondition, F, clusterv1.MachineHealthCheckUnhealthyNodeReason,
		"Health check failed: Condition Ready on Node is reporting status Unknown for more than 5m0s", 55)
	ownerRemediated := capiCond(clusterv1.MachineOwnerRemediatedCondition, F, "MachineDeleting", "Machine is deleted (remediation)", 59)
	annotate := func(k string) func(*clusterv1.Machine) {
		return func(m *clusterv1.Machine) { m.Annotations = map[string]string{k: ""} }
	}
	cases := []struct {
		name  string
		conds []metav1.Condition
		edits []func(*clusterv1.Machine)
		want  string // the description's opening, up to its first ": "
	}{
		{"nothing says why: requested", []metav1.Condition{drain}, nil, "Deletion in progress (requested)"},
		{"not up to date: a rollout replaces it", []metav1.Condition{drain, notUpToDate}, nil, "Deletion in progress (replaced by a rollout)"},
		{"the delete-machine annotation: marked for deletion", []metav1.Condition{drain, notUpToDate},
			[]func(*clusterv1.Machine){annotate(clusterv1.DeleteMachineAnnotation)}, "Deletion in progress (marked for deletion)"},
		{"remediation after NodeStartupTimeout", []metav1.Condition{drain, notUpToDate, startupTimeout, ownerRemediated}, nil,
			"Deletion in progress (remediation after NodeStartupTimeout)"},
		{"remediation after UnhealthyNode", []metav1.Condition{drain, unhealthyNode, ownerRemediated}, nil,
			"Deletion in progress (remediation after UnhealthyNode)"},
		{"owner remediates, the health check passed meanwhile", []metav1.Condition{drain, ownerRemediated}, nil,
			"Deletion in progress (remediation)"},
		{"the remediate-machine annotation", []metav1.Condition{drain},
			[]func(*clusterv1.Machine){annotate(clusterv1.RemediateMachineAnnotation)}, "Deletion in progress (remediation requested)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := capiMachine(tc.conds, append([]func(*clusterv1.Machine){bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef, deleting}, tc.edits...)...)
			_, op := aggregate.ClusterAPIMachineStatus(m, createdOp(), false, time.Time{})
			if got, _, _ := strings.Cut(op.Description, ": "); got != tc.want {
				t.Errorf("description %q, want it to open with %q", op.Description, tc.want)
			}
			// The cause stays while the Machine is deleted, whatever its conditions say later.
			later := m.DeepCopy()
			later.Status.Conditions = []metav1.Condition{capiCond(clusterv1.MachineDeletingCondition, T, clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason, "Waiting for SimMachine to be deleted", 70)}
			later.Annotations = nil
			_, again := aggregate.ClusterAPIMachineStatus(later, op, false, time.Time{})
			if got, _, _ := strings.Cut(again.Description, ": "); got != tc.want {
				t.Errorf("later in the deletion: description %q, want it to open with %q", again.Description, tc.want)
			}
		})
	}
}

// TestDescriptionWording: descriptions that read wrong (issue 25's part 5): a health check still
// passing named by its reason, as if it had succeeded; a deletion that says the Node is gone for
// a Machine that never had one; a failed creation that says "health check failed" twice.
func TestDescriptionWording(t *testing.T) {
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	cases := []struct {
		name string
		m    *v1alpha1.Machine
		want string
	}{
		{"a Node NotReady, the health check not failed yet and silent",
			machine(conds(cond(infraReady, T, "InfrastructureProvisioned", 1), cond(nodeReady, F, "NodeNotReady", 20, "kubelet stopped posting node status"),
				cond(hcSucceeded, T, "HealthCheckSucceeded", 5)), prevOp(create, successful, "Created", 5)),
			"Node is not Ready: kubelet stopped posting node status"},
		{"deleted before any Node registered",
			machine(conds(cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 31), cond(nodeReady, U, "NodeDoesNotExist", 1)), deleted(30)),
			"Deletion completed: the infrastructure is gone"},
		{"creation failed on the startup timeout, the message opening with the same phrase",
			machine(conds(cond(infraReady, T, "InfrastructureProvisioned", 1),
				cond(hcSucceeded, F, "NodeStartupTimeout", 11, "Health check failed: Node failed to report startup in 10m0s"))),
			"Creation failed: Health check failed (NodeStartupTimeout): Node failed to report startup in 10m0s"},
		{"a drainer's message that is the description's phrase, said once",
			machine(conds(cond(infraReady, T, "InfrastructureProvisioned", 1), cond(nodeReady, T, "NodeReady", 5),
				cond(v1alpha1.MachineDrainingCondition, T, "NodeCordoned", 20, "node is cordoned or being drained")), prevOp(create, successful, "Created", 5)),
			"node is cordoned or being drained"},
		{"an updater's message that is the phrase itself, in another case",
			machine(conds(cond(infraReady, T, "InfrastructureProvisioned", 1), cond(nodeReady, T, "NodeReady", 5),
				cond(updating, T, "KubeletVersionUpdating", 20, "update in progress")), prevOp(create, successful, "Created", 5)),
			"update in progress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := aggregate.LastOperation(tc.m, time.Time{}).Description; got != tc.want {
				t.Errorf("description\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}
