package aggregate

import "github.com/machinestatus/machinestatus/api/v1alpha1"

// ConditionPolarity returns the polarity of a condition of type conditionType on a Machine whose
// readiness gates are gates, the one rule Ready's summary and printers share; first match wins:
//   - a catalog type that Ready summarizes keeps the catalog's polarity, whatever a gate says;
//   - a readiness gate of that type that declares a polarity: the declaration;
//   - the catalog's polarity (Positive for a type outside the catalog).
func ConditionPolarity(conditionType string, gates []v1alpha1.MachineReadinessGate) v1alpha1.ConditionPolarity {
	if c, ok := v1alpha1.CatalogInfo(conditionType); ok && c.InReady != v1alpha1.Never {
		return c.Polarity
	}
	for _, g := range gates {
		if g.ConditionType == conditionType && g.Polarity != "" {
			return g.Polarity
		}
	}
	if v1alpha1.IsNegativePolarity(conditionType) {
		return v1alpha1.NegativeConditionPolarity
	}
	return v1alpha1.PositiveConditionPolarity
}
