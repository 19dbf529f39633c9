package aggregate_test

import (
	"strings"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestMustKeep: what a manager writes to the annotation, given what it holds and what the
// annotation holds: a Machine created, run and deleted without incident costs two writes
// (Create Successful, Delete Processing), a Node NotReady after creation none.
func TestMustKeep(t *testing.T) {
	op := func(typ v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState, minutes int) *v1alpha1.LastOperation {
		return &v1alpha1.LastOperation{Type: typ, State: state, LastUpdated: capiAt(minutes)}
	}
	const (
		create, hc, del, update          = v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationUpdate
		processing, successful, failedOp = v1alpha1.MachineOperationStateProcessing, v1alpha1.MachineOperationStateSuccessful, v1alpha1.MachineOperationStateFailed
	)
	creating := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeInspection(4)), bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID)
	running := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded),
		bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef)
	notReady := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeNotReady, capiNodeHealthy, capiHealthCheckSucceeded),
		bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef)
	updating := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiInPlaceUpdating),
		bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef, inPlaceUpdate)
	withDescription := op(create, successful, 5)
	withDescription.Description = "Created: the Node is Ready" // an annotation of the first format

	tests := []struct {
		name       string
		m          *clusterv1.Machine
		stored, op *v1alpha1.LastOperation
		want       bool
	}{
		{"being created, no annotation", creating, nil, op(create, processing, 0), false},
		{"created, no annotation", running, nil, op(create, successful, 5), true},
		{"first seen with a Node NotReady, no annotation", notReady, nil, op(hc, processing, 20), true},
		{"created, kept", running, op(create, successful, 5), op(create, successful, 5), false},
		{"kept in the first format, with a description", running, withDescription, op(create, successful, 5), false},
		{"same type and state, another instant", running, op(create, successful, 5), op(create, successful, 6), true},
		{"Node NotReady after creation, dated by NodeReady", notReady, op(create, successful, 5), op(hc, processing, 20), false},
		{"Node NotReady, dated when observed", notReady, op(create, successful, 5), op(hc, processing, 21), true},
		{"update in progress, dated by Updating", updating, op(create, successful, 5), op(update, processing, 40), false},
		{"health check failed", notReady, op(hc, processing, 20), op(hc, failedOp, 25), true},
		{"recovered", running, op(hc, failedOp, 25), op(hc, successful, 30), true},
		{"deletion started", running, op(create, successful, 5), op(del, processing, 60), true},
		{"nothing derived", running, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aggregate.MustKeep(tt.m, tt.stored, tt.op, false); got != tt.want {
				t.Errorf("MustKeep() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKeptLifecycle: through ClusterAPIMachineStatus and MustKeep as a manager calls them, an
// incident-free Machine is written twice.
func TestKeptLifecycle(t *testing.T) {
	steps := []*clusterv1.Machine{
		capiMachine(capiConds(capiBootstrapNotReady, capiInfraNotReady, capiNotDeleting)),
		capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady, capiNotDeleting), bootstrapDataSecretCreated),
		capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeInspection(4)), bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID),
		capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy), bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef),
		capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiDeletingInfra),
			bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef, capiDeleted(59, true)),
	}
	var held, stored *v1alpha1.LastOperation
	var written []string
	for i, m := range steps {
		_, op := aggregate.ClusterAPIMachineStatus(m, held, false, capiT0.Add(time.Duration(i)*time.Hour))
		if aggregate.MustKeep(m, stored, op, false) {
			stored = op
			written = append(written, string(op.Type)+" "+string(op.State))
		}
		held = op
	}
	if got := strings.Join(written, ", "); got != "Create Successful, Delete Processing" {
		t.Errorf("written: %s; want Create Successful, Delete Processing", got)
	}
}

// TestDescriptionOfAKeptOperation: the annotation keeps no description; a reader derives it,
// also when nothing changed since the kept result.
func TestDescriptionOfAKeptOperation(t *testing.T) {
	running := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded),
		bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef)
	for typ, want := range map[v1alpha1.MachineOperationType]string{
		v1alpha1.MachineOperationCreate:      "Created: the Node is Ready",
		v1alpha1.MachineOperationUpdate:      "Update completed",
		v1alpha1.MachineOperationDrainNode:   "Node is schedulable again",
		v1alpha1.MachineOperationHealthCheck: "Node is Ready and healthy again",
	} {
		kept := &v1alpha1.LastOperation{Type: typ, State: v1alpha1.MachineOperationStateSuccessful, LastUpdated: capiAt(30)}
		_, op := aggregate.ClusterAPIMachineStatus(running, kept, false, time.Time{})
		if op.Type != typ || op.Description != want {
			t.Errorf("kept %s Successful: %s %q, want %s %q", typ, op.Type, op.Description, typ, want)
		}
	}
}
