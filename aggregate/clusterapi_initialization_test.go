package aggregate_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestMachineFromClusterAPIInitialization checks the view's spec.bootstrap and its
// BootstrapConfigReady and InfrastructureReady conditions against MachineFromClusterAPI's
// documented rules: bootstrap is the configRef when defined, else the dataSecretName; a False
// InfrastructureReady becomes Unknown when the infrastructure object does not exist or while
// the bootstrap data is not ready, and stays False otherwise.
func TestMachineFromClusterAPIInitialization(t *testing.T) {
	configRef := &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
		APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfig", Name: "bootstrap-config1"}}
	unknown := func(c metav1.Condition) metav1.Condition {
		c.Status = metav1.ConditionUnknown
		return c
	}
	tests := []struct {
		name          string
		machine       *clusterv1.Machine
		wantBootstrap *v1alpha1.Bootstrap
		want          []metav1.Condition
	}{{
		name:          "dataSecretName without configRef, infrastructure object not created yet",
		machine:       capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraDoesNotExist), withDataSecretName),
		wantBootstrap: &v1alpha1.Bootstrap{DataSecretName: "bootstrap-data"},
		want:          []metav1.Condition{capiBootstrapDataSecretProvided, unknown(capiInfraDoesNotExist)},
	}, {
		name:          "bootstrap data created, infrastructure object not created yet",
		machine:       capiMachine(capiConds(capiBootstrapReady, capiInfraDoesNotExist), bootstrapDataSecretCreated),
		wantBootstrap: configRef,
		want:          []metav1.Condition{capiBootstrapReady, unknown(capiInfraDoesNotExist)},
	}, {
		name:          "bootstrap data created, infrastructure being provisioned",
		machine:       capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady), bootstrapDataSecretCreated),
		wantBootstrap: configRef,
		want:          []metav1.Condition{capiBootstrapReady, capiInfraNotReady},
	}, {
		name:          "bootstrap data not ready, infrastructure not provisioned",
		machine:       capiMachine(capiConds(capiBootstrapNotReady, capiInfraNotReady)),
		wantBootstrap: configRef,
		want:          []metav1.Condition{capiBootstrapNotReady, unknown(capiInfraNotReady)},
	}, {
		name:          "dataSecretName without configRef, infrastructure being provisioned",
		machine:       capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraNotReady), withDataSecretName),
		wantBootstrap: &v1alpha1.Bootstrap{DataSecretName: "bootstrap-data"},
		want:          []metav1.Condition{capiBootstrapDataSecretProvided, capiInfraNotReady},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := aggregate.MachineFromClusterAPI(tc.machine, nil)
			if diff := cmp.Diff(tc.wantBootstrap, view.Spec.Bootstrap); diff != "" {
				t.Errorf("spec.bootstrap (-want +got):\n%s", diff)
			}
			var got []metav1.Condition
			for _, c := range view.Status.Conditions {
				if c.Type == v1alpha1.MachineBootstrapConfigReadyCondition || c.Type == v1alpha1.MachineInfrastructureReadyCondition {
					got = append(got, c)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("BootstrapConfigReady and InfrastructureReady (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMachineFromClusterAPIManyReadinessGates checks that with as many readiness gates as
// Cluster API allows (32), every gate and its condition are copied, as MachineFromClusterAPI
// documents.
func TestMachineFromClusterAPIManyReadinessGates(t *testing.T) {
	const maxGates = 32 // Cluster API's MaxItems for spec.readinessGates
	var gates []clusterv1.MachineReadinessGate
	var conds []metav1.Condition
	var wantGates []v1alpha1.MachineReadinessGate
	for i := range maxGates {
		ct := fmt.Sprintf("example.com/Gate%02d", i)
		gates = append(gates, clusterv1.MachineReadinessGate{ConditionType: ct})
		conds = append(conds, capiCond(ct, metav1.ConditionTrue, "Ready", "", 4))
		wantGates = append(wantGates, v1alpha1.MachineReadinessGate{ConditionType: ct, Polarity: v1alpha1.PositiveConditionPolarity})
	}
	m := capiMachine(conds, func(m *clusterv1.Machine) { m.Spec.ReadinessGates = gates })
	view := aggregate.MachineFromClusterAPI(m, nil)
	if diff := cmp.Diff(wantGates, view.Spec.ReadinessGates); diff != "" {
		t.Errorf("spec.readinessGates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(conds, view.Status.Conditions); diff != "" {
		t.Errorf("status.conditions (-want +got):\n%s", diff)
	}
}
