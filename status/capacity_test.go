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
	ours := []string{"Paused", "Ready", "InfrastructureReady", "NodeReady", "NodeHealthy", "HealthCheckSucceeded", "Draining", "Standby", "Deleting", "Updating"}
	machine := func(others int, oursFirst bool) *v1alpha1.Machine {
		var theirs, mine []metav1.Condition
		for i := range others {
			theirs = append(theirs, metav1.Condition{Type: fmt.Sprintf("other.example.com/Check%02d", i)})
		}
		for _, t := range ours {
			mine = append(mine, metav1.Condition{Type: t})
		}
		m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{Version: "v1"}}
		m.Status.Conditions = slices.Concat(theirs, mine)
		if oursFirst {
			m.Status.Conditions = slices.Concat(mine, theirs)
		}
		return m
	}
	tests := []struct {
		others    int
		oursFirst bool
		omitted   []string
	}{
		{0, false, nil},
		{23, false, nil},
		{54, false, nil},
		{55, false, []string{"Paused"}},
		{55, true, []string{"Paused"}}, // Paused first in the list
		{57, false, []string{"Paused", "Standby", "NodeHealthy"}},
		{63, false, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady"}},
		{64, false, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady", "Ready"}},
		{70, false, []string{"Paused", "Standby", "NodeHealthy", "Draining", "Updating", "Deleting", "HealthCheckSucceeded", "NodeReady", "InfrastructureReady", "Ready"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d others, ours first %v", tt.others, tt.oursFirst), func(t *testing.T) {
			m := machine(tt.others, tt.oursFirst)
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
