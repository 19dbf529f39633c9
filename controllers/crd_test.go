package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
)

// TestCRDRejectsInvalidStatus checks the generated schema: an invalid phase, condition status,
// condition reason or lastOperation state is refused by the API server, and the stored status
// is unchanged.
func TestCRDRejectsInvalidStatus(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	m := newMachine(ns, "crd")
	m.Annotations = map[string]string{v1alpha1.PausedAnnotation: "true"} // keep the controller out
	create(t, m)
	waitFor(t, waitTimeout, "Paused=True", func() string {
		if len(getMachine(t, ns, "crd").Status.Conditions) == 0 {
			return "no conditions yet"
		}
		return ""
	})
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	cases := []struct {
		name    string
		mutate  func(*v1alpha1.MachineStatus)
		message string
	}{
		{"phase not in the enum", func(s *v1alpha1.MachineStatus) { s.Phase = "Exploded" }, "status.phase"},
		{"condition status not True/False/Unknown", func(s *v1alpha1.MachineStatus) {
			s.Conditions = append(s.Conditions, metav1.Condition{Type: "Custom", Status: "Maybe", Reason: "R", LastTransitionTime: now})
		}, "status"},
		{"condition reason with spaces", func(s *v1alpha1.MachineStatus) {
			s.Conditions = append(s.Conditions, metav1.Condition{Type: "Custom", Status: "True", Reason: "not a reason", LastTransitionTime: now})
		}, "reason"},
		{"lastOperation state not in the enum", func(s *v1alpha1.MachineStatus) {
			s.LastOperation = &v1alpha1.LastOperation{Type: "Create", State: "Exploding", LastUpdated: now}
		}, "status.lastOperation.state"},
		{"lastOperation type not in the enum", func(s *v1alpha1.MachineStatus) {
			s.LastOperation = &v1alpha1.LastOperation{Type: "Reboot", State: "Processing", LastUpdated: now}
		}, "status.lastOperation.type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := getMachine(t, ns, "crd")
			bad := before.DeepCopy()
			tc.mutate(&bad.Status)
			err := k8s.Status().Update(ctx, bad)
			if err == nil {
				t.Fatal("the API server accepted an invalid status")
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q does not name %q", err, tc.message)
			}
			if after := getMachine(t, ns, "crd"); after.ResourceVersion != before.ResourceVersion {
				t.Errorf("stored Machine changed after a rejected update")
			}
		})
	}

	t.Run("conditions are a list-map keyed by type", func(t *testing.T) {
		if !strings.Contains(crdYAML(t), "x-kubernetes-list-map-keys:\n                - type\n                x-kubernetes-list-type: map") {
			t.Fatal("status.conditions lacks the list-map markers")
		}
	})
}

func crdYAML(t *testing.T) string {
	t.Helper()
	b, err := crd.Bases.ReadFile("bases/machinestatus.io_machines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
