package controllers

import (
	"time"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// ownedConditionTypes are the condition types this controller always owns. It also owns
// BootstrapConfigReady when spec.bootstrap is set and Updating when spec.version is set.
var ownedConditionTypes = []string{
	v1alpha1.MachineReadyCondition,
	v1alpha1.MachineInfrastructureReadyCondition,
	v1alpha1.MachineNodeReadyCondition,
	v1alpha1.MachineNodeHealthyCondition,
	v1alpha1.MachineHealthCheckSucceededCondition,
	v1alpha1.MachineDrainingCondition,
	v1alpha1.MachineStandbyCondition,
	v1alpha1.MachineDeletingCondition,
	v1alpha1.MachinePausedCondition,
	v1alpha1.MachineStalledCondition,
}

// ownedTypes returns the set of condition types the controller owns on m.
func ownedTypes(m *v1alpha1.Machine) map[string]bool {
	owned := make(map[string]bool, len(ownedConditionTypes)+2)
	for _, t := range ownedConditionTypes {
		owned[t] = true
	}
	if m.Spec.Bootstrap != nil {
		owned[v1alpha1.MachineBootstrapConfigReadyCondition] = true
	}
	if m.Spec.Version != "" {
		owned[v1alpha1.MachineUpdatingCondition] = true
	}
	return owned
}

// computeStatus writes the whole status of m from in: nodeRef, providerID, every owned
// condition, then Ready, lastOperation and phase (package aggregate) and observedGeneration. It
// returns the next health-check deadline (zero when none) and the first condition that could not
// be set. Time enters only through in.Now, the reconcile's one instant: the health check's
// deadlines and every lastTransitionTime written read it, so computeStatus is a pure function of
// m and in.
func computeStatus(m *v1alpha1.Machine, in statusInputs) (time.Time, error) {
	opts := atInstant(in.Now)
	w := &conditionWriter{m: m, opts: opts}

	m.Status.ProviderID = machineProviderID(m, in.Infra)

	setInfrastructureReadyCondition(w, in.Infra)
	setBootstrapConfigReadyCondition(w, m.Spec.Bootstrap, in.Bootstrap)
	// NodeReady and the health check read the previous nodeRef to tell "deleted" from "never
	// registered", so nodeRef is updated after them.
	setNodeReadyCondition(w, in.Node)
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

// computePausedStatus sets Paused=True at now and rewrites nothing else.
func computePausedStatus(m *v1alpha1.Machine, now time.Time) error {
	w := &conditionWriter{m: m, opts: atInstant(now)}
	setPausedCondition(w, true)
	return w.err
}

// isPaused reports whether the paused annotation is present.
func isPaused(m *v1alpha1.Machine) bool {
	_, ok := m.Annotations[v1alpha1.PausedAnnotation]
	return ok
}

// atInstant returns the conditions.Set options that stamp every change with now.
func atInstant(now time.Time) []conditions.SetOption {
	return []conditions.SetOption{conditions.WithClock{Clock: instant(now)}}
}

// instant is a clock.PassiveClock that always reads the same time: a reconcile's.
type instant time.Time

// Now returns the instant.
func (i instant) Now() time.Time { return time.Time(i) }

// Since returns the time elapsed between t and the instant.
func (i instant) Since(t time.Time) time.Duration { return time.Time(i).Sub(t) }
