package aggregate_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestLastOperation(t *testing.T) {
	created := prevOp(create, successful, "Created: the Node is Ready", 10)
	nodeOK := cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10)
	tests := []struct {
		name string
		m    *v1alpha1.Machine
		want *v1alpha1.LastOperation
	}{
		{
			name: "nil Machine",
			m:    nil,
			want: nil,
		},

		// Rule 1: deletion.
		{
			name: "1 Delete Processing from the Deleting condition",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 51),
				nodeOK,
			), deleted(50), created),
			want: op(deleteOp, processing, "Deletion in progress: DrainingNode", 51),
		},
		{
			name: "1 Delete Processing without a Deleting condition takes the deletionTimestamp",
			m:    machine(conds(nodeOK), deleted(50), created),
			want: op(deleteOp, processing, "Deletion in progress", 50),
		},
		{
			name: "1 Delete beats 2 Create and 3 terminal signal",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapFailedReason, 3),
				cond(deleting, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, 50, "waiting for DockerMachine m to go away"),
			), deleted(50), withBootstrap),
			want: op(deleteOp, processing, "Deletion in progress: waiting for DockerMachine m to go away", 50),
		},
		{
			name: "1 Delete Successful is dated when DeletionCompleted is observed (only the reason changed)",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDeletionCompletedReason, 51),
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 51)),
			want: op(deleteOp, successful, "Deletion completed: the infrastructure is gone", observed),
		},

		{
			name: "1 Delete requested, not started: a Deleting condition that is not True neither describes nor dates it",
			m: machine(conds(
				cond(deleting, F, "NotDeleting", 0),
				nodeOK,
			), deleted(50), created),
			want: op(deleteOp, processing, "Deletion in progress", 50),
		},
		{
			name: "1 Delete Processing: the first True Deleting after the request keeps the request's time",
			m: machine(conds(
				cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 51, "Drain not completed yet"),
				nodeOK,
			), deleted(50), prevOp(deleteOp, processing, "Deletion in progress", 50)),
			want: op(deleteOp, processing, "Deletion in progress: Drain not completed yet", 50),
		},

		// Rule 2: creation.
		{
			name: "2 without history, a registered Node that failed its health check was created: HealthCheck Failed",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 31, "Health check failed: Node NotReady for more than 10s"),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 30),
			), registered),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode): Node NotReady for more than 10s", 31),
		},
		{
			name: "2 without history, a registered Node since deleted was created: HealthCheck Processing",
			m: machine(conds(
				cond(nodeReady, U, v1alpha1.MachineNodeDeletedReason, 30, "Node m was deleted"),
			), registered),
			want: op(healthCheck, processing, "Node is not Ready: Node m was deleted", 30),
		},
		{
			name: "2 without history, a registered Node NotReady (since long, or booting: the object cannot tell) was created: HealthCheck Processing",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 2),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 3, "container runtime network not ready"),
			), registered),
			want: op(healthCheck, processing, "Node is not Ready: container runtime network not ready", 3),
		},
		{
			name: "2 without history, a registered Node whose kubelet stopped posting was created: HealthCheck Processing",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 2),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 40, "Kubelet stopped posting node status."),
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 40, "the check fails at 2026-01-01T00:45:00Z"),
			), registered),
			want: op(healthCheck, processing, "Node is not Ready: Kubelet stopped posting node status.; health check: the check fails at 2026-01-01T00:45:00Z", 40),
		},
		{
			name: "2 without history, no Node registered yet: Create Processing",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 2),
				cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 2, "no Node has registered yet"),
			)),
			want: op(create, processing, "Waiting for the Node to become Ready: no Node has registered yet", 0),
		},
		{
			name: "2 without history, NodeStartupTimeout is a failed creation even with a nodeRef",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckNodeStartupTimeoutReason, 13),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 12),
			), registered),
			want: op(create, failed, "Creation failed: Health check failed (NodeStartupTimeout)", 13),
		},
		{
			name: "2 with a Create in progress, a failed health check is a failed creation",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 31),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 3),
			), registered, prevOp(create, processing, "Waiting for the Node to become Ready", 0)),
			want: op(create, failed, "Creation failed: Health check failed (UnhealthyNode)", 31),
		},
		{
			name: "2 Create Processing waits for bootstrap data first",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapConfigNotReadyReason, 1, "KubeadmConfig m has no data secret yet"),
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 1),
			), withBootstrap),
			want: op(create, processing, "Waiting for bootstrap data: KubeadmConfig m has no data secret yet", 0),
		},
		{
			name: "2 Create Processing waits for bootstrap data that is not reported yet",
			m:    machine(nil, withBootstrap),
			want: op(create, processing, "Waiting for bootstrap data", 0),
		},
		{
			name: "2 Create Processing then waits for infrastructure",
			m: machine(conds(
				cond(bootstrapReady, T, v1alpha1.MachineBootstrapDataSecretCreatedReason, 2),
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 1, "DockerMachine m is not provisioned"),
			), withBootstrap),
			want: op(create, processing, "Waiting for infrastructure to be provisioned: DockerMachine m is not provisioned", 0),
		},
		{
			name: "2 Create Processing ignores BootstrapConfigReady without spec.bootstrap",
			m: machine(conds(
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapConfigNotReadyReason, 2),
				cond(infraReady, U, v1alpha1.MachineInfrastructureDoesNotExistReason, 1),
			)),
			want: op(create, processing, "Waiting for infrastructure to be provisioned: InfrastructureDoesNotExist", 0),
		},
		{
			name: "2 Create Processing then waits for the Node; lastUpdated and state are kept",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, 0, "no Node\nhas registered"),
			), prevOp(create, processing, "Waiting for infrastructure to be provisioned", 0)),
			want: op(create, processing, "Waiting for the Node to become Ready: no Node has registered", 0),
		},
		{
			name: "2 Create Successful once NodeReady is True, at its transition",
			m: machine(conds(
				cond(infraReady, T, v1alpha1.MachineInfrastructureProvisionedReason, 5),
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
			), prevOp(create, processing, "Waiting for the Node to become Ready", 0)),
			want: op(create, successful, "Created: the Node is Ready", 10),
		},
		{
			name: "2 Create Successful with no previous operation",
			m:    machine(conds(nodeOK)),
			want: op(create, successful, "Created: the Node is Ready", 10),
		},
		{
			name: "2 Create Successful lastUpdated is truncated to seconds",
			m: machine(conds(metav1.Condition{
				Type: nodeReady, Status: T, Reason: v1alpha1.MachineNodeReadyReason,
				LastTransitionTime: metav1.NewTime(at(10).Add(750 * time.Millisecond)),
			})),
			want: op(create, successful, "Created: the Node is Ready", 10),
		},
		{
			name: "2 Create Failed on a terminal reason, dated when observed (a reason, not a status, decided)",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 4, "quota exceeded"),
			), prevOp(create, processing, "Waiting for infrastructure to be provisioned", 0)),
			want: op(create, failed, "Creation failed: InfrastructureReady is False (InfrastructureFailed): quota exceeded", observed),
		},
		{
			name: "2 Create Failed is retried when the signal goes away",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureNotProvisionedReason, 4),
			), prevOp(create, failed, "Creation failed", 4)),
			want: op(create, processing, "Waiting for infrastructure to be provisioned: InfrastructureNotProvisioned", observed),
		},
		{
			name: "2 then 4: Create Successful and Updating True in the same call give Update Processing",
			m: machine(conds(
				nodeOK,
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 12, "kubelet v1.35.0, want v1.36.3"),
			)),
			want: op(update, processing, "Update in progress: kubelet v1.35.0, want v1.36.3", 12),
		},
		{
			name: "2 then 4: Create Successful and Draining True give DrainNode Processing",
			m: machine(conds(
				nodeOK,
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 13),
			), prevOp(create, processing, "Waiting for the Node to become Ready", 0)),
			want: op(drainNode, processing, "Node is cordoned or being drained: NodeCordoned", 13),
		},
		{
			name: "2 then 3: Create Successful and a terminal signal give HealthCheck Failed",
			m: machine(conds(
				nodeOK,
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 14, "DiskPressure=True for 30m"),
			)),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode): DiskPressure=True for 30m", 14),
		},

		// Rule 3: terminal signal.
		{
			name: "3 HealthCheck Failed from HealthCheckSucceeded False",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 30, "Node Ready=Unknown for more than 5m"),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 25),
			), created),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode): Node Ready=Unknown for more than 5m", 30),
		},
		{
			name: "3 HealthCheck Failed does not repeat a message's own \"Health check failed\"",
			m: machine(conds(
				cond(hcSucceeded, F, "UnhealthyNode", 30, "Health check failed: Condition Ready on Node n was Unknown for more than 5m0s"),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 25),
			), created),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode): Condition Ready on Node n was Unknown for more than 5m0s", 30),
		},
		{
			name: "3 HealthCheck Failed: a message that is the phrase alone, in any case, is not repeated",
			m: machine(conds(
				cond(hcSucceeded, F, "UnhealthyNode", 30, "health check failed"),
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 25),
			), created),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode)", 30),
		},
		{
			name: "3 HealthCheck Failed from a terminal reason after creation",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 31, "host lost"),
				nodeOK,
			), created),
			want: op(healthCheck, failed, "Terminal failure: InfrastructureReady is False (InfrastructureFailed): host lost", observed),
		},
		{
			name: "3 HealthCheck Failed: of two terminal reasons of equal rank, the first in catalog order is reported",
			m: machine(conds(
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 31, "host lost"),
				cond(bootstrapReady, F, v1alpha1.MachineBootstrapFailedReason, 32, "cloud-init failed"),
				nodeOK,
			), created),
			want: op(healthCheck, failed, "Terminal failure: BootstrapConfigReady is False (BootstrapFailed): cloud-init failed", observed),
		},
		{
			name: "3 Update Failed from UpdateFailed, which wins over other terminal signals",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 30),
				cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 29),
				cond(updating, F, v1alpha1.MachineUpdateFailedReason, 32),
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 25),
			), prevOp(update, processing, "Update in progress", 20)),
			want: op(update, failed, "Update failed: Updating is False (UpdateFailed)", observed),
		},
		{
			name: "3 beats 4: a terminal signal wins over Updating True",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckNodeDeletedReason, 33),
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 20),
			), created),
			want: op(healthCheck, failed, "Health check failed (NodeDeleted)", 33),
		},
		{
			name: "3 same type and state keep the previous lastUpdated",
			m: machine(conds(
				cond(hcSucceeded, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, 30, "new message"),
			), prevOp(healthCheck, failed, "Health check failed: old message", 29)),
			want: op(healthCheck, failed, "Health check failed (UnhealthyNode): new message", 29),
		},

		// Rule 4: an operation in progress.
		{
			name: "4 Update Processing beats DrainNode",
			m: machine(conds(
				nodeOK,
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 40),
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 41),
			), created),
			want: op(update, processing, "Update in progress: KubeletVersionUpdating", 40),
		},
		{
			name: "4 DrainNode Processing",
			m: machine(conds(
				nodeOK,
				cond(draining, T, v1alpha1.MachineNodeCordonedReason, 41, "Node m is unschedulable"),
			), prevOp(update, successful, "Update completed", 39)),
			want: op(drainNode, processing, "Node is cordoned or being drained: Node m is unschedulable", 41),
		},
		{
			name: "4 HealthCheck Processing from the NodeReady and HealthCheckSucceeded messages",
			m: machine(conds(
				cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, 42, "kubelet stopped posting node status"),
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 10, "Node Ready=False, fails after 5m"),
			), created),
			want: op(healthCheck, processing, "Node is not Ready: kubelet stopped posting node status; health check: Node Ready=False, fails after 5m", 42),
		},
		{
			name: "4 HealthCheck Processing when NodeReady disappeared is dated when observed",
			m:    machine(nil, created),
			want: op(healthCheck, processing, "Node is not Ready: not yet reported", observed),
		},
		{
			name: "4 same type and state keep lastUpdated and update the description",
			m: machine(conds(
				cond(nodeReady, U, v1alpha1.MachineNodeReadyUnknownReason, 44),
			), prevOp(healthCheck, processing, "Node is not Ready: NodeNotReady", 42)),
			want: op(healthCheck, processing, "Node is not Ready: NodeReadyUnknown", 42),
		},

		// Rule 5: the previous operation's condition has cleared.
		{
			name: "5 Update Processing to Successful when Updating turns False",
			m: machine(conds(
				nodeOK,
				cond(updating, F, v1alpha1.MachineNotUpdatingReason, 50),
			), prevOp(update, processing, "Update in progress", 40)),
			want: op(update, successful, "Update completed", 50),
		},
		{
			name: "5 Update Failed to Successful when UpdateFailed is gone",
			m: machine(conds(
				nodeOK,
				cond(updating, F, v1alpha1.MachineNotUpdatingReason, 32),
			), prevOp(update, failed, "Update failed", 32)),
			want: op(update, successful, "Update completed", observed),
		},
		{
			name: "5 DrainNode Processing to Successful when Draining turns False",
			m: machine(conds(
				nodeOK,
				cond(draining, F, v1alpha1.MachineNotDrainingReason, 52),
			), prevOp(drainNode, processing, "Node is cordoned", 41)),
			want: op(drainNode, successful, "Node is schedulable again", 52),
		},
		{
			name: "5 DrainNode to Successful when Draining disappeared is dated when observed",
			m:    machine(conds(nodeOK), prevOp(drainNode, processing, "Node is cordoned", 41)),
			want: op(drainNode, successful, "Node is schedulable again", observed),
		},
		{
			name: "5 HealthCheck Processing to Successful when NodeReady turns True",
			m: machine(conds(
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 53),
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 10),
			), prevOp(healthCheck, processing, "Node is not Ready", 42)),
			want: op(healthCheck, successful, "Node is Ready and healthy again", 53),
		},
		{
			name: "5 HealthCheck Failed to Successful takes the later of NodeReady and HealthCheckSucceeded",
			m: machine(conds(
				nodeOK,
				cond(hcSucceeded, T, v1alpha1.MachineHealthCheckSucceededReason, 54),
			), prevOp(healthCheck, failed, "Health check failed", 30)),
			want: op(healthCheck, successful, "Node is Ready and healthy again", 54),
		},

		// Rule 6: nothing new.
		{
			name: "6 Create Successful is kept unchanged",
			m:    machine(conds(nodeOK), prevOp(create, successful, "created by hand", 7)),
			want: op(create, successful, "created by hand", 7),
		},
		{
			name: "6 a Successful operation is kept unchanged",
			m:    machine(conds(nodeOK), prevOp(update, successful, "Update completed", 50)),
			want: op(update, successful, "Update completed", 50),
		},
		{
			name: "6 a Delete without a deletionTimestamp never clears",
			m:    machine(conds(nodeOK), prevOp(deleteOp, processing, "Deletion in progress", 50)),
			want: op(deleteOp, processing, "Deletion in progress", 50),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.m.DeepCopy()
			got := aggregate.LastOperation(tt.m, observedClock)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LastOperation() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.m); diff != "" {
				t.Errorf("LastOperation() modified the Machine (-before +after):\n%s", diff)
			}
			if tt.m == nil {
				return
			}
			// Fixed point: a Machine that already carries the result gets the same result.
			again := tt.m.DeepCopy()
			again.Status.LastOperation = got.DeepCopy()
			if diff := cmp.Diff(got, aggregate.LastOperation(again, laterClock)); diff != "" {
				t.Errorf("LastOperation() is not a fixed point (-first +second):\n%s", diff)
			}
		})
	}
}

// observed is the minute the clock given to LastOperation reads: a change that no
// lastTransitionTime dates is dated then. laterClock reads a later minute, for fixed points.
const observed = 1000

var (
	observedClock = at(observed).Time
	laterClock    = at(observed + 60).Time
)

func TestLastOperationDoesNotAlias(t *testing.T) {
	m := machine(conds(cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10)),
		prevOp(update, successful, "Update completed", 50))
	got := aggregate.LastOperation(m, time.Time{})
	got.Description = "changed"
	got.LastUpdated = at(99)
	if diff := cmp.Diff(op(update, successful, "Update completed", 50), m.Status.LastOperation); diff != "" {
		t.Errorf("changing the result changed the Machine (-want +got):\n%s", diff)
	}
}

func TestLastOperationDescriptionIsBounded(t *testing.T) {
	huge := strings.Repeat("é", 20*1024) // 40 KB of two-byte runes
	tests := []struct {
		name string
		m    *v1alpha1.Machine
	}{
		{
			name: "long condition message",
			m: machine(conds(
				cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10),
				cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, 40, huge),
			), prevOp(create, successful, "", 10)),
		},
		{
			name: "long previous description",
			m: machine(conds(cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, 10)),
				prevOp(create, successful, huge, 10)),
		},
		{
			name: "long terminal message",
			m:    machine(conds(cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 3, huge))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregate.LastOperation(tt.m, time.Time{})
			if n := len(got.Description); n > 1024 || n == 0 {
				t.Errorf("description is %d bytes, want 1 to 1024", n)
			}
			if !utf8.ValidString(got.Description) {
				t.Errorf("description is not valid UTF-8: %q", got.Description)
			}
		})
	}
}

// TestLastOperationDescriptionIsSanitized: a provider's message quoted in a description has its
// terminal escapes, bidi overrides, NUL and invalid UTF-8 made visible (conditions.Sanitize).
func TestLastOperationDescriptionIsSanitized(t *testing.T) {
	hostile := "\x1b[2J\x1b]0;x\x07Phase: Running\u202e\x00\xff\nnext"
	m := machine(conds(cond(infraReady, F, v1alpha1.MachineInfrastructureFailedReason, 3, hostile)))
	got := aggregate.LastOperation(m, time.Time{})
	want := `\x1b[2J\x1b]0;x\x07Phase: Running\u202e\x00\xff next`
	if !strings.HasSuffix(got.Description, want) {
		t.Errorf("description %q, want it to end with %q", got.Description, want)
	}
}
