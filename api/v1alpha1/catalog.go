package v1alpha1

import "slices"

// When says under which condition of a Machine's spec a catalog rule applies.
type When string

const (
	// Never means the rule does not apply.
	Never When = ""
	// Always means the rule applies to every Machine.
	Always When = "Always"
	// WithBootstrap means the rule applies when spec.bootstrap is set.
	WithBootstrap When = "WithBootstrap"
	// WithVersion means the rule applies when spec.version is set.
	WithVersion When = "WithVersion"
)

// Applies reports whether the rule applies to a Machine with spec s.
func (w When) Applies(s *MachineSpec) bool {
	switch w {
	case Always:
		return true
	case WithBootstrap:
		return s.Bootstrap != nil
	case WithVersion:
		return s.Version != ""
	}
	return false
}

// ConditionInfo is one row of the condition catalog: how a condition type is read and written.
// +kubebuilder:object:generate=false
type ConditionInfo struct {
	// Type is the condition type.
	Type string
	// Polarity is Negative when True is the bad (or unusual) state.
	Polarity ConditionPolarity
	// InReady says when Ready's summary includes the type.
	InReady When
	// Owned says when the machinestatus controller writes the type (otherwise other writers may).
	Owned When
	// Priority orders the owned types when status.conditions is full: the highest number is
	// left out first, 1 last.
	Priority int
	// Reasons are the reasons a condition of the type carries, the ones other writers report
	// included (an updater's UpdateFailed, a drainer's DrainingFailed). Ready's are the summary
	// reasons of package conditions, not listed here.
	Reasons []string
}

// catalog is the condition catalog, one row per type, in catalog order (Ready first, then
// alphabetical).
var catalog = [...]ConditionInfo{
	{Type: MachineReadyCondition, Polarity: PositiveConditionPolarity, Owned: Always, Priority: 1},
	{Type: MachineBootstrapConfigReadyCondition, Polarity: PositiveConditionPolarity, InReady: WithBootstrap, Owned: WithBootstrap, Priority: 3,
		Reasons: []string{MachineBootstrapDataSecretProvidedReason, MachineBootstrapDataSecretCreatedReason, MachineBootstrapConfigNotReadyReason,
			MachineBootstrapFailedReason, MachineBootstrapConfigDoesNotExistReason, MachineBootstrapConfigKindNotServedReason,
			MachineBootstrapConfigContractViolationReason, MachineBootstrapConfigForbiddenReason, MachineBootstrapConfigUnreadableReason}},
	{Type: MachineDeletingCondition, Polarity: NegativeConditionPolarity, InReady: Always, Owned: Always, Priority: 6,
		Reasons: []string{MachineDeletingDrainingNodeReason, MachineDeletingWaitingForInfrastructureDeletionReason,
			MachineDeletingWaitingForNodeDeletionReason, MachineDeletingDeletionCompletedReason, MachineNotDeletingReason}},
	{Type: MachineDrainingCondition, Polarity: NegativeConditionPolarity, Owned: Always, Priority: 8,
		Reasons: []string{MachineNodeCordonedReason, MachineNotDrainingReason, MachineDrainingFailedReason}},
	{Type: MachineHealthCheckSucceededCondition, Polarity: PositiveConditionPolarity, InReady: Always, Owned: Always, Priority: 5,
		Reasons: []string{MachineHealthCheckSucceededReason, MachineHealthCheckUnhealthyNodeReason, MachineHealthCheckNodeStartupTimeoutReason,
			MachineHealthCheckNodeDeletedReason}},
	{Type: MachineInfrastructureReadyCondition, Polarity: PositiveConditionPolarity, InReady: Always, Owned: Always, Priority: 2,
		Reasons: []string{MachineInfrastructureProvisionedReason, MachineInfrastructureNotProvisionedReason, MachineInfrastructureFailedReason,
			MachineInfrastructureDoesNotExistReason, MachineInfrastructureDeletedReason, MachineInfrastructureKindNotServedReason,
			MachineInfrastructureContractViolationReason, MachineInfrastructureForbiddenReason, MachineInfrastructureUnreadableReason}},
	{Type: MachineNodeHealthyCondition, Polarity: PositiveConditionPolarity, InReady: Always, Owned: Always, Priority: 9,
		Reasons: []string{MachineNodeHealthyReason, MachineNodeUnhealthyReason, MachineNodeHealthUnknownReason}},
	{Type: MachineNodeReadyCondition, Polarity: PositiveConditionPolarity, InReady: Always, Owned: Always, Priority: 4,
		Reasons: []string{MachineNodeReadyReason, MachineNodeNotReadyReason, MachineNodeReadyUnknownReason, MachineNodeDoesNotExistReason,
			MachineNodeDeletedReason}},
	{Type: MachinePausedCondition, Polarity: NegativeConditionPolarity, Owned: Always, Priority: 12,
		Reasons: []string{MachinePausedReason, MachineNotPausedReason}},
	{Type: MachineStalledCondition, Polarity: NegativeConditionPolarity, Owned: Always, Priority: 10,
		Reasons: []string{MachineFailedReason}},
	{Type: MachineStandbyCondition, Polarity: NegativeConditionPolarity, Owned: Always, Priority: 11,
		Reasons: []string{MachineStandbyRequestedReason, MachineNotInStandbyReason}},
	{Type: MachineUpdatingCondition, Polarity: NegativeConditionPolarity, Owned: WithVersion, Priority: 7,
		Reasons: []string{MachineUpdatingKubeletVersionReason, MachineNotUpdatingReason, MachineUpdateFailedReason}},
}

// terminalReasons are the reasons that, on any condition, mean a terminal failure: the phase is
// Failed while one of them is present.
var terminalReasons = [...]string{MachineBootstrapFailedReason, MachineInfrastructureDeletedReason, MachineInfrastructureFailedReason, MachineUpdateFailedReason}

// Catalog returns the condition catalog, one row per type, in catalog order (Ready first, then
// alphabetical).
func Catalog() []ConditionInfo {
	rows := slices.Clone(catalog[:])
	for i := range rows {
		rows[i].Reasons = slices.Clone(rows[i].Reasons)
	}
	return rows
}

// CatalogInfo returns the catalog's row of conditionType, and false when the type is not in the
// catalog.
func CatalogInfo(conditionType string) (ConditionInfo, bool) {
	i := slices.IndexFunc(catalog[:], func(c ConditionInfo) bool { return c.Type == conditionType })
	if i < 0 {
		return ConditionInfo{}, false
	}
	c := catalog[i]
	c.Reasons = slices.Clone(c.Reasons)
	return c, true
}

// IsNegativePolarity reports whether the catalog gives conditionType negative polarity (True is
// the bad or unusual state); types outside the catalog are positive.
func IsNegativePolarity(conditionType string) bool {
	c, _ := CatalogInfo(conditionType)
	return c.Polarity == NegativeConditionPolarity
}

// TerminalReasons returns the reasons that, on any condition, mean a terminal failure.
func TerminalReasons() []string { return slices.Clone(terminalReasons[:]) }

// IsTerminalReason reports whether reason means a terminal failure (see TerminalReasons).
func IsTerminalReason(reason string) bool { return slices.Contains(terminalReasons[:], reason) }
