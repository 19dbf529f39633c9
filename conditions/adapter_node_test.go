package conditions_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// node builds a Node worker-0 at the given generation with the given conditions.
func node(gen int64, conds ...corev1.NodeCondition) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Generation: gen},
		Status:     corev1.NodeStatus{Conditions: conds},
	}
}

// nodeCond builds a NodeCondition as a kubelet posts it: heartbeat and transition times set.
func nodeCond(typ corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string, since, heartbeat time.Time) corev1.NodeCondition {
	return corev1.NodeCondition{
		Type: typ, Status: s, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(since), LastHeartbeatTime: metav1.NewTime(heartbeat),
	}
}

func TestFromNode(t *testing.T) {
	kwokCreated := at("2026-11-29T22:03:01Z")
	registered := at("2026-03-14T14:58:07Z")
	npdStarted := at("2026-03-14T14:59:02Z")
	unreachable := at("2026-03-14T15:31:23Z")
	// Conditions other writers than the kubelet post on the Node of node-kubelet.yaml; the node
	// lifecycle controller leaves them alone when the kubelet goes silent.
	othersOnKubeletNode := conditions.List{
		cond("FrequentContainerdRestart", F, "NoFrequentContainerdRestart", npdStarted, 0, "containerd is functioning properly"),
		cond("KernelDeadlock", F, "KernelHasNoDeadlock", npdStarted, 0, "kernel has no deadlock"),
		cond("NetworkUnavailable", F, "CalicoIsUp", at("2026-03-14T14:58:41Z"), 0, "Calico is running on this node"),
		cond("ReadonlyFilesystem", F, "FilesystemIsNotReadOnly", npdStarted, 0, "Filesystem is not read-only"),
	}
	sorted := func(l conditions.List) conditions.List {
		conditions.Sort(l)
		return l
	}

	tests := []struct {
		name string
		node *corev1.Node
		want conditions.List
	}{
		{name: "nil Node", node: nil, want: nil},
		{name: "Node without conditions (not yet posted)", node: node(0), want: nil},
		{
			name: "kwok: Ready (node-kwok.yaml)",
			node: nodeFixture(t, "node-kwok.yaml"),
			want: conditions.List{
				cond("Ready", T, "KubeletReady", kwokCreated, 0, "kubelet is posting ready status"),
				cond("DiskPressure", F, "KubeletHasNoDiskPressure", kwokCreated, 0, "kubelet has no disk pressure"),
				cond("MemoryPressure", F, "KubeletHasSufficientMemory", kwokCreated, 0, "kubelet has sufficient memory available"),
				cond("NetworkUnavailable", F, "RouteCreated", kwokCreated, 0, "RouteController created a route"),
				cond("PIDPressure", F, "KubeletHasSufficientPID", kwokCreated, 0, "kubelet has sufficient PID available"),
			},
		},
		{
			name: "kwok: NotReady, lower-case reason kept (node-kwok-not-ready.yaml)",
			node: nodeFixture(t, "node-kwok-not-ready.yaml"),
			want: conditions.List{
				cond("Ready", F, "nodeFailed", at("2026-11-29T22:03:04Z"), 0, "node failed"),
				cond("DiskPressure", F, "KubeletHasNoDiskPressure", kwokCreated, 0, "kubelet has no disk pressure"),
				cond("MemoryPressure", F, "KubeletHasSufficientMemory", kwokCreated, 0, "kubelet has sufficient memory available"),
				cond("NetworkUnavailable", F, "RouteCreated", kwokCreated, 0, "RouteController created a route"),
				cond("PIDPressure", F, "KubeletHasSufficientPID", kwokCreated, 0, "kubelet has sufficient PID available"),
			},
		},
		{
			name: "kubelet: Ready, with Calico and node-problem-detector conditions (node-kubelet.yaml)",
			node: nodeFixture(t, "node-kubelet.yaml"),
			want: sorted(append(conditions.List{
				cond("Ready", T, "KubeletReady", at("2026-03-14T14:58:38Z"), 0, "kubelet is posting ready status"),
				cond("DiskPressure", F, "KubeletHasNoDiskPressure", registered, 0, "kubelet has no disk pressure"),
				cond("MemoryPressure", F, "KubeletHasSufficientMemory", registered, 0, "kubelet has sufficient memory available"),
				cond("PIDPressure", F, "KubeletHasSufficientPID", registered, 0, "kubelet has sufficient PID available"),
			}, othersOnKubeletNode...)),
		},
		{
			name: "kubelet: NotReady, no CNI (node-kubelet-not-ready.yaml)",
			node: nodeFixture(t, "node-kubelet-not-ready.yaml"),
			want: conditions.List{
				cond("Ready", F, "KubeletNotReady", at("2026-03-14T15:01:13Z"), 0,
					"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"),
				cond("DiskPressure", F, "KubeletHasNoDiskPressure", at("2026-03-14T15:01:13Z"), 0, "kubelet has no disk pressure"),
				cond("MemoryPressure", F, "KubeletHasSufficientMemory", at("2026-03-14T15:01:13Z"), 0, "kubelet has sufficient memory available"),
				cond("PIDPressure", F, "KubeletHasSufficientPID", at("2026-03-14T15:01:13Z"), 0, "kubelet has sufficient PID available"),
			},
		},
		{
			name: "node lifecycle controller: kubelet stopped posting (node-unreachable.yaml)",
			node: nodeFixture(t, "node-unreachable.yaml"),
			want: sorted(append(conditions.List{
				cond("Ready", U, "NodeStatusUnknown", unreachable, 0, "Kubelet stopped posting node status."),
				cond("DiskPressure", U, "NodeStatusUnknown", unreachable, 0, "Kubelet stopped posting node status."),
				cond("MemoryPressure", U, "NodeStatusUnknown", unreachable, 0, "Kubelet stopped posting node status."),
				cond("PIDPressure", U, "NodeStatusUnknown", unreachable, 0, "Kubelet stopped posting node status."),
			}, othersOnKubeletNode...)),
		},
		{
			name: "observedGeneration is the Node's generation; sub-second times truncated",
			node: node(7, nodeCond("Ready", "True", "KubeletReady", "", t0, t0)),
			want: conditions.List{cond("Ready", T, "KubeletReady", t0, 7)},
		},
		{
			name: "no lastTransitionTime: lastHeartbeatTime instead",
			node: node(0, corev1.NodeCondition{Type: "Ready", Status: "True", Reason: "KubeletReady", LastHeartbeatTime: metav1.NewTime(t0)}),
			want: conditions.List{cond("Ready", T, "KubeletReady", t0, 0)},
		},
		{
			name: "empty and invalid reasons of custom conditions",
			node: node(0,
				nodeCond("example.com/GPUHealthy", "True", "", "", t0, t0),
				nodeCond("example.com/NICHealthy", "False", "link down", "eth1 has no carrier", t0, t0),
			),
			want: conditions.List{
				cond("example.com/GPUHealthy", T, conditions.NoReasonReportedReason, t0, 0),
				cond("example.com/NICHealthy", F, conditions.InvalidReasonReportedReason, t0, 0, `reason "link down": eth1 has no carrier`),
			},
		},
		{
			name: "duplicate types: the first is kept",
			node: node(0,
				nodeCond("Ready", "False", "KubeletNotReady", "PLEG is not healthy", t0, t0),
				nodeCond("Ready", "True", "KubeletReady", "kubelet is posting ready status", t0, t0),
			),
			want: conditions.List{cond("Ready", F, "KubeletNotReady", t0, 0, "PLEG is not healthy")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conditions.FromNode(tt.node)
			if err != nil {
				t.Fatalf("FromNode() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, strictTime); diff != "" {
				t.Errorf("FromNode() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromNodeErrors(t *testing.T) {
	ready := nodeCond("Ready", "True", "KubeletReady", "kubelet is posting ready status", t0, t0)
	tests := []struct {
		name      string
		node      *corev1.Node
		wantField string
		wantErr   string
	}{
		{
			name:      "neither lastTransitionTime nor lastHeartbeatTime",
			node:      node(0, ready, corev1.NodeCondition{Type: "MemoryPressure", Status: "False", Reason: "KubeletHasSufficientMemory"}),
			wantField: "status.conditions[1].lastTransitionTime",
			wantErr:   "missing, and so is lastHeartbeatTime",
		},
		{
			name:      "empty status",
			node:      node(0, ready, nodeCond("DiskPressure", "", "KubeletHasNoDiskPressure", "", t0, t0)),
			wantField: "status.conditions[1].status",
			wantErr:   `must be True, False or Unknown, not ""`,
		},
		{
			name:      "invalid type",
			node:      node(0, nodeCond("Kernel Deadlock", "False", "KernelHasNoDeadlock", "", t0, t0)),
			wantField: "status.conditions[0].type",
			wantErr:   `"Kernel Deadlock" is not a valid condition type`,
		},
		{
			name:      "negative generation",
			node:      node(-1, ready),
			wantField: "metadata.generation",
			wantErr:   "must not be negative",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conditions.FromNode(tt.node)
			checkSkipped(t, got, err, len(tt.node.Status.Conditions)-1)
			checkAdapterError(t, err, "Node worker-0", tt.wantField, tt.wantErr)
		})
	}
}
