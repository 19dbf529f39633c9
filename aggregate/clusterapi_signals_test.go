package aggregate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestClusterAPIFlagsReadWithConditions: the view reads status.initialization's flags with the
// fields and conditions beside them, as Cluster API does. The flags stay true forever once set;
// where Cluster API's own condition says the object is gone, the view says so: an
// infrastructure object deleted while the Machine still exists is a failure
// (InfrastructureReady False/InfrastructureDeleted, phase Failed; Cluster API's Ready is False
// and its MachineHealthCheck remediates it), during deletion it is the deletion's progress; a
// flag without the field Cluster API sets with it (spec.providerID, spec.bootstrap.dataSecretName)
// does not make the object ready.
func TestClusterAPIFlagsReadWithConditions(t *testing.T) {
	T, F := metav1.ConditionTrue, metav1.ConditionFalse
	running := []metav1.Condition{
		capiCond(clusterv1.MachineBootstrapConfigReadyCondition, T, clusterv1.MachineBootstrapConfigReadyReason, "", 1),
		capiCond(clusterv1.MachineNodeReadyCondition, T, clusterv1.MachineNodeReadyReason, "", 5),
		capiCond(clusterv1.MachineNodeHealthyCondition, T, clusterv1.MachineNodeHealthyReason, "", 5),
		capiCond(clusterv1.MachineDeletingCondition, F, clusterv1.MachineNotDeletingReason, "", 0),
	}
	infraCond := func(s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return capiCond(clusterv1.MachineInfrastructureReadyCondition, s, reason, msg, 30)
	}
	deleting := func(m *clusterv1.Machine) { ts := capiAt(29); m.DeletionTimestamp = &ts }
	created := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful, LastUpdated: capiAt(5)}
	type result struct {
		Infra, Bootstrap, Ready string
		Phase                   v1alpha1.MachinePhase
		Op                      string
	}
	cases := []struct {
		name     string
		m        *clusterv1.Machine
		previous *v1alpha1.LastOperation
		want     result
	}{
		{"infrastructure deleted while the Machine exists: failed, whatever the flag",
			capiMachine(append(running, infraCond(F, clusterv1.MachineInfrastructureDeletedReason, "GenericInfrastructureMachine has been deleted while the Machine still exists")),
				bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef), created,
			result{"False/InfrastructureDeleted", "True", "False", v1alpha1.MachinePhaseFailed, "HealthCheck/Failed"}},
		{"infrastructure deleted during the Machine's deletion: deleting",
			capiMachine(append(running, infraCond(F, clusterv1.MachineInfrastructureDeletedReason, "GenericInfrastructureMachine has been deleted")),
				bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef, deleting), created,
			result{"False/InfrastructureDeleted", "True", "False", v1alpha1.MachinePhaseDeleting, "Delete/Processing"}},
		{"provisioned flag without spec.providerID: not provisioned",
			capiMachine(append(running[:1:1], infraCond(T, clusterv1.MachineInfrastructureReadyReason, "")),
				bootstrapDataSecretCreated, infrastructureProvisioned), nil,
			result{"False/InfrastructureNotProvisioned", "True", "False", v1alpha1.MachinePhaseProvisioning, "Create/Processing"}},
		{"bootstrap flag without spec.bootstrap.dataSecretName: not ready",
			capiMachine(append(running[:1:1], infraCond(F, clusterv1.MachineInfrastructureNotReadyReason, "")),
				bootstrapDataSecretCreated, func(m *clusterv1.Machine) { m.Spec.Bootstrap.DataSecretName = nil }), nil,
			result{"Unknown/" + clusterv1.MachineInfrastructureNotReadyReason, "False/BootstrapConfigNotReady", "False", v1alpha1.MachinePhasePending, "Create/Processing"}},
		{"bootstrap config gone after its data was created: the view says so",
			capiMachine(append([]metav1.Condition{capiCond(clusterv1.MachineBootstrapConfigReadyCondition, F, clusterv1.MachineBootstrapConfigDoesNotExistReason, "GenericBootstrapConfig does not exist", 20)},
				append(running[1:], infraCond(T, clusterv1.MachineInfrastructureReadyReason, ""))...),
				bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef,
				func(m *clusterv1.Machine) { m.Spec.Bootstrap.DataSecretName = ptr.To("bootstrap-data") }), created,
			result{"True", "Unknown/BootstrapConfigDoesNotExist", "Unknown", v1alpha1.MachinePhaseRunning, "Create/Successful"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			view := aggregate.MachineFromClusterAPI(tc.m, tc.previous)
			aggregate.Summarize(view, capiT0.Add(time.Hour))
			statusOf := func(typ string) string {
				c := conditions.Get(view, typ)
				switch {
				case c == nil:
					return "absent"
				case c.Status == T:
					return "True"
				}
				return string(c.Status) + "/" + c.Reason
			}
			phase, op := aggregate.ClusterAPIMachineStatus(tc.m, tc.previous, false, capiT0.Add(time.Hour))
			got := result{statusOf(v1alpha1.MachineInfrastructureReadyCondition), statusOf(v1alpha1.MachineBootstrapConfigReadyCondition),
				string(conditions.Get(view, v1alpha1.MachineReadyCondition).Status), phase, string(op.Type) + "/" + string(op.State)}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
