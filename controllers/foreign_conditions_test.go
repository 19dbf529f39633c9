package controllers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestForeignBrokenConditions (issue 12 part 5), end to end against the API server: another
// writer's broken entries never block the reconciler.
//   - The infrastructure object's conditions hold entries its other writers left invalid (an
//     invalid type, an unknown status with a zero time, an item that is no condition, a
//     lower-case duplicate of Ready): they are skipped, and the provider's Ready message still
//     reaches InfrastructureReady (InfrastructureNotProvisioned, not ContractViolation).
//   - The Machine's own list holds another writer's entry dated by a clock far ahead (the CRD
//     accepts it): the controller keeps it as it is and still writes its own status when the
//     world changes (the infrastructure becomes provisioned: phase Provisioned).
func TestForeignBrokenConditions(t *testing.T) {
	ns := env.Namespace(t)
	env.Create(t, harness.NewMachine(ns, "f1"))
	const since = "2026-05-01T12:00:00Z"
	env.CreateInfra(t, ns, "f1", map[string]any{"providerID": "fake://" + ns + "/f1"}, map[string]any{
		"initialization": map[string]any{"provisioned": false},
		"conditions": []any{
			map[string]any{"type": "Instance Ready", "status": "True", "reason": "Running", "lastTransitionTime": since},
			map[string]any{"type": "NetworkReady", "status": "Healthy", "reason": "", "lastTransitionTime": "0001-01-01T00:00:00Z"},
			"Ready=False",
			map[string]any{"type": "Ready", "status": "False", "reason": "WaitingForIP", "message": "waiting for an IP address", "lastTransitionTime": since},
			map[string]any{"type": "Ready", "status": "true", "lastTransitionTime": since},
		},
	})
	waitCondition(t, ns, "f1", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Reason != v1alpha1.MachineInfrastructureNotProvisionedReason || !strings.Contains(c.Message, "waiting for an IP address") {
			return c.Reason + ": " + c.Message
		}
		return ""
	})
	env.WaitPhase(t, ns, "f1", v1alpha1.MachinePhaseProvisioning)

	// Another writer adds its own condition, dated by a clock far ahead, with a merge patch of
	// the status (as a client that does not treat conditions as a list-map would: the whole list).
	m := env.GetMachine(t, ns, "f1")
	list := append([]metav1.Condition{}, m.Status.Conditions...)
	list = append(list, metav1.Condition{Type: "example.com/Audited", Status: metav1.ConditionTrue, Reason: "Audited",
		Message: "", LastTransitionTime: metav1.NewTime(farAhead)})
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": list}})
	if err != nil {
		t.Fatal(err)
	}
	if err := k8s.Status().Patch(context.Background(), m, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatalf("another writer's status patch: %v", err)
	}

	env.SetStatus(t, harness.InfraGVK, ns, "f1", map[string]any{"initialization": map[string]any{"provisioned": true}})
	got := env.WaitPhase(t, ns, "f1", v1alpha1.MachinePhaseProvisioned)
	var audited *metav1.Condition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == "example.com/Audited" {
			audited = &got.Status.Conditions[i]
		}
	}
	if audited == nil || !audited.LastTransitionTime.Time.Equal(farAhead) {
		t.Errorf("another writer's condition was not kept as it was: %+v", audited)
	}
}

// farAhead is a time written by a clock far ahead of the controller's.
var farAhead = time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
