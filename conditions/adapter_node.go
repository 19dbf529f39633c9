package conditions

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FromNode reads the conditions of a Node (Ready, MemoryPressure, DiskPressure, PIDPressure,
// NetworkUnavailable and any a node-problem-detector adds) as metav1.Conditions. It returns
// nil, nil for a nil Node.
//
// Each NodeCondition maps field by field, with the rules shared by every adapter (see List):
//   - type, status, reason and message are kept ("KubeletReady", "kubelet is posting ready
//     status"); an empty or invalid reason is replaced as the shared rules say;
//   - lastTransitionTime is the condition's lastTransitionTime or, when that is unset, its
//     lastHeartbeatTime; when both are unset FromNode fails;
//   - observedGeneration is the Node's metadata.generation (0 on most Nodes: the API server does
//     not count Node generations);
//   - lastHeartbeatTime is dropped: it moves at every heartbeat and is not part of a condition.
//
// A condition that breaks the rules (e.g. a node-problem-detector type with a space) is skipped:
// FromNode returns the others and a *SkippedError naming the Node and each skipped field, e.g.
// "status.conditions[3].status". A negative metadata.generation gives no conditions and an
// *AdapterError.
func FromNode(node *corev1.Node) (List, error) {
	if node == nil {
		return nil, nil
	}
	col := newCollector("Node", "", node.Name)
	if node.Generation < 0 {
		return nil, col.fail("metadata.generation", fmt.Errorf("must not be negative, not %d", node.Generation))
	}
	for i, nc := range node.Status.Conditions {
		field := fmt.Sprintf("status.conditions[%d]", i)
		since := nc.LastTransitionTime
		if since.IsZero() {
			since = nc.LastHeartbeatTime
		}
		if since.IsZero() {
			col.skip(col.fail(field+".lastTransitionTime", errors.New("missing, and so is lastHeartbeatTime")))
			continue
		}
		c := metav1.Condition{
			Type:               string(nc.Type),
			Status:             metav1.ConditionStatus(nc.Status),
			Reason:             nc.Reason,
			Message:            nc.Message,
			LastTransitionTime: since,
			ObservedGeneration: node.Generation,
		}
		col.add(field, c)
	}
	return col.result()
}
