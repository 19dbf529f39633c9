package status

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// maxForeignMessage bounds a message copied from another object into one of our conditions.
const maxForeignMessage = 1024

// Ref is what the controller learned about a referenced infrastructure or bootstrap object.
type Ref struct {
	// Kind and Name describe the object for messages, e.g. "SimMachine m1".
	Kind, Name string
	// Exists is true when the object was found.
	Exists bool
	// Unreadable, when not empty, says why the object could not be read or understood;
	// Problem says which kind of problem it is.
	Unreadable string
	// Problem picks the condition's reason when Unreadable is set.
	Problem Problem
	// RetryAfter, when positive, is how soon to read the object again, sooner than the kind
	// retry interval (discovery does not list the version its CRD picks yet).
	RetryAfter time.Duration
	// Contract is what the object reports (valid when Exists and Unreadable is empty).
	Contract Contract
}

func (r Ref) String() string { return r.Kind + " " + r.Name }

// Problem says why a referenced object cannot be used; it picks the condition's reason.
type Problem int

const (
	// ProblemUnreadable means the object cannot be read (e.g. its cache did not sync in time).
	ProblemUnreadable Problem = iota
	// ProblemKindNotServed means the API server serves no such kind (e.g. its CRD is not installed).
	ProblemKindNotServed
	// ProblemContractViolation means the object was read, but a contract field has the wrong type.
	ProblemContractViolation
	// ProblemForbidden means RBAC does not let the manager list and watch the kind.
	ProblemForbidden
)

// Reasons of InfrastructureReady and BootstrapConfigReady for each Problem.
var (
	infraProblemReasons = map[Problem]string{
		ProblemUnreadable:        v1alpha1.MachineInfrastructureUnreadableReason,
		ProblemKindNotServed:     v1alpha1.MachineInfrastructureKindNotServedReason,
		ProblemContractViolation: v1alpha1.MachineInfrastructureContractViolationReason,
		ProblemForbidden:         v1alpha1.MachineInfrastructureForbiddenReason,
	}
	bootstrapProblemReasons = map[Problem]string{
		ProblemUnreadable:        v1alpha1.MachineBootstrapConfigUnreadableReason,
		ProblemKindNotServed:     v1alpha1.MachineBootstrapConfigKindNotServedReason,
		ProblemContractViolation: v1alpha1.MachineBootstrapConfigContractViolationReason,
		ProblemForbidden:         v1alpha1.MachineBootstrapConfigForbiddenReason,
	}
)

// Inputs are everything the status computation reads besides the Machine itself.
type Inputs struct {
	// Now is the reconcile's instant: it dates every change and drives the health check.
	Now time.Time
	// Infra is the infrastructure object.
	Infra Ref
	// Bootstrap is the bootstrap config object, nil when the Machine has no configRef.
	Bootstrap *Ref
	// Node is the Machine's Node (MachineNode's choice), nil when none was found.
	Node *corev1.Node
	// SharedWith names the other Nodes that carry the Machine's providerID (MachineNode).
	SharedWith []string
}

// conditionWriter sets conditions on one Machine at one instant and keeps the first error.
type conditionWriter struct {
	m   *v1alpha1.Machine
	now time.Time
	err error
}

func (w *conditionWriter) set(t string, s metav1.ConditionStatus, reason, msg string) {
	c := metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(w.now)}
	if _, err := conditions.Set(w.m, c); err != nil && w.err == nil {
		w.err = fmt.Errorf("cannot set condition %s: %w", t, err)
	}
}

// setInfrastructureReadyCondition follows the Cluster API infrastructure contract. An object
// missing after InfrastructureReady was True (wasProvisioned) was deleted: a terminal failure
// (phase Failed) unless the Machine is being deleted, where it is the deletion's progress.
func setInfrastructureReadyCondition(w *conditionWriter, infra Ref) {
	const t = v1alpha1.MachineInfrastructureReadyCondition
	switch {
	case infra.Unreadable != "":
		w.set(t, metav1.ConditionUnknown, infraProblemReasons[infra.Problem], bound(infra.Unreadable))
	case !infra.Exists && wasProvisioned(w.m):
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineInfrastructureDeletedReason, infra.String()+" was deleted after it was provisioned")
	case !infra.Exists:
		w.set(t, metav1.ConditionUnknown, v1alpha1.MachineInfrastructureDoesNotExistReason, infra.String()+" does not exist")
	case infra.Contract.FailureReason != "" || infra.Contract.FailureMessage != "":
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineInfrastructureFailedReason, failureMessage(infra))
	case infra.Contract.Ready && ProviderID(w.m, infra) == "":
		// Cluster API records the infrastructure provisioned only with its providerID.
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineInfrastructureNotProvisionedReason, infra.String()+" reports provisioned but has no spec.providerID yet")
	case infra.Contract.Ready:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineInfrastructureProvisionedReason, "")
	default:
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineInfrastructureNotProvisionedReason, notReadyMessage(infra, "is not provisioned yet"))
	}
}

// wasProvisioned reports whether m's stored InfrastructureReady says the infrastructure was
// provisioned: True, or already InfrastructureDeleted.
func wasProvisioned(m *v1alpha1.Machine) bool {
	c := conditions.Get(m, v1alpha1.MachineInfrastructureReadyCondition)
	return c != nil && (c.Status == metav1.ConditionTrue || c.Reason == v1alpha1.MachineInfrastructureDeletedReason)
}

// setBootstrapConfigReadyCondition follows the Cluster API bootstrap contract; without a
// bootstrap the condition is removed (it is not part of Ready then).
func setBootstrapConfigReadyCondition(w *conditionWriter, spec *v1alpha1.Bootstrap, cfg *Ref) {
	const t = v1alpha1.MachineBootstrapConfigReadyCondition
	switch {
	case spec == nil:
		conditions.Delete(w.m, t)
	case spec.DataSecretName != "":
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineBootstrapDataSecretProvidedReason, "")
	case cfg == nil:
		conditions.Delete(w.m, t)
	case cfg.Unreadable != "":
		w.set(t, metav1.ConditionUnknown, bootstrapProblemReasons[cfg.Problem], bound(cfg.Unreadable))
	case !cfg.Exists:
		w.set(t, metav1.ConditionUnknown, v1alpha1.MachineBootstrapConfigDoesNotExistReason, cfg.String()+" does not exist")
	case cfg.Contract.FailureReason != "" || cfg.Contract.FailureMessage != "":
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineBootstrapFailedReason, failureMessage(*cfg))
	case cfg.Contract.Ready:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineBootstrapDataSecretCreatedReason, "")
	default:
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineBootstrapConfigNotReadyReason, notReadyMessage(*cfg, "has no bootstrap data yet"))
	}
}

// setNodeReadyCondition mirrors the Node's Ready condition; without a Node it says whether the
// Node never registered or was deleted (status.nodeRef is kept after deletion).
func setNodeReadyCondition(w *conditionWriter, node *corev1.Node, shared []string) {
	const t = v1alpha1.MachineNodeReadyCondition
	if node == nil {
		if w.m.Status.NodeRef != nil {
			w.set(t, metav1.ConditionUnknown, v1alpha1.MachineNodeDeletedReason, "Node "+w.m.Status.NodeRef.Name+" was deleted")
			return
		}
		w.set(t, metav1.ConditionUnknown, v1alpha1.MachineNodeDoesNotExistReason, "no Node has registered yet")
		return
	}
	ready := nodeCondition(node, corev1.NodeReady)
	var status metav1.ConditionStatus
	var reason, msg string
	switch {
	case ready == nil:
		status, reason, msg = metav1.ConditionUnknown, v1alpha1.MachineNodeReadyUnknownReason, "Node "+node.Name+" has not reported Ready yet"
	case ready.Status == corev1.ConditionTrue:
		status, reason, msg = metav1.ConditionTrue, v1alpha1.MachineNodeReadyReason, bound(ready.Message)
	case ready.Status == corev1.ConditionFalse:
		status, reason, msg = metav1.ConditionFalse, v1alpha1.MachineNodeNotReadyReason, nodeMessage(node, ready)
	default:
		status, reason, msg = metav1.ConditionUnknown, v1alpha1.MachineNodeReadyUnknownReason, nodeMessage(node, ready)
	}
	if len(shared) > 0 {
		note := fmt.Sprintf("Node %s is the Machine's of the %d Nodes with its providerID; the others: %s", node.Name, len(shared)+1, strings.Join(shared, ", "))
		msg = strings.TrimPrefix(msg+"; "+note, "; ")
	}
	w.set(t, status, reason, msg)
}

// pressureConditions are the Node conditions behind NodeHealthy; True is bad for each.
var pressureConditions = []corev1.NodeConditionType{
	corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeNetworkUnavailable,
}

// setNodeHealthyCondition is True when no pressure condition is True or Unknown.
func setNodeHealthyCondition(w *conditionWriter, node *corev1.Node) {
	const t = v1alpha1.MachineNodeHealthyCondition
	if node == nil {
		w.set(t, metav1.ConditionUnknown, v1alpha1.MachineNodeHealthUnknownReason, "no Node")
		return
	}
	var bad, unknown []string
	for _, pt := range pressureConditions {
		c := nodeCondition(node, pt)
		switch {
		case c == nil:
		case c.Status == corev1.ConditionTrue:
			bad = append(bad, string(pt))
		case c.Status == corev1.ConditionUnknown:
			unknown = append(unknown, string(pt))
		}
	}
	switch {
	case len(bad) > 0:
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineNodeUnhealthyReason, "Node reports "+strings.Join(bad, ", ")+" True")
	case len(unknown) > 0:
		w.set(t, metav1.ConditionUnknown, v1alpha1.MachineNodeHealthUnknownReason, "Node reports "+strings.Join(unknown, ", ")+" Unknown")
	default:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineNodeHealthyReason, "")
	}
}

// setUpdatingCondition compares the kubelet version with spec.version (SameRelease: the same
// Kubernetes release, whatever a distribution appends). It owns Updating only
// when spec.version is set, leaving the condition to an external updater otherwise; it reports
// whether it owns it.
func setUpdatingCondition(w *conditionWriter, node *corev1.Node) bool {
	const t = v1alpha1.MachineUpdatingCondition
	want := w.m.Spec.Version
	if want == "" {
		return false
	}
	switch {
	case node == nil:
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotUpdatingReason, "there is no Node")
	case node.Status.NodeInfo.KubeletVersion == "":
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotUpdatingReason, "Node has not reported its kubelet version yet")
	case SameRelease(node.Status.NodeInfo.KubeletVersion, want):
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotUpdatingReason, "")
	default:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineUpdatingKubeletVersionReason,
			fmt.Sprintf("kubelet is %s, want %s", bound(node.Status.NodeInfo.KubeletVersion), want))
	}
	return true
}

// setDrainingCondition is True while the Node is unschedulable (cordoned). A drainer's report
// that the drain failed (True, reason DrainingFailed, written on the Machine by whoever drains
// the Node) is kept as it is while the Node stays cordoned: only the drainer knows why its
// evictions fail, and lastOperation reports it as DrainNode (or Delete) Failed.
func setDrainingCondition(w *conditionWriter, node *corev1.Node) {
	const t = v1alpha1.MachineDrainingCondition
	if node != nil && node.Spec.Unschedulable {
		if c := conditions.Get(w.m, t); c != nil && c.Status == metav1.ConditionTrue && c.Reason == v1alpha1.MachineDrainingFailedReason {
			return
		}
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineNodeCordonedReason, "Node "+node.Name+" is cordoned")
		return
	}
	w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotDrainingReason, "")
}

// setStandbyCondition mirrors spec.standby.
func setStandbyCondition(w *conditionWriter) {
	const t = v1alpha1.MachineStandbyCondition
	if w.m.Spec.Standby {
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineStandbyRequestedReason, "spec.standby is true")
		return
	}
	w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotInStandbyReason, "")
}

// setDeletingCondition names the deletion step from what still exists: the Node is drained
// first, then the infrastructure and finally the Node are deleted.
func setDeletingCondition(w *conditionWriter, infraExists bool, node *corev1.Node) {
	const t = v1alpha1.MachineDeletingCondition
	if w.m.DeletionTimestamp.IsZero() {
		w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotDeletingReason, "")
		return
	}
	switch {
	case infraExists && node != nil:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineDeletingDrainingNodeReason, "waiting for Node "+node.Name+" to be drained")
	case infraExists:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, "waiting for the infrastructure to be deleted")
	case node != nil:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineDeletingWaitingForNodeDeletionReason, "waiting for Node "+node.Name+" to be deleted")
	default:
		w.set(t, metav1.ConditionTrue, v1alpha1.MachineDeletingDeletionCompletedReason, "the infrastructure and the Node are gone")
	}
}

// setPausedCondition mirrors the paused annotation.
func setPausedCondition(w *conditionWriter, paused bool) {
	const t = v1alpha1.MachinePausedCondition
	if paused {
		w.set(t, metav1.ConditionTrue, v1alpha1.MachinePausedReason, "annotation "+v1alpha1.PausedAnnotation+" is set")
		return
	}
	w.set(t, metav1.ConditionFalse, v1alpha1.MachineNotPausedReason, "")
}

func nodeCondition(node *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == t {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

func nodeMessage(node *corev1.Node, c *corev1.NodeCondition) string {
	msg := "Node " + node.Name + " is " + map[corev1.ConditionStatus]string{
		corev1.ConditionFalse: "not ready", corev1.ConditionUnknown: "not reporting status",
	}[c.Status]
	if c.Reason != "" {
		msg += " (" + bound(c.Reason) + ")"
	}
	if c.Message != "" {
		msg += ": " + bound(c.Message)
	}
	return msg
}

func failureMessage(r Ref) string {
	msg := r.String() + " failed"
	if r.Contract.FailureReason != "" {
		msg += " (" + bound(r.Contract.FailureReason) + ")"
	}
	if r.Contract.FailureMessage != "" {
		msg += ": " + bound(r.Contract.FailureMessage)
	}
	return msg
}

func notReadyMessage(r Ref, what string) string {
	msg := r.String() + " " + what
	if r.Contract.ReadyMessage != "" {
		msg += ": " + bound(r.Contract.ReadyMessage)
	}
	return msg
}

// bound makes text taken from another object safe to quote: on one line (a Cluster API v1beta2
// summary has one line per item; see conditions.OneLine), escaped (conditions.Sanitize) and cut
// to maxForeignMessage bytes. Every quote of another writer's text in a condition goes through it.
func bound(s string) string {
	return conditions.TruncateTo(conditions.Sanitize(conditions.OneLine(s)), maxForeignMessage)
}

// Refs returns the referenced objects of in: the infrastructure, then the bootstrap config when
// there is one.
func (in Inputs) Refs() []Ref {
	if in.Bootstrap == nil {
		return []Ref{in.Infra}
	}
	return []Ref{in.Infra, *in.Bootstrap}
}
