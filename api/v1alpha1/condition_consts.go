package v1alpha1

// The condition types of a Machine and their reasons. Each block names one condition type, says
// who sets it and defines its reasons; the catalog (catalog.go) lists them per type. Reasons are
// CamelCase and match the API server's reason pattern. Names follow Cluster API v1beta2 where
// the meaning is the same.

// Ready is the summary condition, computed by aggregate.Summarize from BootstrapConfigReady
// (when a bootstrap is configured), InfrastructureReady, NodeReady, NodeHealthy,
// HealthCheckSucceeded, every readiness gate and Deleting (negative). Its reasons are the
// summary reasons of package conditions (e.g. NoIssuesReported, MultipleIssuesReported).
const (
	// MachineReadyCondition is True when everything a Machine needs is fine.
	MachineReadyCondition = "Ready"
)

// BootstrapConfigReady is set by the machinestatus controller from spec.bootstrap.
const (
	// MachineBootstrapConfigReadyCondition is True when the Machine's bootstrap data exists.
	MachineBootstrapConfigReadyCondition = "BootstrapConfigReady"

	// MachineBootstrapDataSecretProvidedReason: spec.bootstrap.dataSecretName names ready-made data.
	MachineBootstrapDataSecretProvidedReason = "DataSecretProvided"
	// MachineBootstrapDataSecretCreatedReason: the bootstrap config reports its data secret created.
	MachineBootstrapDataSecretCreatedReason = "DataSecretCreated"
	// MachineBootstrapConfigNotReadyReason: the bootstrap config exists but has no data yet.
	MachineBootstrapConfigNotReadyReason = "BootstrapConfigNotReady"
	// MachineBootstrapFailedReason: the bootstrap config reports a terminal failure.
	MachineBootstrapFailedReason = "BootstrapFailed"
	// MachineBootstrapConfigDoesNotExistReason: the referenced bootstrap config is not found.
	MachineBootstrapConfigDoesNotExistReason = "BootstrapConfigDoesNotExist"
	// MachineBootstrapConfigKindNotServedReason: the API server serves no such kind (e.g. the
	// bootstrap provider's CRD is not installed); the controller checks again periodically.
	MachineBootstrapConfigKindNotServedReason = "BootstrapConfigKindNotServed"
	// MachineBootstrapConfigContractViolationReason: the bootstrap config was read but a field
	// of the contract has the wrong type (e.g. status.ready is a string, status.conditions is
	// not a list of conditions); the message names the field.
	MachineBootstrapConfigContractViolationReason = "BootstrapConfigContractViolation"
	// MachineBootstrapConfigForbiddenReason: RBAC does not let the manager list and watch the
	// bootstrap config's kind; the message names what to grant. The controller checks again
	// periodically.
	MachineBootstrapConfigForbiddenReason = "BootstrapConfigForbidden"
	// MachineBootstrapConfigUnreadableReason: the bootstrap config cannot be read (e.g. its
	// cache did not sync in time).
	MachineBootstrapConfigUnreadableReason = "BootstrapConfigUnreadable"
)

// InfrastructureReady is set by the machinestatus controller from spec.infrastructureRef.
const (
	// MachineInfrastructureReadyCondition is True when the infrastructure is provisioned.
	MachineInfrastructureReadyCondition = "InfrastructureReady"

	// MachineInfrastructureProvisionedReason: the infrastructure object reports provisioned.
	MachineInfrastructureProvisionedReason = "InfrastructureProvisioned"
	// MachineInfrastructureNotProvisionedReason: the infrastructure object exists and is being
	// provisioned.
	MachineInfrastructureNotProvisionedReason = "InfrastructureNotProvisioned"
	// MachineInfrastructureFailedReason: the infrastructure object reports a terminal failure
	// (status.failureReason or status.failureMessage).
	MachineInfrastructureFailedReason = "InfrastructureFailed"
	// MachineInfrastructureDoesNotExistReason: the referenced infrastructure object is not found
	// and was never seen provisioned: it moves on when it is created.
	MachineInfrastructureDoesNotExistReason = "InfrastructureDoesNotExist"
	// MachineInfrastructureDeletedReason: the infrastructure object was deleted after it was
	// provisioned (InfrastructureReady was True): a terminal failure while the Machine is not
	// being deleted, as Cluster API treats it.
	MachineInfrastructureDeletedReason = "InfrastructureDeleted"
	// MachineInfrastructureKindNotServedReason: the API server serves no such kind (e.g. the
	// infrastructure provider's CRD is not installed); the controller checks again periodically.
	MachineInfrastructureKindNotServedReason = "InfrastructureKindNotServed"
	// MachineInfrastructureContractViolationReason: the infrastructure object was read but a
	// field of the contract has the wrong type (e.g. status.initialization.provisioned is a
	// string, status.conditions is not a list of conditions); the message names the field.
	MachineInfrastructureContractViolationReason = "InfrastructureContractViolation"
	// MachineInfrastructureForbiddenReason: RBAC does not let the manager list and watch the
	// infrastructure object's kind; the message names what to grant. The controller checks
	// again periodically.
	MachineInfrastructureForbiddenReason = "InfrastructureForbidden"
	// MachineInfrastructureUnreadableReason: the infrastructure object cannot be read (e.g. its
	// cache did not sync in time).
	MachineInfrastructureUnreadableReason = "InfrastructureUnreadable"
)

// NodeReady is set by the machinestatus controller from the Node's Ready condition.
const (
	// MachineNodeReadyCondition is True when the kubelet posts Ready.
	MachineNodeReadyCondition = "NodeReady"

	// MachineNodeReadyReason: the Node's Ready condition is True.
	MachineNodeReadyReason = "NodeReady"
	// MachineNodeNotReadyReason: the Node's Ready condition is False.
	MachineNodeNotReadyReason = "NodeNotReady"
	// MachineNodeReadyUnknownReason: the Node's Ready condition is Unknown or missing (the
	// kubelet stopped posting status).
	MachineNodeReadyUnknownReason = "NodeReadyUnknown"
	// MachineNodeDoesNotExistReason: no Node has registered for the Machine yet.
	MachineNodeDoesNotExistReason = "NodeDoesNotExist"
	// MachineNodeDeletedReason: the Machine's Node existed and was deleted.
	MachineNodeDeletedReason = "NodeDeleted"
)

// NodeHealthy is set by the machinestatus controller from the Node's pressure conditions.
const (
	// MachineNodeHealthyCondition is True when MemoryPressure, DiskPressure, PIDPressure and
	// NetworkUnavailable are all False (missing ones are ignored).
	MachineNodeHealthyCondition = "NodeHealthy"

	// MachineNodeHealthyReason: no pressure condition is True.
	MachineNodeHealthyReason = "NodeHealthy"
	// MachineNodeUnhealthyReason: at least one pressure condition is True.
	MachineNodeUnhealthyReason = "NodeUnhealthy"
	// MachineNodeHealthUnknownReason: a pressure condition is Unknown, or there is no Node.
	MachineNodeHealthUnknownReason = "NodeHealthUnknown"
)

// HealthCheckSucceeded is set by the machinestatus controller from the health-check timers.
const (
	// MachineHealthCheckSucceededCondition is True while no unhealthy Node condition has
	// outlasted its timeout and the Node registered within nodeStartupTimeoutSeconds.
	MachineHealthCheckSucceededCondition = "HealthCheckSucceeded"

	// MachineHealthCheckSucceededReason: no timer has expired.
	MachineHealthCheckSucceededReason = "HealthCheckSucceeded"
	// MachineHealthCheckUnhealthyNodeReason: an unhealthy Node condition outlasted its timeout.
	MachineHealthCheckUnhealthyNodeReason = "UnhealthyNode"
	// MachineHealthCheckNodeStartupTimeoutReason: no Node registered within the startup timeout.
	MachineHealthCheckNodeStartupTimeoutReason = "NodeStartupTimeout"
	// MachineHealthCheckNodeDeletedReason: the Node was deleted after it had registered.
	MachineHealthCheckNodeDeletedReason = "NodeDeleted"
)

// Updating (negative polarity) is set by the machinestatus controller from spec.version and the
// Node's kubelet version, or by an external updater.
const (
	// MachineUpdatingCondition is True while an update is in progress.
	MachineUpdatingCondition = "Updating"

	// MachineUpdatingKubeletVersionReason: the kubelet version differs from spec.version.
	MachineUpdatingKubeletVersionReason = "KubeletVersionUpdating"
	// MachineNotUpdatingReason: the Machine is at its desired version (or none is set).
	MachineNotUpdatingReason = "NotUpdating"
	// MachineUpdateFailedReason: an updater reports a terminal update failure.
	MachineUpdateFailedReason = "UpdateFailed"
)

// Draining (negative polarity) is set by the machinestatus controller from the Node's
// spec.unschedulable.
const (
	// MachineDrainingCondition is True while the Node is cordoned or drained.
	MachineDrainingCondition = "Draining"

	// MachineNodeCordonedReason: the Node is unschedulable.
	MachineNodeCordonedReason = "NodeCordoned"
	// MachineNotDrainingReason: the Node is schedulable, or there is no Node.
	MachineNotDrainingReason = "NotDraining"
	// MachineDrainingFailedReason: the drainer (e.g. Cluster API's v1beta1 DrainingSucceeded
	// reason, or any tool that drains the Node and writes the Machine) reports that the drain
	// failed, e.g. evictions refused by a PodDisruptionBudget until its timeout; the message
	// says why. The controller keeps it while the Node stays cordoned. Not terminal: drainers
	// retry, so the phase stays Draining; lastOperation is DrainNode Failed (Delete Failed
	// during deletion) while it is present.
	MachineDrainingFailedReason = "DrainingFailed"
)

// Standby (negative polarity) is set by the machinestatus controller from spec.standby.
const (
	// MachineStandbyCondition is True while the Machine is parked on purpose.
	MachineStandbyCondition = "Standby"

	// MachineStandbyRequestedReason: spec.standby is true.
	MachineStandbyRequestedReason = "StandbyRequested"
	// MachineNotInStandbyReason: spec.standby is false.
	MachineNotInStandbyReason = "NotInStandby"
)

// Deleting (negative polarity) is set by the machinestatus controller from the
// deletionTimestamp and what still exists. The True reasons name the deletion step.
const (
	// MachineDeletingCondition is True while the Machine is being deleted.
	MachineDeletingCondition = "Deleting"

	// MachineDeletingDrainingNodeReason: the Node and the infrastructure still exist.
	MachineDeletingDrainingNodeReason = "DrainingNode"
	// MachineDeletingWaitingForInfrastructureDeletionReason: the Node is gone; the
	// infrastructure object still exists.
	MachineDeletingWaitingForInfrastructureDeletionReason = "WaitingForInfrastructureDeletion"
	// MachineDeletingWaitingForNodeDeletionReason: the infrastructure is gone; the Node still exists.
	MachineDeletingWaitingForNodeDeletionReason = "WaitingForNodeDeletion"
	// MachineDeletingDeletionCompletedReason: the infrastructure and the Node are gone.
	MachineDeletingDeletionCompletedReason = "DeletionCompleted"
	// MachineNotDeletingReason: the Machine has no deletionTimestamp.
	MachineNotDeletingReason = "NotDeleting"
)

// Paused (negative polarity) is set by the machinestatus controller from the
// machinestatus.io/paused annotation.
const (
	// MachinePausedCondition is True while reconciliation is paused.
	MachinePausedCondition = "Paused"

	// MachinePausedReason: the paused annotation is present.
	MachinePausedReason = "Paused"
	// MachineNotPausedReason: the paused annotation is absent.
	MachineNotPausedReason = "NotPaused"
)

// Stalled (negative polarity) is set by the machinestatus controller from the phase, for GitOps
// tools: kstatus (sigs.k8s.io/cli-utils/pkg/kstatus) reports a resource whose Stalled condition
// is True as Failed. It mirrors phase Failed and is absent otherwise ("abnormal-true" convention);
// it is derived, so no summary or phase reads it.
const (
	// MachineStalledCondition is True while the phase is Failed.
	MachineStalledCondition = "Stalled"

	// MachineFailedReason: the phase is Failed; the message is lastOperation's description.
	MachineFailedReason = "MachineFailed"
)
