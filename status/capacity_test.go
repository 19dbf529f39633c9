package status

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestCapacityBound: the controller owns at most one condition per type it knows, and those fit
// in a quarter of status.conditions, leaving the rest to other writers.
func TestCapacityBound(t *testing.T) {
	m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{Version: "v1", Bootstrap: &v1alpha1.Bootstrap{DataSecretName: "s"}}}
	owned := OwnedTypes(m)
	var priorities []int
	for _, c := range v1alpha1.Catalog() {
		if !owned[c.Type] {
			t.Errorf("the catalog ranks %s, which the controller never owns", c.Type)
		}
		priorities = append(priorities, c.Priority)
	}
	slices.Sort(priorities)
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(priorities, want) {
		t.Errorf("the catalog's priorities are %v, want each of %v once", priorities, want)
	}
	if 4*len(owned) > v1alpha1.MaxConditions {
		t.Errorf("the controller owns up to %d conditions, more than a quarter of %d", len(owned), v1alpha1.MaxConditions)
	}
}

// TestFitConditions: which of our conditions are omitted when other writers' fill the list.
func TestFitConditions(t *testing.T) {
	ours := []string{"Ready", "InfrastructureReady", "NodeReady", "NodeHealthy", "HealthCheckSucceeded", "Draining", "Standby", "Deleting", "Paused", "Updating"}
	machine := func(others int) *v1alpha1.Machine {
		m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{Version: "v1"}}
		for i := range others {
			m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: fmt.Sprintf("other.example.com/Check%02d", i)})
		}
		for _, t := range ours {
			m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: t})
		}
		return m
	}
	tests := []struct {
		others  int
		omitted []string
	}{
		{0, nil},
		{23, nil},
		{54, nil},
		{55, []string{"Paused"}},
		{57, []string{"Paused", "Standby", "NodeHealthy"}},
		{63, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady"}},
		{64, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady", "Ready"}},
		{70, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady", "Ready"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d others", tt.others), func(t *testing.T) {
			m := machine(tt.others)
			got := FitConditions(m)
			if diff := cmp.Diff(tt.omitted, got); diff != "" {
				t.Errorf("omitted (-want +got):\n%s", diff)
			}
			if want := min(tt.others+len(ours), max(v1alpha1.MaxConditions, tt.others)); len(m.Status.Conditions) != want {
				t.Errorf("%d conditions left, want %d", len(m.Status.Conditions), want)
			}
		})
	}
}
