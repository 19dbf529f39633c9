package aggregate_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The Cluster API Machines of these tests are built like those of Cluster API v1.14.2's
// TestReconcileMachinePhases (core/reconcilers/machine/machine_controller_status_test.go): a
// control plane Machine "machine-test" of Cluster "test-cluster" with a GenericBootstrapConfig
// and a GenericInfrastructureMachine. Its conditions are those Cluster API's Machine controller
// writes (setBootstrapReadyCondition, setInfrastructureReadyCondition,
// setNodeHealthyAndReadyConditions, setDeletingCondition, setUpdatingCondition, …) for the
// state each test case sets up. In that test environment only the Machine controller runs, so
// the Cluster's ControlPlaneInitialized condition is never set and NodeReady and NodeHealthy
// stay Unknown/InspectionFailed "Waiting for Cluster control plane to be initialized", even
// once the Machine has a Node (which, without a kubelet, reports no conditions anyway).

var capiT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// capiAt is capiT0 plus the given minutes.
func capiAt(minutes int) metav1.Time {
	return metav1.NewTime(capiT0.Add(time.Duration(minutes) * time.Minute))
}

// capiCond is a Cluster API condition whose lastTransitionTime is capiAt(minutes).
func capiCond(t string, s metav1.ConditionStatus, reason, message string, minutes int) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: message, ObservedGeneration: 1,
		LastTransitionTime: capiAt(minutes)}
}

// capiMachine is TestReconcileMachinePhases' defaultMachine, created at capiT0, with the given
// conditions, then the edits.
func capiMachine(conds []metav1.Condition, edits ...func(*clusterv1.Machine)) *clusterv1.Machine {
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name: "machine-test", Namespace: metav1.NamespaceDefault, Generation: 1,
			CreationTimestamp: capiAt(0),
			Labels:            map[string]string{clusterv1.MachineControlPlaneLabel: ""},
			Finalizers:        []string{clusterv1.MachineFinalizer},
		},
		Spec: clusterv1.MachineSpec{
			ClusterName: "test-cluster",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: clusterv1.GroupVersionBootstrap.Group, Kind: "GenericBootstrapConfig", Name: "bootstrap-config1",
			}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: clusterv1.GroupVersionInfrastructure.Group, Kind: "GenericInfrastructureMachine", Name: "infra-config1",
			},
		},
		Status: clusterv1.MachineStatus{Conditions: conds, ObservedGeneration: 1},
	}
	for _, edit := range edits {
		edit(m)
	}
	return m
}

// Edits of a Cluster API Machine.
var (
	// Cluster API sets the flag with spec.bootstrap.dataSecretName, read from the bootstrap config.
	bootstrapDataSecretCreated = func(m *clusterv1.Machine) {
		m.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
		m.Spec.Bootstrap.DataSecretName = ptr.To("secret-data")
	}
	infrastructureProvisioned = func(m *clusterv1.Machine) { m.Status.Initialization.InfrastructureProvisioned = ptr.To(true) }
	withProviderID            = func(m *clusterv1.Machine) { m.Spec.ProviderID = "test://abc123" }
	withNodeRef               = func(m *clusterv1.Machine) {
		m.Status.NodeRef = clusterv1.MachineNodeReference{Name: "machine-test-node-x7k2p"}
	}
	withDataSecretName = func(m *clusterv1.Machine) {
		m.Spec.Bootstrap = clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap-data")}
	}
	inPlaceUpdate = func(m *clusterv1.Machine) {
		m.Annotations = map[string]string{
			clusterv1.UpdateInProgressAnnotation:     "",
			"runtime.cluster.x-k8s.io/pending-hooks": "UpdateMachine",
		}
	}
)

// capiDeleted sets a deletionTimestamp capiAt(minutes) and the finalizers of TestReconcileMachinePhases'
// Deleting case (the Machine's own, and "test" that keeps the object for the assertion).
func capiDeleted(minutes int, machineFinalizer bool) func(*clusterv1.Machine) {
	return func(m *clusterv1.Machine) {
		ts := capiAt(minutes)
		m.DeletionTimestamp = &ts
		m.Finalizers = []string{"test"}
		if machineFinalizer {
			m.Finalizers = append([]string{clusterv1.MachineFinalizer}, m.Finalizers...)
		}
	}
}

// Conditions as Cluster API's Machine controller writes them.
var (
	capiBootstrapNotReady = capiCond(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineBootstrapConfigNotReadyReason, "GenericBootstrapConfig status.initialization.dataSecretCreated is false", 1)
	capiBootstrapReady = capiCond(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionTrue,
		clusterv1.MachineBootstrapConfigReadyReason, "", 2)
	capiBootstrapDataSecretProvided = capiCond(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionTrue,
		clusterv1.MachineBootstrapDataSecretProvidedReason, "", 1)
	capiBootstrapDoesNotExist = capiCond(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineBootstrapConfigDoesNotExistReason, "GenericBootstrapConfig does not exist", 30)
	capiBootstrapDeleted = capiCond(clusterv1.MachineBootstrapConfigReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineBootstrapConfigDeletedReason, "GenericBootstrapConfig has been deleted", 61)

	capiInfraNotReady = capiCond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineInfrastructureNotReadyReason, "GenericInfrastructureMachine status.initialization.provisioned is false", 1)
	capiInfraDoesNotExist = capiCond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineInfrastructureDoesNotExistReason, "GenericInfrastructureMachine does not exist", 1)
	capiInfraReady = capiCond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue,
		clusterv1.MachineInfrastructureReadyReason, "", 3)
	capiInfraDeletedWhileRunning = capiCond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineInfrastructureDeletedReason, "GenericInfrastructureMachine has been deleted while the Machine still exists", 30)
	capiInfraDeleted = capiCond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineInfrastructureDeletedReason, "GenericInfrastructureMachine has been deleted", 61)

	capiNodeReady    = capiCond(clusterv1.MachineNodeReadyCondition, metav1.ConditionTrue, clusterv1.MachineNodeReadyReason, "", 5)
	capiNodeHealthy  = capiCond(clusterv1.MachineNodeHealthyCondition, metav1.ConditionTrue, clusterv1.MachineNodeHealthyReason, "", 5)
	capiNodeNotReady = capiCond(clusterv1.MachineNodeReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineNodeNotReadyReason, "* Node.Ready: kubelet stopped posting node status", 20)
	capiNodeDeletedReady = capiCond(clusterv1.MachineNodeReadyCondition, metav1.ConditionFalse,
		clusterv1.MachineNodeDeletedReason, "Node machine-test-node-x7k2p has been deleted while the Machine still exists", 20)
	capiNodeDeletedHealthy = capiCond(clusterv1.MachineNodeHealthyCondition, metav1.ConditionFalse,
		clusterv1.MachineNodeDeletedReason, "Node machine-test-node-x7k2p has been deleted while the Machine still exists", 20)

	capiHealthCheckSucceeded = capiCond(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue,
		clusterv1.MachineHealthCheckSucceededReason, "", 6)
	capiUnhealthyNode = capiCond(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionFalse,
		clusterv1.MachineHealthCheckUnhealthyNodeReason, "Health check failed:\n  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s", 25)
	capiNodeStartupTimeout = capiCond(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionFalse,
		clusterv1.MachineHealthCheckNodeStartupTimeoutReason, "Health check failed:\n  * Node failed to report startup in 10m0s", 13)

	capiNotDeleting     = capiCond(clusterv1.MachineDeletingCondition, metav1.ConditionFalse, clusterv1.MachineNotDeletingReason, "", 0)
	capiNotUpdating     = capiCond(clusterv1.MachineUpdatingCondition, metav1.ConditionFalse, clusterv1.MachineNotUpdatingReason, "", 0)
	capiNotPaused       = capiCond(clusterv1.PausedCondition, metav1.ConditionFalse, clusterv1.NotPausedReason, "", 0)
	capiPaused          = capiCond(clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason, "", 40)
	capiInPlaceUpdating = capiCond(clusterv1.MachineUpdatingCondition, metav1.ConditionTrue,
		clusterv1.MachineInPlaceUpdatingReason, "In-place update in progress", 40)
	capiInPlaceUpdateFailed = capiCond(clusterv1.MachineUpdatingCondition, metav1.ConditionTrue,
		clusterv1.MachineInPlaceUpdateFailedReason, "UpdateMachine hook failed: please check controller logs for errors", 40)
	capiDeletingInfra = capiCond(clusterv1.MachineDeletingCondition, metav1.ConditionTrue,
		clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason, "Waiting for GenericInfrastructureMachine to be deleted", 60)
	capiDeletionCompleted = capiCond(clusterv1.MachineDeletingCondition, metav1.ConditionTrue,
		clusterv1.MachineDeletingDeletionCompletedReason, "Deletion completed", 61)

	// Ready and Available are Cluster API's own summaries; machinestatus does not read them.
	capiNotReady = capiCond(clusterv1.MachineReadyCondition, metav1.ConditionFalse, clusterv1.MachineNotReadyReason,
		"* InfrastructureReady: GenericInfrastructureMachine status.initialization.provisioned is false", 1)
	capiNotAvailable = capiCond(clusterv1.MachineAvailableCondition, metav1.ConditionFalse, clusterv1.MachineNotReadyReason, "", 1)
	capiReady        = capiCond(clusterv1.MachineReadyCondition, metav1.ConditionTrue, clusterv1.MachineReadyReason, "", 6)
)

// capiNodeInspection are NodeReady and NodeHealthy while the Cluster's control plane is not
// initialized (as in TestReconcileMachinePhases).
func capiNodeInspection(minutes int) []metav1.Condition {
	const msg = "Waiting for Cluster control plane to be initialized"
	return []metav1.Condition{
		capiCond(clusterv1.MachineNodeReadyCondition, metav1.ConditionUnknown, clusterv1.MachineNodeInspectionFailedReason, msg, minutes),
		capiCond(clusterv1.MachineNodeHealthyCondition, metav1.ConditionUnknown, clusterv1.MachineNodeInspectionFailedReason, msg, minutes),
	}
}

// capiConds joins conditions and lists of conditions.
func capiConds(parts ...any) []metav1.Condition {
	var out []metav1.Condition
	for _, p := range parts {
		switch p := p.(type) {
		case metav1.Condition:
			out = append(out, p)
		case []metav1.Condition:
			out = append(out, p...)
		default:
			panic("capiConds: not a condition")
		}
	}
	return out
}

// createdOp is the lastOperation of a Machine whose creation finished at capiAt(5).
// creatingOp is the lastOperation a manager keeps while creation waits for the Node.
func creatingOp() *v1alpha1.LastOperation {
	return &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateProcessing,
		Description: "Waiting for the Node to become Ready", LastUpdated: capiAt(0)}
}

func createdOp() *v1alpha1.LastOperation {
	return &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful,
		Description: "Created: the Node is Ready", LastUpdated: capiAt(5)}
}

// Why our phase differs from Cluster API's: each is the heading of a section of
// docs/clusterapi.md ("### " + heading) that explains it.
const (
	whyRunningNeedsNodeReady      = "Running needs a Ready Node"
	whyUnknownAfterCreation       = "Unknown after creation"
	whyDeleted                    = "Deleted"
	whyProviderIDIsNotProvisioned = "A providerID is not provisioning"
	whyFailedOnHealthCheck        = "Failed on a failed health check"
	whyProvisioningWithDataSecret = "Provisioning with a given data secret"
	whyDeletingOnRequest          = "Deleting from the request"
	whyFailedInfrastructureGone   = "Failed when the infrastructure is deleted"
)

type clusterAPIPhaseCase struct {
	// name is the name of the Cluster API test case transcribed (source TestReconcileMachinePhases)
	// or of the rule of setMachinePhaseAndLastUpdated exercised.
	name     string
	source   string
	machine  *clusterv1.Machine
	previous *v1alpha1.LastOperation
	// capiPhase is Cluster API's phase for the Machine: the test's expectation, or what
	// setMachinePhaseAndLastUpdated computes from a Machine whose status.phase is empty or
	// was computed by the same rules.
	capiPhase clusterv1.MachinePhase
	// wantPhase, wantType and wantState are ours.
	wantPhase v1alpha1.MachinePhase
	wantType  v1alpha1.MachineOperationType
	wantState v1alpha1.MachineOperationState
	// disagreement names the docs/clusterapi.md section that says why wantPhase is not
	// capiPhase; it is empty when they agree.
	disagreement string
	// wantDescription, when set, is our lastOperation's description.
	wantDescription string
}

const (
	fromTest  = "TestReconcileMachinePhases"
	fromRules = "setMachinePhaseAndLastUpdated"
)

func clusterAPIPhaseCases() []clusterAPIPhaseCase {
	running := capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiNotUpdating, capiNotPaused, capiReady)
	runningEdits := []func(*clusterv1.Machine){bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef}
	replace := func(list []metav1.Condition, c ...metav1.Condition) []metav1.Condition {
		out := append([]metav1.Condition(nil), list...)
		for _, n := range c {
			found := false
			for i := range out {
				if out[i].Type == n.Type {
					out[i], found = n, true
				}
			}
			if !found {
				out = append(out, n)
			}
		}
		return out
	}
	provisionedWaitingForNode := capiConds(capiBootstrapReady, capiInfraReady, capiNodeInspection(3),
		capiNotDeleting, capiNotUpdating, capiNotPaused, capiNotReady, capiNotAvailable)

	return []clusterAPIPhaseCase{
		// TestReconcileMachinePhases, one row per t.Run.
		{
			name: "Should set `Pending` with a new Machine", source: fromTest,
			machine: capiMachine(capiConds(capiBootstrapNotReady, capiInfraNotReady, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused, capiNotReady, capiNotAvailable)),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhasePending, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Provisioning` when bootstrap is ready", source: fromTest,
			machine: capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused, capiNotReady, capiNotAvailable), bootstrapDataSecretCreated),
			capiPhase: clusterv1.MachinePhaseProvisioning,
			wantPhase: v1alpha1.MachinePhaseProvisioning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Running` when bootstrap and infra is ready", source: fromTest,
			machine:   capiMachine(provisionedWaitingForNode, runningEdits...),
			previous:  creatingOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseProvisioned, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyRunningNeedsNodeReady,
		},
		{
			name: "Should set `Running` when bootstrap and infra is ready with no Status.Addresses", source: fromTest,
			machine:   capiMachine(provisionedWaitingForNode, runningEdits...),
			previous:  creatingOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseProvisioned, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyRunningNeedsNodeReady,
		},
		{
			name: "Should set `Running` when bootstrap, infra, and NodeRef is ready", source: fromTest,
			machine:   capiMachine(provisionedWaitingForNode, runningEdits...),
			previous:  creatingOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseProvisioned, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyRunningNeedsNodeReady,
		},
		{
			// Without history a registered Node ends creation (docs/rules.md,
			// "Without history"): the object cannot tell this Node from one NotReady for hours.
			name: "Should set `Running` when bootstrap, infra, and NodeRef is ready, read without history", source: fromTest,
			machine:   capiMachine(provisionedWaitingForNode, runningEdits...),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseUnknown, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyUnknownAfterCreation,
		},
		{
			name: "Should set `Updating` when Machine is in-place updating (waiting for the UpdateMachine hook)", source: fromTest,
			machine: capiMachine(replace(provisionedWaitingForNode, capiInPlaceUpdating),
				append(runningEdits, inPlaceUpdate)...),
			capiPhase: clusterv1.MachinePhaseUpdating,
			wantPhase: v1alpha1.MachinePhaseUpdating, wantType: v1alpha1.MachineOperationUpdate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Updating` when Machine is in-place updating (the UpdateMachine hook failed)", source: fromTest,
			machine: capiMachine(replace(provisionedWaitingForNode, capiInPlaceUpdateFailed),
				append(runningEdits, inPlaceUpdate)...),
			capiPhase: clusterv1.MachinePhaseUpdating,
			wantPhase: v1alpha1.MachinePhaseUpdating, wantType: v1alpha1.MachineOperationUpdate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Provisioned` when there is a ProviderID and there is no Node", source: fromTest,
			machine: capiMachine(provisionedWaitingForNode,
				bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID),
			capiPhase: clusterv1.MachinePhaseProvisioned,
			wantPhase: v1alpha1.MachinePhaseProvisioned, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Deleting` when Machine is being deleted (waiting for infrastructure deletion)", source: fromTest,
			machine: capiMachine(replace(provisionedWaitingForNode, capiDeletingInfra),
				append(runningEdits, capiDeleted(60, true))...),
			capiPhase: clusterv1.MachinePhaseDeleting,
			wantPhase: v1alpha1.MachinePhaseDeleting, wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Should set `Deleting` when Machine is being deleted (deletion completed, kept by the test's finalizer)", source: fromTest,
			machine: capiMachine(replace(provisionedWaitingForNode, capiDeletionCompleted, capiInfraDeleted, capiBootstrapDeleted),
				append(runningEdits, capiDeleted(60, false))...),
			capiPhase: clusterv1.MachinePhaseDeleting,
			wantPhase: v1alpha1.MachinePhaseDeleted, wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateSuccessful,
			disagreement: whyDeleted,
		},

		// The rules of setMachinePhaseAndLastUpdated on states its test does not reach.
		{
			name: "no status yet: Pending", source: fromRules,
			machine:   capiMachine(nil),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhasePending, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "infrastructure object does not exist yet: Pending", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapNotReady, capiInfraDoesNotExist, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused)),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhasePending, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "BootstrapConfigReady True before status.initialization says so: Pending", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused)),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhasePending, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		// A dataSecretName without a configRef: Cluster API never sets
		// status.initialization.bootstrapDataSecretCreated (reconcileBootstrap returns before it),
		// so its phase goes Pending, Provisioned, Running; the conditions are those its real
		// controllers wrote (test/clusterapi).
		{
			name: "bootstrap dataSecretName given, infrastructure object not yet created: Pending", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraDoesNotExist, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused), withDataSecretName),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhaseProvisioning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			wantDescription: "Waiting for infrastructure to be provisioned: GenericInfrastructureMachine does not exist",
			disagreement:    whyProvisioningWithDataSecret,
		},
		{
			name: "bootstrap dataSecretName given, infrastructure provisioning: Pending", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraNotReady, capiNodeInspection(1),
				capiNotDeleting, capiNotUpdating, capiNotPaused), withDataSecretName),
			capiPhase: clusterv1.MachinePhasePending,
			wantPhase: v1alpha1.MachinePhaseProvisioning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			wantDescription: "Waiting for infrastructure to be provisioned: GenericInfrastructureMachine status.initialization.provisioned is false",
			disagreement:    whyProvisioningWithDataSecret,
		},
		{
			name: "bootstrap dataSecretName given, infrastructure provisioned, no Node yet: Provisioned", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraReady, capiNodeInspection(3),
				capiNotDeleting, capiNotUpdating, capiNotPaused), withDataSecretName, infrastructureProvisioned, withProviderID),
			capiPhase: clusterv1.MachinePhaseProvisioned,
			wantPhase: v1alpha1.MachinePhaseProvisioned, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			wantDescription: "Waiting for the Node to become Ready: Waiting for Cluster control plane to be initialized",
		},
		{
			name: "bootstrap dataSecretName given, Node Ready: Running", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapDataSecretProvided, capiInfraReady, capiNodeReady, capiNodeHealthy,
				capiNotDeleting, capiNotUpdating, capiNotPaused), withDataSecretName, infrastructureProvisioned, withProviderID, withNodeRef),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseRunning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "spec.providerID set before the infrastructure is provisioned: Provisioned", source: fromRules,
			machine: capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady, capiNodeInspection(2),
				capiNotDeleting, capiNotUpdating, capiNotPaused), bootstrapDataSecretCreated, withProviderID),
			capiPhase: clusterv1.MachinePhaseProvisioned,
			wantPhase: v1alpha1.MachinePhaseProvisioning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyProviderIDIsNotProvisioned,
		},
		{
			name: "nodeRef set, infrastructure provisioned, Node Ready: Running", source: fromRules,
			machine:   capiMachine(running, runningEdits...),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseRunning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "Node NotReady after creation: Running (nodeRef stays set)", source: fromRules,
			machine:   capiMachine(replace(running, capiNodeNotReady), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseUnknown, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyUnknownAfterCreation,
		},
		{
			name: "Node deleted while the Machine exists: Running (nodeRef stays set)", source: fromRules,
			machine:   capiMachine(replace(running, capiNodeDeletedReady, capiNodeDeletedHealthy), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseUnknown, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateProcessing,
			disagreement: whyUnknownAfterCreation,
		},
		{
			name: "bootstrap config deleted after provisioning: Running", source: fromRules,
			machine:   capiMachine(replace(running, capiBootstrapDoesNotExist), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseRunning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "infrastructure object deleted after provisioning: Running", source: fromRules,
			machine:   capiMachine(replace(running, capiInfraDeletedWhileRunning), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseFailed, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateFailed,
			disagreement: whyFailedInfrastructureGone,
		},
		{
			name: "Updating=True on a Running Machine: Updating", source: fromRules,
			machine:   capiMachine(replace(running, capiInPlaceUpdating), append(runningEdits, inPlaceUpdate)...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseUpdating,
			wantPhase: v1alpha1.MachinePhaseUpdating, wantType: v1alpha1.MachineOperationUpdate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Updating=True/InPlaceUpdateFailed on a Running Machine: Updating", source: fromRules,
			machine:   capiMachine(replace(running, capiInPlaceUpdateFailed), append(runningEdits, inPlaceUpdate)...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseUpdating,
			wantPhase: v1alpha1.MachinePhaseUpdating, wantType: v1alpha1.MachineOperationUpdate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Updating=True while deleting: Deleting", source: fromRules,
			machine: capiMachine(replace(running, capiInPlaceUpdating, capiDeletingInfra),
				append(runningEdits, inPlaceUpdate, capiDeleted(60, true))...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseDeleting,
			wantPhase: v1alpha1.MachinePhaseDeleting, wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "paused Running Machine: Running", source: fromRules,
			machine:   capiMachine(replace(running, capiPaused), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseRunning, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "MachineHealthCheck reports an unhealthy Node: Running", source: fromRules,
			machine:   capiMachine(replace(running, capiNodeNotReady, capiUnhealthyNode), runningEdits...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseFailed, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateFailed,
			disagreement: whyFailedOnHealthCheck,
		},
		{
			name: "MachineHealthCheck reports an unhealthy Node, read without history: Running", source: fromRules,
			machine:   capiMachine(replace(running, capiNodeNotReady, capiUnhealthyNode), runningEdits...),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseFailed, wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateFailed,
			disagreement: whyFailedOnHealthCheck,
		},
		{
			name: "deletion requested, before Cluster API's first delete pass: Running", source: fromRules,
			machine:   capiMachine(running, append(runningEdits, capiDeleted(60, true))...),
			previous:  createdOp(),
			capiPhase: clusterv1.MachinePhaseRunning,
			wantPhase: v1alpha1.MachinePhaseDeleting, wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateProcessing,
			wantDescription: "Deletion in progress (requested)",
			disagreement:    whyDeletingOnRequest,
		},
		{
			name: "MachineHealthCheck reports NodeStartupTimeout: Provisioned", source: fromRules,
			machine: capiMachine(replace(provisionedWaitingForNode, capiNodeStartupTimeout),
				bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID),
			capiPhase: clusterv1.MachinePhaseProvisioned,
			wantPhase: v1alpha1.MachinePhaseFailed, wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateFailed,
			disagreement: whyFailedOnHealthCheck,
		},
	}
}

// TestClusterAPIMachineStatusAgainstClusterAPIPhases checks our phase against Cluster API's on
// the states of Cluster API's own phase tests and rules: they must agree, or the disagreement
// must be listed with its justification (here and in docs/clusterapi.md).
func TestClusterAPIMachineStatusAgainstClusterAPIPhases(t *testing.T) {
	doc, err := os.ReadFile("../docs/clusterapi.md")
	if err != nil {
		t.Fatalf("cannot read the documented disagreements: %v", err)
	}
	for _, tc := range clusterAPIPhaseCases() {
		t.Run(tc.source+"/"+tc.name, func(t *testing.T) {
			phase, op := aggregate.ClusterAPIMachineStatus(tc.machine, tc.previous, false, time.Time{})
			if phase != tc.wantPhase {
				t.Errorf("phase = %s, want %s (Cluster API: %s)", phase, tc.wantPhase, tc.capiPhase)
			}
			if op == nil || op.Type != tc.wantType || op.State != tc.wantState {
				t.Errorf("lastOperation = %+v, want %s %s", op, tc.wantType, tc.wantState)
			}
			if tc.wantDescription != "" && op != nil {
				if diff := cmp.Diff(tc.wantDescription, op.Description); diff != "" {
					t.Errorf("description (-want +got):\n%s", diff)
				}
			}
			agree := string(phase) == string(tc.capiPhase)
			switch {
			case !agree && tc.disagreement == "":
				t.Errorf("undocumented disagreement: our phase %s, Cluster API's %s; justify it in the table and in docs/clusterapi.md", phase, tc.capiPhase)
			case agree && tc.disagreement != "":
				t.Errorf("both say %s, yet a disagreement is documented: %s", phase, tc.disagreement)
			case !agree && !strings.Contains(string(doc), "\n### "+tc.disagreement+"\n"):
				t.Errorf("the disagreement %q has no section \"### %s\" in docs/clusterapi.md", tc.name, tc.disagreement)
			}
		})
	}
}

// TestClusterAPIMachineStatusIsPure checks, on every state of the table, that the function
// modifies neither its inputs, gives the same result twice, and is a fixed point: given its
// own lastOperation as previous it returns an equal one and the same phase.
func TestClusterAPIMachineStatusIsPure(t *testing.T) {
	for _, tc := range clusterAPIPhaseCases() {
		t.Run(tc.name, func(t *testing.T) {
			machine, previous := tc.machine.DeepCopy(), tc.previous.DeepCopy()
			phase, op := aggregate.ClusterAPIMachineStatus(tc.machine, tc.previous, false, time.Time{})
			if diff := cmp.Diff(machine, tc.machine); diff != "" {
				t.Errorf("ClusterAPIMachineStatus modified the Machine (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(previous, tc.previous); diff != "" {
				t.Errorf("ClusterAPIMachineStatus modified previous (-before +after):\n%s", diff)
			}
			phase2, op2 := aggregate.ClusterAPIMachineStatus(tc.machine, tc.previous, false, time.Time{})
			if phase2 != phase || !equality.Semantic.DeepEqual(op2, op) {
				t.Errorf("second call = %s %+v, first = %s %+v", phase2, op2, phase, op)
			}
			fixedPhase, fixedOp := aggregate.ClusterAPIMachineStatus(tc.machine, op, false, time.Time{})
			if fixedPhase != phase || !equality.Semantic.DeepEqual(fixedOp, op) {
				t.Errorf("not a fixed point: with its own result as previous = %s %+v, want %s %+v", fixedPhase, fixedOp, phase, op)
			}
			if op != nil && tc.previous != nil && op == tc.previous {
				t.Error("the result aliases previous")
			}
		})
	}
}

// TestMachineFromClusterAPINeverReadsMissingAsTrue removes each condition in turn from a
// Running Cluster API Machine: the view never has a True condition that Cluster API did not
// report as True or back by an initialization flag, and the phase is never Running without
// NodeReady.
func TestMachineFromClusterAPINeverReadsMissingAsTrue(t *testing.T) {
	full := capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiNotUpdating, capiNotPaused, capiReady)
	flags := map[string]func(*clusterv1.Machine){
		v1alpha1.MachineBootstrapConfigReadyCondition: bootstrapDataSecretCreated,
		v1alpha1.MachineInfrastructureReadyCondition:  infrastructureProvisioned,
	}
	for i := range full {
		missing := full[i].Type
		list := append(append([]metav1.Condition(nil), full[:i]...), full[i+1:]...)
		for _, withFlags := range []bool{false, true} {
			edits := []func(*clusterv1.Machine){withProviderID, withNodeRef}
			if withFlags {
				edits = append(edits, bootstrapDataSecretCreated, infrastructureProvisioned)
			}
			m := capiMachine(list, edits...)
			view := aggregate.MachineFromClusterAPI(m, createdOp())
			backedByFlag := withFlags && flags[missing] != nil
			for _, c := range view.Status.Conditions {
				if c.Type == missing && c.Status == metav1.ConditionTrue && !backedByFlag {
					t.Errorf("without Cluster API's %s (flags %v), the view has %s=True", missing, withFlags, c.Type)
				}
			}
			if phase, _ := aggregate.ClusterAPIMachineStatus(m, createdOp(), false, time.Time{}); missing == v1alpha1.MachineNodeReadyCondition &&
				phase == v1alpha1.MachinePhaseRunning {
				t.Errorf("without NodeReady (flags %v) the phase is Running", withFlags)
			}
		}
	}
}

// TestMachineFromClusterAPI checks the view of one Machine field by field.
func TestMachineFromClusterAPI(t *testing.T) {
	deletion := capiAt(60)
	m := capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeDeletedReady, capiNodeDeletedHealthy,
		capiHealthCheckSucceeded, capiDeletingInfra, capiInPlaceUpdateFailed, capiPaused, capiReady, capiNotAvailable,
		capiCond("APIServerPodHealthy", metav1.ConditionTrue, "Running", "", 4),
		capiCond("example.com/Unrelated", metav1.ConditionFalse, "Whatever", "", 4),
	), runningEdits(), func(m *clusterv1.Machine) {
		m.UID = "uid-1"
		m.Spec.Version = "v1.36.3"
		m.DeletionTimestamp = &deletion
		m.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{
			{ConditionType: "APIServerPodHealthy"},
			{ConditionType: "example.com/Missing", Polarity: clusterv1.NegativePolarityCondition},
			{ConditionType: clusterv1.MachineNodeReadyCondition},
		}
	})
	previous := createdOp()
	want := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "machine-test", Namespace: "default", UID: "uid-1", Generation: 1,
			CreationTimestamp: capiAt(0), DeletionTimestamp: &deletion},
		Spec: v1alpha1.MachineSpec{
			ProviderID: "test://abc123",
			Version:    "v1.36.3",
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: "infra-config1"},
			Bootstrap: &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfig", Name: "bootstrap-config1"}},
			ReadinessGates: []v1alpha1.MachineReadinessGate{
				{ConditionType: "APIServerPodHealthy", Polarity: v1alpha1.PositiveConditionPolarity},
				{ConditionType: "example.com/Missing", Polarity: v1alpha1.NegativeConditionPolarity},
			},
		},
		Status: v1alpha1.MachineStatus{
			Conditions: []metav1.Condition{
				capiCond("APIServerPodHealthy", metav1.ConditionTrue, "Running", "", 4),
				capiBootstrapReady,
				capiDeletingInfra,
				capiHealthCheckSucceeded,
				capiInfraReady,
				capiNodeDeletedHealthy,
				capiCond(v1alpha1.MachineNodeReadyCondition, metav1.ConditionUnknown, clusterv1.MachineNodeDeletedReason,
					"Node machine-test-node-x7k2p has been deleted while the Machine still exists", 20),
				capiPaused,
				capiInPlaceUpdateFailed,
			},
			LastOperation:      previous,
			ProviderID:         "test://abc123",
			NodeRef:            &v1alpha1.MachineNodeReference{Name: "machine-test-node-x7k2p"},
			ObservedGeneration: 1,
		},
	}
	got := aggregate.MachineFromClusterAPI(m, previous)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MachineFromClusterAPI() (-want +got):\n%s", diff)
	}
	if got.Status.LastOperation == previous {
		t.Error("the view's lastOperation aliases previous")
	}
	if aggregate.MachineFromClusterAPI(nil, previous) != nil {
		t.Error("MachineFromClusterAPI(nil) is not nil")
	}
	if phase, op := aggregate.ClusterAPIMachineStatus(nil, previous, false, time.Time{}); phase != v1alpha1.MachinePhasePending || op != nil {
		t.Errorf("ClusterAPIMachineStatus(nil) = %s, %+v; want Pending, nil", phase, op)
	}
}

func runningEdits() func(*clusterv1.Machine) {
	return func(m *clusterv1.Machine) {
		for _, e := range []func(*clusterv1.Machine){bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID, withNodeRef} {
			e(m)
		}
	}
}

// TestClusterAPIConditionTypesAreTheCatalogs checks that the Cluster API condition types the
// view copies have the catalog's names, as MachineFromClusterAPI assumes.
func TestClusterAPIConditionTypesAreTheCatalogs(t *testing.T) {
	pairs := [][2]string{
		{clusterv1.MachineReadyCondition, v1alpha1.MachineReadyCondition},
		{clusterv1.MachineBootstrapConfigReadyCondition, v1alpha1.MachineBootstrapConfigReadyCondition},
		{clusterv1.MachineInfrastructureReadyCondition, v1alpha1.MachineInfrastructureReadyCondition},
		{clusterv1.MachineNodeReadyCondition, v1alpha1.MachineNodeReadyCondition},
		{clusterv1.MachineNodeHealthyCondition, v1alpha1.MachineNodeHealthyCondition},
		{clusterv1.MachineHealthCheckSucceededCondition, v1alpha1.MachineHealthCheckSucceededCondition},
		{clusterv1.MachineUpdatingCondition, v1alpha1.MachineUpdatingCondition},
		{clusterv1.MachineDeletingCondition, v1alpha1.MachineDeletingCondition},
		{clusterv1.PausedCondition, v1alpha1.MachinePausedCondition},
		{clusterv1.MachineDeletingDrainingNodeReason, v1alpha1.MachineDeletingDrainingNodeReason},
		{clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason},
		{clusterv1.MachineDeletingDeletionCompletedReason, v1alpha1.MachineDeletingDeletionCompletedReason},
		{clusterv1.MachineNodeDeletedReason, v1alpha1.MachineNodeDeletedReason},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("Cluster API's %q is the catalog's %q", p[0], p[1])
		}
	}
}

// TestLastOperationAnnotation round-trips lastOperations through the annotation.
func TestLastOperationAnnotation(t *testing.T) {
	m := capiMachine(nil)
	m.Annotations = map[string]string{"keep": "me"}
	shared := m.Annotations

	if op, err := aggregate.LastOperationFromAnnotations(m.Annotations); op != nil || err != nil {
		t.Fatalf("no annotation: got %+v, %v; want nil, nil", op, err)
	}
	op := createdOp()
	op.LastUpdated = metav1.NewTime(capiAt(5).Add(300 * time.Millisecond).In(time.FixedZone("CET", 3600)))
	changed, err := aggregate.SetLastOperationAnnotation(m, op)
	if err != nil || !changed {
		t.Fatalf("SetLastOperationAnnotation() = %v, %v; want true, nil", changed, err)
	}
	if len(shared) != 1 {
		t.Errorf("SetLastOperationAnnotation modified the object's former annotation map: %v", shared)
	}
	// What a later reader cannot derive is kept; the description is derived when read.
	wantValue := `{"type":"Create","state":"Successful","lastUpdated":"2026-01-01T00:05:00Z"}`
	if got := m.Annotations[aggregate.LastOperationAnnotation]; got != wantValue {
		t.Errorf("annotation = %s, want %s", got, wantValue)
	}
	got, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil {
		t.Fatal(err)
	}
	if want := createdOp(); !aggregate.SameKeptOperation(got, want) || got.Description != "" {
		t.Errorf("read back %+v, want %+v without its description", got, want)
	}
	// A value written before, with a description, is read as it is and not rewritten just to
	// drop it.
	old := `{"type":"Create","state":"Successful","description":"Created: the Node is Ready","lastUpdated":"2026-01-01T00:05:00Z"}`
	before := &clusterv1.Machine{}
	before.Annotations = map[string]string{aggregate.LastOperationAnnotation: old}
	if read, err := aggregate.LastOperationFromAnnotations(before.Annotations); err != nil || !equality.Semantic.DeepEqual(read, createdOp()) {
		t.Errorf("the former format read as %+v, %v; want %+v", read, err, createdOp())
	}
	if changed, err := aggregate.SetLastOperationAnnotation(before, createdOp()); changed || err != nil || before.Annotations[aggregate.LastOperationAnnotation] != old {
		t.Errorf("the former format rewritten (%v, %v): %s", changed, err, before.Annotations[aggregate.LastOperationAnnotation])
	}
	// A Delete keeps its reason.
	deleting := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationDelete, State: v1alpha1.MachineOperationStateProcessing,
		Reason: v1alpha1.RolloutReason, Description: "Deletion in progress (replaced by a rollout)", LastUpdated: capiAt(9)}
	if value, err := aggregate.LastOperationAnnotationValue(deleting); err != nil ||
		value != `{"type":"Delete","state":"Processing","reason":"Rollout","lastUpdated":"2026-01-01T00:09:00Z"}` {
		t.Errorf("LastOperationAnnotationValue(Delete) = %s, %v", value, err)
	}
	if changed, err := aggregate.SetLastOperationAnnotation(m, got); changed || err != nil {
		t.Errorf("writing the same lastOperation again = %v, %v; want false, nil", changed, err)
	}
	if changed, err := aggregate.SetLastOperationAnnotation(m, nil); !changed || err != nil {
		t.Errorf("removing = %v, %v; want true, nil", changed, err)
	}
	if _, ok := m.Annotations[aggregate.LastOperationAnnotation]; ok || m.Annotations["keep"] != "me" {
		t.Errorf("after removal the annotations are %v", m.Annotations)
	}
	if changed, _ := aggregate.SetLastOperationAnnotation(m, nil); changed {
		t.Error("removing an absent annotation changed the object")
	}

	for _, bad := range []string{`not json`, `{"type":"Reboot","state":"Processing","lastUpdated":null}`,
		`{"type":"Create","state":"Stuck","lastUpdated":null}`, `{"type":"Delete","state":"Processing","reason":"Bored","lastUpdated":null}`} {
		if op, err := aggregate.LastOperationFromAnnotations(map[string]string{aggregate.LastOperationAnnotation: bad}); err == nil {
			t.Errorf("LastOperationFromAnnotations(%s) = %+v, want an error", bad, op)
		}
	}
}

// TestClusterAPIMachineLifecycle walks a Cluster API Machine through its life, keeping the
// lastOperation in the annotation between calls as a caller would, and checks the sequence of
// phases and operations.
func TestClusterAPIMachineLifecycle(t *testing.T) {
	type step struct {
		name      string
		machine   *clusterv1.Machine
		wantPhase v1alpha1.MachinePhase
		wantOp    string // "<type> <state>"
	}
	running := capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiNotUpdating, capiNotPaused)
	notReady := capiConds(capiBootstrapReady, capiInfraReady, capiNodeNotReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiNotUpdating, capiNotPaused)
	updating := capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiInPlaceUpdating, capiNotPaused)
	updated := capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiNodeHealthy, capiHealthCheckSucceeded,
		capiNotDeleting, capiCond(clusterv1.MachineUpdatingCondition, metav1.ConditionFalse, clusterv1.MachineNotUpdatingReason, "", 45), capiNotPaused)
	steps := []step{
		{"new", capiMachine(capiConds(capiBootstrapNotReady, capiInfraNotReady, capiNodeInspection(1))),
			v1alpha1.MachinePhasePending, "Create Processing"},
		{"bootstrap data created", capiMachine(capiConds(capiBootstrapReady, capiInfraNotReady, capiNodeInspection(1)), bootstrapDataSecretCreated),
			v1alpha1.MachinePhaseProvisioning, "Create Processing"},
		{"infrastructure provisioned", capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeInspection(3)),
			bootstrapDataSecretCreated, infrastructureProvisioned, withProviderID),
			v1alpha1.MachinePhaseProvisioned, "Create Processing"},
		{"Node Ready", capiMachine(running, runningEdits()), v1alpha1.MachinePhaseRunning, "Create Successful"},
		{"Node NotReady", capiMachine(notReady, runningEdits()), v1alpha1.MachinePhaseUnknown, "HealthCheck Processing"},
		{"Node Ready again", capiMachine(running, runningEdits()), v1alpha1.MachinePhaseRunning, "HealthCheck Successful"},
		{"in-place update", capiMachine(updating, runningEdits(), inPlaceUpdate), v1alpha1.MachinePhaseUpdating, "Update Processing"},
		{"updated", capiMachine(updated, runningEdits()), v1alpha1.MachinePhaseRunning, "Update Successful"},
		{"deleting", capiMachine(capiConds(capiBootstrapReady, capiInfraReady, capiNodeReady, capiDeletingInfra), runningEdits(), capiDeleted(60, true)),
			v1alpha1.MachinePhaseDeleting, "Delete Processing"},
		{"deleted", capiMachine(capiConds(capiBootstrapDeleted, capiInfraDeleted, capiDeletionCompleted), runningEdits(), capiDeleted(60, false)),
			v1alpha1.MachinePhaseDeleted, "Delete Successful"},
	}
	annotations := map[string]string{}
	for _, s := range steps {
		s.machine.Annotations = annotations
		previous, err := aggregate.LastOperationFromAnnotations(s.machine.Annotations)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		phase, op := aggregate.ClusterAPIMachineStatus(s.machine, previous, false, time.Time{})
		if got := string(op.Type) + " " + string(op.State); phase != s.wantPhase || got != s.wantOp {
			t.Errorf("%s: %s, %s (%s); want %s, %s", s.name, phase, got, op.Description, s.wantPhase, s.wantOp)
		}
		if _, err := aggregate.SetLastOperationAnnotation(s.machine, op); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		annotations = s.machine.Annotations
	}
}
