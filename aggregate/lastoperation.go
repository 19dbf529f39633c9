package aggregate

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

const (
	// maxDescriptionBytes is the CRD's MaxLength of lastOperation.description (the CRD counts
	// characters, so a bound in bytes is always within it).
	maxDescriptionBytes = 1024

	// maxDetailBytes bounds the part of a condition's message quoted in a description.
	maxDetailBytes = 512
)

// Descriptions of lastOperation. Some are followed by ": " and details taken from the deciding
// condition (its message, else its reason).
const (
	descWaitingForBootstrap      = "Waiting for bootstrap data"
	descWaitingForInfrastructure = "Waiting for infrastructure to be provisioned"
	descWaitingForNode           = "Waiting for the Node to become Ready"
	descCreated                  = "Created: the Node is Ready"
	descCreationFailed           = "Creation failed"
	descUpdating                 = "Update in progress"
	descUpdated                  = "Update completed"
	descUpdateFailed             = "Update failed"
	descDraining                 = "Node is cordoned or being drained"
	descDrained                  = "Node is schedulable again"
	descNodeNotReady             = "Node is not Ready"
	descHealthCheck              = "health check"
	descHealthCheckFailed        = "Health check failed"
	descTerminalFailure          = "Terminal failure"
	descHealthy                  = "Node is Ready and healthy again"
	descDeleting                 = "Deletion in progress"
	descDeleted                  = "Deletion completed: the Node and the infrastructure are gone"
)

// LastOperation derives the most recent operation of m from its conditions, its
// deletionTimestamp and its previous status.lastOperation (the only memory). It returns a new
// value that never aliases m, or nil for a nil m. The first matching rule wins:
//
//  1. A deletionTimestamp is set: Delete, Successful when the Deleting reason is
//     DeletionCompleted, else Processing (described from Deleting only when it is True: before
//     the first delete pass the deletion is requested, not started).
//  2. Creation has not finished (no previous operation, or a previous Create that is not
//     Successful): Create Successful once NodeReady is True, or, without a previous operation,
//     once the object shows that creation finished (the Node registered and was deleted since,
//     or failed a health check; see createdWithoutHistory); else Create Failed on a terminal
//     signal (see Phase, row 3); else Create Processing, the description naming the step
//     waited on: bootstrap data (when spec.bootstrap is set), then infrastructure, then the
//     Node. A Create Successful does not end the search: it stands in for the previous value
//     and rules 3 to 6 are applied to it, so that a rule matching the same conditions (e.g.
//     Updating=True) wins on this call rather than on the next one.
//  3. A terminal signal is present: Update Failed when its reason is UpdateFailed, else
//     HealthCheck Failed. Of several signals, UpdateFailed wins, then the other terminal
//     reasons, then a False HealthCheckSucceeded (ties in catalog order); the winner gives
//     the description and lastUpdated.
//  4. Updating is True: Update Processing; else Draining is True: DrainNode Processing; else
//     NodeReady is not True: HealthCheck Processing, described from the NodeReady and
//     HealthCheckSucceeded messages.
//  5. The previous operation is Processing or Failed and its condition has cleared: the same
//     type, Successful. Update clears when Updating is not True and no condition has reason
//     UpdateFailed; DrainNode when Draining is not True; HealthCheck when NodeReady is True and
//     no terminal signal is present. (Create never reaches this rule: rule 2 handles it. A
//     Delete never clears, because a deletionTimestamp cannot be removed; a previous Delete
//     without one, e.g. in a hand-written status, is kept by rule 6.)
//  6. Otherwise the previous value is kept unchanged.
//
// lastUpdated changes only when (type, state) changes. It is then the lastTransitionTime,
// truncated to seconds, of the condition that decided the result:
//   - Delete: Deleting when True (else the deletionTimestamp);
//   - Create Processing: none, the Create began with the object (metadata.creationTimestamp);
//   - Create Successful: NodeReady;
//   - Update Processing and Successful: Updating;
//   - DrainNode Processing and Successful: Draining;
//   - HealthCheck Processing: NodeReady;
//   - HealthCheck Successful: the later of NodeReady and HealthCheckSucceeded;
//   - Failed (any type): the condition carrying the terminal signal.
//
// When that condition is missing (or has no lastTransitionTime) it is
// metadata.creationTimestamp. The wall clock is never read.
//
// The description is at most 1024 bytes, cut at a UTF-8 boundary.
//
// LastOperation is a fixed point: for a Machine whose status.lastOperation already equals the
// result, it returns an equal value.
func LastOperation(m *v1alpha1.Machine) *v1alpha1.LastOperation {
	if m == nil {
		return nil
	}
	return lastOperationWith(m, terminalSignal(m)).DeepCopy()
}

// lastOperationWith is LastOperation for a non-nil m whose terminal signal is known, so that
// Summarize finds it once for LastOperation and Phase. When nothing is new it returns
// m.Status.LastOperation itself, so that a steady Machine costs no allocation: callers must not
// modify the result.
func lastOperationWith(m *v1alpha1.Machine, signal *terminal) *v1alpha1.LastOperation {
	op := lastOperation(m, signal)
	if d := conditions.TruncateTo(op.Description, maxDescriptionBytes); d != op.Description {
		op = op.DeepCopy()
		op.Description = d
	}
	return op
}

func lastOperation(m *v1alpha1.Machine, signal *terminal) *v1alpha1.LastOperation {
	// Read in place, never modified: next builds a new value.
	prev := m.Status.LastOperation
	// Conditions are read in place (findCondition), never modified.
	get := func(t string) *metav1.Condition { return findCondition(m.Status.Conditions, t) }

	// Rule 1: deletion.
	if m.DeletionTimestamp != nil {
		deleting := get(v1alpha1.MachineDeletingCondition)
		if deleting != nil && deleting.Reason == v1alpha1.MachineDeletingDeletionCompletedReason {
			return next(prev, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateSuccessful, descDeleted, deleting, *m.DeletionTimestamp)
		}
		if !isTrue(deleting) {
			// Requested, not started: a Deleting condition that is not True (Cluster API's
			// False/NotDeleting before its first delete pass) says nothing about the deletion,
			// and its lastTransitionTime is older than the request.
			deleting = nil
		}
		return next(prev, v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateProcessing, withDetail(descDeleting, deleting), deleting, *m.DeletionTimestamp)
	}

	// Rule 2: creation.
	if prev == nil || (prev.Type == v1alpha1.MachineOperationCreate && prev.State != v1alpha1.MachineOperationStateSuccessful) {
		nodeReady := get(v1alpha1.MachineNodeReadyCondition)
		switch t := signal; {
		case nodeReady != nil && nodeReady.Status == metav1.ConditionTrue,
			prev == nil && createdWithoutHistory(m, signal):
			// Created: continue with rules 3 to 6 as if this were the previous value.
			prev = next(prev, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful, descCreated, nodeReady, m.CreationTimestamp)
		case t != nil:
			return next(prev, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateFailed, descCreationFailed+": "+describe(&t.condition), &t.condition, m.CreationTimestamp)
		default:
			return next(prev, v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing, createStep(m), nil, m.CreationTimestamp)
		}
	}

	// Rule 3: terminal signal.
	if t := signal; t != nil {
		if t.update {
			return next(prev, v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateFailed, descUpdateFailed+": "+describe(&t.condition), &t.condition, m.CreationTimestamp)
		}
		desc := descTerminalFailure + ": " + describe(&t.condition)
		if t.condition.Type == v1alpha1.MachineHealthCheckSucceededCondition {
			desc = withDetail(descHealthCheckFailed, &t.condition)
		}
		return next(prev, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateFailed, desc, &t.condition, m.CreationTimestamp)
	}

	// Rule 4: an operation in progress.
	updating := get(v1alpha1.MachineUpdatingCondition)
	draining := get(v1alpha1.MachineDrainingCondition)
	nodeReady := get(v1alpha1.MachineNodeReadyCondition)
	healthCheck := get(v1alpha1.MachineHealthCheckSucceededCondition)
	switch {
	case isTrue(updating):
		return next(prev, v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateProcessing, withDetail(descUpdating, updating), updating, m.CreationTimestamp)
	case isTrue(draining):
		return next(prev, v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateProcessing, withDetail(descDraining, draining), draining, m.CreationTimestamp)
	case !isTrue(nodeReady):
		desc := descNodeNotReady + ": " + detailOrMissing(nodeReady)
		if healthCheck != nil {
			desc += "; " + descHealthCheck + ": " + detail(healthCheck)
		}
		return next(prev, v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateProcessing, desc, nodeReady, m.CreationTimestamp)
	}

	// Rule 5: the previous operation's condition has cleared. Rules 3 and 4 did not match, so
	// no terminal signal is present, Updating and Draining are not True and NodeReady is True;
	// the checks below state each type's own condition anyway.
	if prev.State != v1alpha1.MachineOperationStateSuccessful {
		switch prev.Type {
		case v1alpha1.MachineOperationUpdate:
			if !isTrue(updating) && !hasReason(m, v1alpha1.MachineUpdateFailedReason) {
				return next(prev, prev.Type, v1alpha1.MachineOperationStateSuccessful, descUpdated, updating, m.CreationTimestamp)
			}
		case v1alpha1.MachineOperationDrainNode:
			if !isTrue(draining) {
				return next(prev, prev.Type, v1alpha1.MachineOperationStateSuccessful, descDrained, draining, m.CreationTimestamp)
			}
		case v1alpha1.MachineOperationHealthCheck:
			if isTrue(nodeReady) && signal == nil {
				return next(prev, prev.Type, v1alpha1.MachineOperationStateSuccessful, descHealthy, later(nodeReady, healthCheck), m.CreationTimestamp)
			}
		}
	}

	// Rule 6: nothing new.
	return prev
}

// createdWithoutHistory reports whether m, which has no previous lastOperation (a reader
// without the history, or a controller's first reconcile of a Machine created before it ran),
// shows that its creation finished although its Node is not Ready now. The Node must have
// registered (status.nodeRef is set; it stays set after the Node goes away), and then either:
//   - the Node was deleted (NodeReady reason NodeDeleted), or
//   - a terminal signal other than NodeStartupTimeout is present (e.g. a MachineHealthCheck's
//     UnhealthyNode: the health check of a registered Node failed, so a HealthCheck failed,
//     not the creation).
//
// A registered Node that is merely not Ready, with no such signal, may still be booting: the
// object cannot tell, so creation is taken as still in progress (Create Processing).
func createdWithoutHistory(m *v1alpha1.Machine, signal *terminal) bool {
	if m.Status.NodeRef == nil || m.Status.NodeRef.Name == "" {
		return false
	}
	if nodeReady := findCondition(m.Status.Conditions, v1alpha1.MachineNodeReadyCondition); nodeReady != nil &&
		nodeReady.Reason == v1alpha1.MachineNodeDeletedReason {
		return true
	}
	return signal != nil && signal.condition.Reason != v1alpha1.MachineHealthCheckNodeStartupTimeoutReason
}

// next returns an operation of the given type, state and description. Its lastUpdated is
// prev's when prev has the same type and state, else the lastTransitionTime of decidedBy, or
// fallback when decidedBy is nil or has no lastTransitionTime.
func next(prev *v1alpha1.LastOperation, t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState,
	description string, decidedBy *metav1.Condition, fallback metav1.Time) *v1alpha1.LastOperation {
	op := &v1alpha1.LastOperation{Type: t, State: s, Description: description}
	switch {
	case prev != nil && prev.Type == t && prev.State == s:
		op.LastUpdated = prev.LastUpdated
	case decidedBy != nil && !decidedBy.LastTransitionTime.IsZero():
		op.LastUpdated = conditions.StoredTime(decidedBy.LastTransitionTime.Time)
	default:
		op.LastUpdated = conditions.StoredTime(fallback.Time)
	}
	return op
}

// createStep describes the step a Create in progress waits on.
func createStep(m *v1alpha1.Machine) string {
	bootstrap := findCondition(m.Status.Conditions, v1alpha1.MachineBootstrapConfigReadyCondition)
	if m.Spec.Bootstrap != nil && !isTrue(bootstrap) {
		return withDetail(descWaitingForBootstrap, bootstrap)
	}
	if infra := findCondition(m.Status.Conditions, v1alpha1.MachineInfrastructureReadyCondition); !isTrue(infra) {
		return withDetail(descWaitingForInfrastructure, infra)
	}
	return withDetail(descWaitingForNode, findCondition(m.Status.Conditions, v1alpha1.MachineNodeReadyCondition))
}

// withDetail appends ": " and the detail of c to s, or returns s when c is nil.
//
// A detail that already starts with s (as Cluster API's MachineHealthCheck messages start with
// "Health check failed") is returned alone, so the phrase is not repeated.
func withDetail(s string, c *metav1.Condition) string {
	if c == nil {
		return s
	}
	d := detail(c)
	if len(d) >= len(s) && strings.EqualFold(d[:len(s)], s) {
		return d
	}
	return s + ": " + d
}

// detail is a bounded, single-line account of c: its message, else its reason.
func detail(c *metav1.Condition) string {
	text := strings.Join(strings.Fields(c.Message), " ")
	if text == "" {
		text = c.Reason
	}
	return conditions.TruncateTo(text, maxDetailBytes)
}

// detailOrMissing is detail(c), or "not yet reported" when c is nil.
func detailOrMissing(c *metav1.Condition) string {
	if c == nil {
		return notYetReportedText
	}
	return detail(c)
}

// describe is detail(c) prefixed with the condition's type, status and reason.
func describe(c *metav1.Condition) string {
	s := fmt.Sprintf("%s is %s (%s)", c.Type, c.Status, c.Reason)
	if c.Message == "" {
		return s
	}
	return s + ": " + detail(c)
}

func isTrue(c *metav1.Condition) bool {
	return c != nil && c.Status == metav1.ConditionTrue
}

// hasReason reports whether any condition of m has the given reason.
func hasReason(m *v1alpha1.Machine, reason string) bool {
	for _, c := range m.Status.Conditions {
		if c.Reason == reason {
			return true
		}
	}
	return false
}

// later returns whichever of a and b (either may be nil) changed last; a on a tie.
func later(a, b *metav1.Condition) *metav1.Condition {
	if a == nil || (b != nil && b.LastTransitionTime.After(a.LastTransitionTime.Time)) {
		return b
	}
	return a
}
