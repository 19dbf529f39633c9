package conditions_test

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
)

func ExampleFromNode() {
	since := metav1.NewTime(time.Date(2026, 3, 14, 14, 58, 38, 0, time.UTC))
	heartbeat := metav1.NewTime(time.Date(2026, 3, 14, 15, 8, 45, 0, time.UTC))
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory",
				Message: "kubelet has sufficient memory available", LastTransitionTime: since, LastHeartbeatTime: heartbeat},
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastTransitionTime: since, LastHeartbeatTime: heartbeat},
		}},
	}

	nodeConditions, err := conditions.FromNode(node)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The result is a conditions.Getter: every reader of the package works on it.
	fmt.Println("Ready:", conditions.IsTrue(nodeConditions, "Ready"), conditions.GetReason(nodeConditions, "Ready"))
	fmt.Println("MemoryPressure:", conditions.IsTrue(nodeConditions, "MemoryPressure"))
	for _, c := range nodeConditions {
		fmt.Printf("%s=%s %s %q since %s\n", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339))
	}

	// Output:
	// Ready: true KubeletReady
	// MemoryPressure: false
	// Ready=True KubeletReady "kubelet is posting ready status" since 2026-03-14T14:58:38Z
	// MemoryPressure=False KubeletHasSufficientMemory "kubelet has sufficient memory available" since 2026-03-14T14:58:38Z
}

func ExampleFromUnstructured() {
	// An infrastructure object with Cluster API v1beta1 conditions, as a dynamic client returns it.
	infra := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
		"kind":       "AWSMachine",
		"metadata":   map[string]any{"name": "worker-0", "namespace": "fleet"},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "SecurityGroupsReady", "status": "True", "lastTransitionTime": "2026-03-14T14:55:40Z"},
			map[string]any{"type": "InstanceReady", "status": "False", "severity": "Error", "reason": "InstanceProvisionFailed",
				"message": "UnauthorizedOperation", "lastTransitionTime": "2026-03-14T14:55:44Z"},
		}},
	}}
	infraConditions, err := conditions.FromUnstructured(infra)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range infraConditions {
		fmt.Printf("%s=%s %s %q\n", c.Type, c.Status, c.Reason, c.Message)
	}

	// Another writer left a malformed entry: it is skipped, the others are still read, and the
	// error names the object and the skipped field.
	infra.Object["status"] = map[string]any{"conditions": []any{
		map[string]any{"type": "InstanceReady", "status": "Maybe", "lastTransitionTime": "2026-03-14T14:55:44Z"},
		map[string]any{"type": "Ready", "status": "False", "reason": "InstanceNotReady", "lastTransitionTime": "2026-03-14T14:55:44Z"},
	}}
	infraConditions, err = conditions.FromUnstructured(infra)
	var skipped *conditions.SkippedError
	if errors.As(err, &skipped) {
		fmt.Println(len(infraConditions), skipped.Skipped[0].Field)
	}
	fmt.Println(err)

	// Output:
	// InstanceReady=False InstanceProvisionFailed "UnauthorizedOperation"
	// SecurityGroupsReady=True NoReasonReported ""
	// 1 status.conditions[0].status
	// skipped 1 invalid conditions of AWSMachine fleet/worker-0: status.conditions[0].status: must be True, False or Unknown, not "Maybe"
}
