package aggregate

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
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
	descDeletedLead              = "Deletion completed"
	descDeleted                  = descDeletedLead + ": the Node and the infrastructure are gone"
	descDeletedNoNode            = descDeletedLead + ": the infrastructure is gone"
	descDeleteFailed             = "Deletion failed"
	descDrainFailed              = "Drain failed"
)

// LastOperation derives the most recent operation of m from its conditions, its
// deletionTimestamp and its previous status.lastOperation (the only memory). It returns a new
// value that never aliases m, or nil for a nil m. The first matching rule wins:
//
//  1. A deletionTimestamp is set: Delete, Successful when the Deleting reason is
//     DeletionCompleted; else Failed while a deletion failure is reported (see
//     deletionFailure: the infrastructure reports InfrastructureFailed while it still exists,
//     or the drainer reports DrainingFailed while the Node is drained); else Processing
//     (described from Deleting only when it is True: before the first delete pass the deletion
//     is requested, not started).
//  2. Creation has not finished (no previous operation, or a previous Create that is not
//     Successful): Create Successful once NodeReady is True, or, without a previous operation,
//     once the object shows that creation finished (the Node registered, and no
//     NodeStartupTimeout says otherwise; see createdWithoutHistory); else Create Failed on a terminal
//     signal (see Phase, row 3); else Create Processing, the description naming the step
//     waited on: bootstrap data (when spec.bootstrap is set), then infrastructure, then the
//     Node. A Create Successful does not end the search: it stands in for the previous value
//     and rules 3 to 6 are applied to it, so that a rule matching the same conditions (e.g.
//     Updating=True) wins on this call rather than on the next one.
//  3. A terminal signal is present: Update Failed when its reason is UpdateFailed, else
//     HealthCheck Failed. Of several signals, UpdateFailed wins, then the other terminal
//     reasons, then a False HealthCheckSucceeded (ties in catalog order); the winner gives
//     the description.
//  4. Draining has reason DrainingFailed: DrainNode Failed; else Updating is True: Update
//     Processing; else Draining is True: DrainNode Processing; else NodeReady is not True:
//     HealthCheck Processing, described from the NodeReady and HealthCheckSucceeded messages.
//  5. The previous operation is Processing or Failed and its condition has cleared: the same
//     type, Successful. Update clears when Updating is not True and no condition has reason
//     UpdateFailed; DrainNode when Draining is not True (nor DrainingFailed, rule 4);
//     HealthCheck when NodeReady is True and no terminal signal is present. (Create never
//     reaches this rule: rule 2 handles it. A Delete never clears, because a
//     deletionTimestamp cannot be removed; a previous Delete without one, e.g. in a
//     hand-written status, is kept by rule 6.)
//  6. Otherwise the previous value is kept.
//
// Failed is never sticky: it lasts exactly as long as the report that decided it.
//
// lastUpdated changes exactly when (type, state) changes, and is then the instant of that
// change, truncated to seconds. The candidate is the lastTransitionTime of the condition whose
// status decided the result:
//   - Delete Processing: Deleting when True (else the deletionTimestamp);
//   - Create Processing: none, the Create began with the object (metadata.creationTimestamp);
//   - Create Successful: NodeReady;
//   - Update Processing and Successful: Updating;
//   - DrainNode Processing and Successful: Draining;
//   - HealthCheck Processing: NodeReady;
//   - HealthCheck Successful: the later of NodeReady and HealthCheckSucceeded;
//   - HealthCheck Failed and Create Failed on a False HealthCheckSucceeded: that condition;
//
// a condition missing or without lastTransitionTime gives metadata.creationTimestamp (the
// deletionTimestamp during deletion). A lastTransitionTime moves only when a status changes, so
// it cannot date a change decided by a reason (Delete Successful on DeletionCompleted, every
// Failed decided by a failure reason, e.g. Updating=True whose reason becomes UpdateFailed),
// nor one whose condition had already changed before the previous lastOperation was recorded
// (the candidate is not after the previous lastUpdated, e.g. Delete Failed going back to
// Processing). Those changes are dated now, when they are observed (a controller passes its
// reconcile's instant); a zero now keeps the candidate: the wall clock is never read. Whatever
// dated it, a changed lastUpdated is after the previous one (one second after it when the instant
// found is not, e.g. a clock behind the previous writer's, or two changes in the same second), so
// lastUpdated moves on every change and never goes back. now is read only on a change, so an
// unchanged Machine gives an unchanged lastOperation.
//
// The description is at most 1024 bytes, cut at a UTF-8 boundary.
//
// LastOperation is a fixed point: for a Machine whose status.lastOperation already equals the
// result, it returns an equal value.
func LastOperation(m *v1alpha1.Machine, now time.Time) *v1alpha1.LastOperation {
	if m == nil {
		return nil
	}
	op := lastOperation(m, now).DeepCopy()
	op.Description = conditions.TruncateTo(op.Description, maxDescriptionBytes)
	return op
}

// lastOperation applies LastOperation's rules to a non-nil m. The result may be m's own
// status.lastOperation: callers must not modify it.
func lastOperation(m *v1alpha1.Machine, now time.Time) *v1alpha1.LastOperation {
	d := deriver{prev: m.Status.LastOperation, stored: m.Status.LastOperation, now: now, created: m.CreationTimestamp}
	get := func(t string) *metav1.Condition { return meta.FindStatusCondition(m.Status.Conditions, t) }
	signal := terminalSignal(m)

	// Rule 1: deletion.
	if m.DeletionTimestamp != nil {
		deleting := get(v1alpha1.MachineDeletingCondition)
		d.created = *m.DeletionTimestamp
		if hasReason(deleting, v1alpha1.MachineDeletingDeletionCompletedReason) {
			desc := descDeleted
			if m.Status.NodeRef == nil {
				desc = descDeletedNoNode // it never had a Node
			}
			return d.nextByReason(v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateSuccessful, desc)
		}
		if !isTrue(deleting) {
			// Requested, not started: a Deleting condition that is not True (Cluster API's
			// False/NotDeleting before its first delete pass) says nothing about the deletion,
			// and its lastTransitionTime is older than the request.
			deleting = nil
		}
		if failure := deletionFailure(m, deleting); failure != nil {
			return d.nextByReason(v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateFailed, descDeleteFailed+": "+describe(failure))
		}
		return d.next(v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateProcessing, withDetail(descDeleting, deleting), deleting)
	}

	// Rule 2: creation.
	if d.prev == nil || (d.prev.Type == v1alpha1.MachineOperationCreate && d.prev.State != v1alpha1.MachineOperationStateSuccessful) {
		nodeReady := get(v1alpha1.MachineNodeReadyCondition)
		switch {
		case isTrue(nodeReady), d.prev == nil && createdWithoutHistory(m, signal):
			// Created: continue with rules 3 to 6 as if this were the previous value.
			d.prev = d.next(v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful, descCreated, nodeReady)
		case signal != nil:
			return d.failed(v1alpha1.MachineOperationCreate, descCreationFailed+": "+describeSignal(&signal.condition), signal)
		default:
			return d.next(v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing, createStep(m), nil)
		}
	}

	// Rule 3: terminal signal.
	if signal != nil {
		if signal.update {
			return d.nextByReason(v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateFailed, descUpdateFailed+": "+describe(&signal.condition))
		}
		desc := descTerminalFailure + ": " + describe(&signal.condition)
		if signal.condition.Type == v1alpha1.MachineHealthCheckSucceededCondition {
			desc = describeSignal(&signal.condition)
		}
		return d.failed(v1alpha1.MachineOperationHealthCheck, desc, signal)
	}

	// Rule 4: a drain that failed, or an operation in progress.
	updating := get(v1alpha1.MachineUpdatingCondition)
	draining := get(v1alpha1.MachineDrainingCondition)
	nodeReady := get(v1alpha1.MachineNodeReadyCondition)
	healthCheck := get(v1alpha1.MachineHealthCheckSucceededCondition)
	switch {
	case hasReason(draining, v1alpha1.MachineDrainingFailedReason):
		return d.nextByReason(v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateFailed, withDetail(descDrainFailed, draining))
	case isTrue(updating):
		return d.next(v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateProcessing, withDetail(descUpdating, updating), updating)
	case isTrue(draining):
		return d.next(v1alpha1.MachineOperationDrainNode, v1alpha1.MachineOperationStateProcessing, withDetail(descDraining, draining), draining)
	case !isTrue(nodeReady):
		desc := descNodeNotReady + ": " + detailOrMissing(nodeReady)
		if healthCheck != nil && (healthCheck.Status != metav1.ConditionTrue || healthCheck.Message != "") {
			// A health check that has not failed and says nothing more is not news.
			desc += "; " + descHealthCheck + ": " + detail(healthCheck)
		}
		return d.next(v1alpha1.MachineOperationHealthCheck, v1alpha1.MachineOperationStateProcessing, desc, nodeReady)
	}

	// Rule 5: the previous operation's condition has cleared. Rules 3 and 4 did not match, so
	// no terminal signal is present, Updating and Draining are not True and NodeReady is True.
	if prev := d.prev; prev.State != v1alpha1.MachineOperationStateSuccessful {
		switch prev.Type {
		case v1alpha1.MachineOperationUpdate:
			return d.next(prev.Type, v1alpha1.MachineOperationStateSuccessful, descUpdated, updating)
		case v1alpha1.MachineOperationDrainNode:
			return d.next(prev.Type, v1alpha1.MachineOperationStateSuccessful, descDrained, draining)
		case v1alpha1.MachineOperationHealthCheck:
			return d.next(prev.Type, v1alpha1.MachineOperationStateSuccessful, descHealthy, latest(nodeReady, healthCheck))
		}
	}

	// Rule 6: nothing new. A previous value read from an annotation has no description (it is
	// not kept): the one its result gives.
	if d.prev.Description == "" {
		kept := *d.prev
		kept.Description = map[v1alpha1.MachineOperationType]string{
			v1alpha1.MachineOperationCreate: descCreated, v1alpha1.MachineOperationUpdate: descUpdated,
			v1alpha1.MachineOperationDrainNode: descDrained, v1alpha1.MachineOperationHealthCheck: descHealthy,
		}[kept.Type]
		if kept.State != v1alpha1.MachineOperationStateSuccessful {
			kept.Description = ""
		}
		return &kept
	}
	return d.prev
}

// createdWithoutHistory reports whether m, which has no previous lastOperation (a reader
// without the history, or a controller's first reconcile of a Machine created before it ran),
// shows that its creation finished although its Node is not Ready now: its Node registered
// (status.nodeRef is set; it stays set after the Node goes away), and no NodeStartupTimeout
// signal says that creation failed. This is the one rule for reading creation without history
// (docs/rules.md, "Without history").
//
// A kubelet registers its Node with its nodeInfo and conditions, so a registered Node is a
// running kubelet, whatever it reports now; a Node NotReady for an hour reads as a health check
// (HealthCheck Processing, then HealthCheck Failed), never as a creation (Create Processing, then
// Create Failed). The object cannot tell a Node that was never Ready yet (booting) from one that
// was Ready before: such a Node, read without history, reads as a health check too until it is
// Ready.
func createdWithoutHistory(m *v1alpha1.Machine, signal *terminal) bool {
	if m.Status.NodeRef == nil || m.Status.NodeRef.Name == "" {
		return false
	}
	return signal == nil || signal.condition.Reason != v1alpha1.MachineHealthCheckNodeStartupTimeoutReason
}

// deriver builds the operations of one lastOperation call.
type deriver struct {
	// prev is the previous operation the rules compare with: the stored one, or the Create
	// Successful of rule 2 standing in for it. Read only.
	prev *v1alpha1.LastOperation
	// stored is m's status.lastOperation (nil when none): the last recorded change. Read only.
	stored *v1alpha1.LastOperation
	// now dates a change no lastTransitionTime dates; zero: none.
	now time.Time
	// created is the candidate time when the deciding condition is missing or undated:
	// metadata.creationTimestamp, or the deletionTimestamp during deletion.
	created metav1.Time
}

// next returns an operation of the given type, state and description whose change the status
// of decidedBy (nil: none) decided; see at for its lastUpdated.
func (d *deriver) next(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState,
	description string, decidedBy *metav1.Condition) *v1alpha1.LastOperation {
	return d.at(t, s, description, decidedBy, false)
}

// nextByReason returns an operation of the given type, state and description whose change a
// condition's reason decided (no lastTransitionTime dates it); see at for its lastUpdated.
func (d *deriver) nextByReason(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState,
	description string) *v1alpha1.LastOperation {
	return d.at(t, s, description, nil, true)
}

// failed returns the Failed operation of type t that the terminal signal sig decided: by the
// status of HealthCheckSucceeded when its False is the signal, else by a terminal reason.
func (d *deriver) failed(t v1alpha1.MachineOperationType, description string, sig *terminal) *v1alpha1.LastOperation {
	if !sig.update && sig.condition.Type == v1alpha1.MachineHealthCheckSucceededCondition && !v1alpha1.IsTerminalReason(sig.condition.Reason) {
		return d.next(t, v1alpha1.MachineOperationStateFailed, description, &sig.condition)
	}
	return d.nextByReason(t, v1alpha1.MachineOperationStateFailed, description)
}

// at returns an operation of the given type, state and description. Its lastUpdated is prev's
// when prev has the same type and state. Otherwise it is the instant of the change, in seconds:
//   - the candidate (decidedBy's lastTransitionTime, else d.created) when a status decided the
//     change and the candidate is after the stored lastUpdated;
//   - else d.now, or the candidate when now is zero;
//   - and never at or before the stored lastUpdated: a result that is becomes one second after
//     it, so lastUpdated moves on every change and never goes back.
func (d *deriver) at(t v1alpha1.MachineOperationType, s v1alpha1.MachineOperationState,
	description string, decidedBy *metav1.Condition, byReason bool) *v1alpha1.LastOperation {
	if d.prev != nil && d.prev.Type == t && d.prev.State == s {
		return &v1alpha1.LastOperation{Type: t, State: s, Description: description, LastUpdated: d.prev.LastUpdated}
	}
	candidate := d.created
	if decidedBy != nil && !decidedBy.LastTransitionTime.IsZero() {
		candidate = decidedBy.LastTransitionTime
	}
	op := &v1alpha1.LastOperation{Type: t, State: s, Description: description, LastUpdated: conditions.StoredTime(candidate.Time)}
	observed := op.LastUpdated
	if !d.now.IsZero() {
		observed = conditions.StoredTime(d.now)
	}
	if d.stored == nil {
		if byReason {
			op.LastUpdated = observed
		}
		return op
	}
	last := d.stored.LastUpdated.Time
	if byReason || !op.LastUpdated.After(last) {
		op.LastUpdated = observed
	}
	if !op.LastUpdated.After(last) {
		op.LastUpdated = conditions.StoredTime(last.Add(time.Second))
	}
	return op
}

// deletionFailure returns the condition that reports why the deletion of m is failing, or nil:
// the drainer's DrainingFailed on Draining while the Node is being drained (Deleting reason
// DrainingNode), else InfrastructureReady with reason InfrastructureFailed while the
// infrastructure still exists (Deleting reason DrainingNode or
// WaitingForInfrastructureDeletion). Deleting not reported yet (nil: missing or not True)
// counts as DrainingNode. A
// failure of something deletion does not wait for (bootstrap, update, health check) does not
// fail it.
func deletionFailure(m *v1alpha1.Machine, deleting *metav1.Condition) *metav1.Condition {
	step := v1alpha1.MachineDeletingDrainingNodeReason
	if deleting != nil {
		step = deleting.Reason
	}
	drainingNode := step == v1alpha1.MachineDeletingDrainingNodeReason
	if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineDrainingCondition); drainingNode && hasReason(c, v1alpha1.MachineDrainingFailedReason) {
		return c
	}
	infraExists := drainingNode || step == v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason
	if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineInfrastructureReadyCondition); infraExists && hasReason(c, v1alpha1.MachineInfrastructureFailedReason) {
		return c
	}
	return nil
}

// createStep describes the step a Create in progress waits on.
func createStep(m *v1alpha1.Machine) string {
	bootstrap := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineBootstrapConfigReadyCondition)
	if m.Spec.Bootstrap != nil && !isTrue(bootstrap) {
		return withDetail(descWaitingForBootstrap, bootstrap)
	}
	if infra := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineInfrastructureReadyCondition); !isTrue(infra) {
		return withDetail(descWaitingForInfrastructure, infra)
	}
	return withDetail(descWaitingForNode, meta.FindStatusCondition(m.Status.Conditions, v1alpha1.MachineNodeReadyCondition))
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

// detail is a bounded, single-line account of c: its message (conditions.CollapseSpace, then
// conditions.Sanitize: another writer's text), else its reason.
func detail(c *metav1.Condition) string {
	text := conditions.Sanitize(conditions.CollapseSpace(c.Message))
	if text == "" {
		text = c.Reason
	}
	return conditions.TruncateTo(text, maxDetailBytes)
}

// detailOrMissing is detail(c), or "not yet reported" when c is nil.
func detailOrMissing(c *metav1.Condition) string {
	if c == nil {
		return "not yet reported"
	}
	return detail(c)
}

// describeSignal is what a description says of a terminal signal: a failed health check as
// "Health check failed (<reason>): <its message, without a leading "Health check failed">", any
// other as describe says.
func describeSignal(c *metav1.Condition) string {
	if c.Type != v1alpha1.MachineHealthCheckSucceededCondition {
		return describe(c)
	}
	s := descHealthCheckFailed + " (" + c.Reason + ")"
	d := detail(c)
	if len(d) >= len(descHealthCheckFailed) && strings.EqualFold(d[:len(descHealthCheckFailed)], descHealthCheckFailed) {
		d = strings.TrimLeft(d[len(descHealthCheckFailed):], " :")
	}
	if c.Message == "" || d == "" {
		return s
	}
	return s + ": " + d
}

// describe is detail(c) prefixed with the condition's type, status and reason.
func describe(c *metav1.Condition) string {
	s := fmt.Sprintf("%s is %s (%s)", c.Type, c.Status, c.Reason)
	if c.Message == "" {
		return s
	}
	return s + ": " + detail(c)
}

// latest returns whichever of a and b (either may be nil) changed last; a on a tie.
func latest(a, b *metav1.Condition) *metav1.Condition {
	if a == nil || (b != nil && b.LastTransitionTime.After(a.LastTransitionTime.Time)) {
		return b
	}
	return a
}
