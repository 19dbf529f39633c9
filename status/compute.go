package status

import (
	"time"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// OwnedTypes returns the condition types the controller owns on m (the catalog's Owned column).
func OwnedTypes(m *v1alpha1.Machine) map[string]bool {
	owned := map[string]bool{}
	for _, c := range v1alpha1.Catalog() {
		if c.Owned.Applies(&m.Spec) {
			owned[c.Type] = true
		}
	}
	return owned
}

// Compute writes the whole status of m from in: nodeRef, providerID, every owned
// condition, then Ready, lastOperation and phase (package aggregate) and observedGeneration. It
// returns the next health-check deadline (zero when none) and the first condition that could not
// be set. Time enters only through in.Now, the reconcile's one instant: the health check's
// deadlines and every lastTransitionTime written read it, so Compute is a pure function of
// m and in.
func Compute(m *v1alpha1.Machine, in Inputs) (time.Time, error) {
	w := &conditionWriter{m: m, now: in.Now}

	m.Status.ProviderID = ProviderID(m, in.Infra)

	setInfrastructureReadyCondition(w, in.Infra)
	setBootstrapConfigReadyCondition(w, m.Spec.Bootstrap, in.Bootstrap)
	// NodeReady and the health check read the previous nodeRef to tell "deleted" from "never
	// registered", so nodeRef is updated after them.
	setNodeReadyCondition(w, in.Node, in.SharedWith)
	setNodeHealthyCondition(w, in.Node)
	next := setHealthCheckSucceededCondition(w, in.Node, in.Now)
	setUpdatingCondition(w, in.Node)
	setDrainingCondition(w, in.Node)
	setStandbyCondition(w)
	setDeletingCondition(w, in.Infra.Exists, in.Node)
	setPausedCondition(w, false)
	if in.Node != nil {
		m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: in.Node.Name}
	}
	if w.err != nil {
		return next, w.err
	}

	aggregate.Summarize(m, in.Now)
	m.Status.ObservedGeneration = m.Generation
	return next, nil
}

// ComputePaused sets Paused=True at now and rewrites nothing else.
func ComputePaused(m *v1alpha1.Machine, now time.Time) error {
	w := &conditionWriter{m: m, now: now}
	setPausedCondition(w, true)
	return w.err
}

// IsPaused reports whether the paused annotation is present.
func IsPaused(m *v1alpha1.Machine) bool {
	_, ok := m.Annotations[v1alpha1.PausedAnnotation]
	return ok
}
