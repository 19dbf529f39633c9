package aggregate

import (
	"slices"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ConditionPolarity returns the polarity of a condition of type conditionType on a Machine whose
// readiness gates are gates. It is the one rule Summarize (Ready's scope) and printers
// (`machinestatus describe`) share; first match wins:
//   - a built-in type of Ready's scope (BootstrapConfigReady, Deleting, HealthCheckSucceeded,
//     InfrastructureReady, NodeHealthy, NodeReady) has the catalog's polarity, whatever a gate
//     declares;
//   - a readiness gate of that type that declares a polarity (Positive or Negative): the
//     declaration, even against the catalog (the spec's declaration wins);
//   - the catalog's: Negative for v1alpha1.NegativePolarityConditions, else Positive.
//
// It never returns the empty polarity, keeps no state and does not allocate.
func ConditionPolarity(conditionType string, gates []v1alpha1.MachineReadinessGate) v1alpha1.ConditionPolarity {
	if !slices.Contains(readyBuiltinTypes[:], conditionType) {
		for _, g := range gates {
			if g.ConditionType == conditionType && g.Polarity != "" {
				return g.Polarity
			}
		}
	}
	if slices.Contains(v1alpha1.NegativePolarityConditions, conditionType) {
		return v1alpha1.NegativeConditionPolarity
	}
	return v1alpha1.PositiveConditionPolarity
}

// readyBuiltinTypes are the built-in types Ready may summarize, in catalog order;
// BootstrapConfigReady only when spec.bootstrap is set.
var readyBuiltinTypes = [...]string{
	v1alpha1.MachineBootstrapConfigReadyCondition,
	v1alpha1.MachineDeletingCondition,
	v1alpha1.MachineHealthCheckSucceededCondition,
	v1alpha1.MachineInfrastructureReadyCondition,
	v1alpha1.MachineNodeHealthyCondition,
	v1alpha1.MachineNodeReadyCondition,
}
