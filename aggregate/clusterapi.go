package aggregate

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// ClusterAPIMachineStatus returns the phase and lastOperation of a Cluster API v1beta2 Machine,
// as Phase and LastOperation derive them for a machinestatus Machine, so that users of Cluster
// API get a lastOperation too. It reads m through MachineFromClusterAPI (see there for how each
// field maps) and never modifies m or previous.
//
// A Cluster API Machine has no field for a lastOperation, so previous, the value this function
// returned last time for the same Machine (nil the first time), is the only memory; the caller
// keeps it, e.g. in the Machine's LastOperationAnnotation (see SetLastOperationAnnotation and
// LastOperationFromAnnotations). Like LastOperation, the function is pure, deterministic and a
// fixed point: given its own result as previous, it returns an equal lastOperation; its time
// is taken from the Machine's conditions or, for a change no lastTransitionTime dates, from now
// (e.g. the reconcile's instant), never from the wall clock (see LastOperation).
//
// A Delete carries a reason, why Cluster API deletes the Machine (DeletionCause, with
// clusterDeleting telling whether its Cluster is being deleted), read when the deletion starts
// and kept from previous after that; the description names it.
//
// Where the phase differs from Cluster API's own status.phase, and why, is listed in
// docs/clusterapi.md. A nil m gives Pending and nil.
func ClusterAPIMachineStatus(m *clusterv1.Machine, previous *v1alpha1.LastOperation, clusterDeleting bool, now time.Time) (v1alpha1.MachinePhase, *v1alpha1.LastOperation) {
	view := MachineFromClusterAPI(m, previous)
	if view == nil {
		return v1alpha1.MachinePhasePending, nil
	}
	op := LastOperation(view, now)
	if op.Type == v1alpha1.MachineOperationDelete {
		// The cause is read once, when the deletion starts, and kept.
		op.Reason = DeletionCause(m, clusterDeleting)
		if previous != nil && previous.Type == v1alpha1.MachineOperationDelete {
			op.Reason = previous.Reason
		}
		op.Description = withCause(op.Description, op.Reason)
	}
	// As Summarize does: the phase's Unknown row reads the lastOperation just computed.
	view.Status.LastOperation = op
	return Phase(view), op
}

// withCause puts the text of a deletion's reason after the leading words of its description,
// e.g. "Deletion in progress (replaced by a rollout): Drain not completed yet".
func withCause(description string, r v1alpha1.MachineOperationReason) string {
	text := ReasonText(r)
	for _, lead := range []string{descDeleting, descDeletedLead, descDeleteFailed} {
		if text != "" && strings.HasPrefix(description, lead) {
			return conditions.TruncateTo(lead+" ("+text+")"+description[len(lead):], maxDescriptionBytes)
		}
	}
	return description
}

// MachineFromClusterAPI returns a machinestatus Machine that says what m says, in the
// vocabulary of the machinestatus condition catalog, with previous as its lastOperation. It
// is what ClusterAPIMachineStatus reads; Summarize on it also computes a machinestatus Ready
// condition for m. The result shares no memory with m or previous; phase and Ready are left
// for Phase or Summarize to derive. A nil m gives nil.
//
// Metadata: name, namespace, UID, generation, creationTimestamp and deletionTimestamp are
// copied. Spec: providerID, version, infrastructureRef, bootstrap (configRef when defined, else
// dataSecretName) and readinessGates (an empty polarity is Positive, as in Cluster API) are
// copied. Status: nodeRef, spec.providerID and observedGeneration are copied.
//
// Conditions. Cluster API orchestrates provisioning with status.initialization, and its own
// phase reads those flags, so they decide whether bootstrap data and infrastructure are ready;
// its conditions give the rest. A missing Cluster API condition stays missing (never True):
//   - BootstrapConfigReady: True when status.initialization.bootstrapDataSecretCreated is true,
//     or when spec.bootstrap gives a dataSecretName without a configRef (Cluster API sets the
//     flag only for a configRef; a given data secret is ready from the start) (Cluster API's
//     condition when True, else reason DataSecretCreated); otherwise Cluster
//     API's condition, except that a True one becomes False/BootstrapConfigNotReady, since the
//     flag is not set yet.
//   - InfrastructureReady: likewise True when status.initialization.infrastructureProvisioned
//     is true (reason InfrastructureProvisioned when Cluster API's condition is not True), and
//     a True condition without the flag becomes False/InfrastructureNotProvisioned. A False
//     one becomes Unknown when the infrastructure object does not exist (reason
//     ObjectDoesNotExist), or while bootstrap data is not ready (as above): by the Cluster API
//     contract an infrastructure provider waits for the bootstrap data before it provisions,
//     so the infrastructure is not being provisioned yet (phase Pending, not Provisioning).
//   - NodeReady: Cluster API's condition, except that False/NodeDeleted becomes Unknown, as the
//     catalog reports a Machine without a Node.
//   - NodeHealthy, HealthCheckSucceeded (set by a MachineHealthCheck), Updating, Deleting,
//     Paused: Cluster API's conditions as they are. Their names and polarities are the
//     catalog's, and Cluster API's reasons DrainingNode, WaitingForInfrastructureDeletion and
//     DeletionCompleted (Deleting) are the catalog's; an in-place update that failed
//     (Updating=True, InPlaceUpdateFailed) is retried by Cluster API, so it is an Updating
//     Machine, not a terminal UpdateFailed.
//   - Draining, Standby: Cluster API has no such conditions; they are missing, never True.
//   - every readiness gate's condition that is not one of the above, as it is.
//
// Cluster API's other conditions (Ready, Available, UpToDate, …) are not copied, and neither is
// the deprecated v1beta1 status (failureReason, failureMessage, v1beta1 conditions). A
// condition the view derives from a flag without a Cluster API condition to copy has no
// lastTransitionTime; lastOperation then takes its time from the creationTimestamp.
func MachineFromClusterAPI(m *clusterv1.Machine, previous *v1alpha1.LastOperation) *v1alpha1.Machine {
	if m == nil {
		return nil
	}
	view := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.Name,
			Namespace:         m.Namespace,
			UID:               m.UID,
			Generation:        m.Generation,
			CreationTimestamp: m.CreationTimestamp,
			DeletionTimestamp: m.DeletionTimestamp.DeepCopy(),
		},
		Spec: v1alpha1.MachineSpec{
			ProviderID: m.Spec.ProviderID,
			Version:    m.Spec.Version,
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
				APIGroup: m.Spec.InfrastructureRef.APIGroup,
				Kind:     m.Spec.InfrastructureRef.Kind,
				Name:     m.Spec.InfrastructureRef.Name,
			},
		},
		Status: v1alpha1.MachineStatus{
			LastOperation:      previous.DeepCopy(),
			ProviderID:         m.Spec.ProviderID,
			ObservedGeneration: m.Status.ObservedGeneration,
		},
	}
	switch ref := m.Spec.Bootstrap.ConfigRef; {
	case ref.IsDefined():
		view.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
			APIGroup: ref.APIGroup, Kind: ref.Kind, Name: ref.Name,
		}}
	case m.Spec.Bootstrap.DataSecretName != nil:
		view.Spec.Bootstrap = &v1alpha1.Bootstrap{DataSecretName: *m.Spec.Bootstrap.DataSecretName}
	}
	if m.Status.NodeRef.IsDefined() {
		view.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: m.Status.NodeRef.Name}
	}
	view.Status.Conditions = clusterAPIConditions(m)
	for _, g := range m.Spec.ReadinessGates {
		if slices.Contains(clusterAPICatalogTypes, g.ConditionType) {
			continue
		}
		view.Spec.ReadinessGates = append(view.Spec.ReadinessGates, ReadinessGateFromClusterAPI(g))
		if c := meta.FindStatusCondition(m.Status.Conditions, g.ConditionType); c != nil {
			view.Status.Conditions = append(view.Status.Conditions, *c)
		}
	}
	conditions.Sort(view.Status.Conditions)
	return view
}

// clusterAPICatalogTypes are the condition types MachineFromClusterAPI maps itself (or leaves
// out, for Ready, Draining and Standby); a readiness gate of one of these types is not copied.
var clusterAPICatalogTypes = []string{
	v1alpha1.MachineReadyCondition,
	v1alpha1.MachineBootstrapConfigReadyCondition,
	v1alpha1.MachineInfrastructureReadyCondition,
	v1alpha1.MachineNodeReadyCondition,
	v1alpha1.MachineNodeHealthyCondition,
	v1alpha1.MachineHealthCheckSucceededCondition,
	v1alpha1.MachineUpdatingCondition,
	v1alpha1.MachineDrainingCondition,
	v1alpha1.MachineStandbyCondition,
	v1alpha1.MachineDeletingCondition,
	v1alpha1.MachinePausedCondition,
}

// clusterAPIConditions maps m's conditions and initialization flags to the catalog, as
// MachineFromClusterAPI documents.
func clusterAPIConditions(m *clusterv1.Machine) []metav1.Condition {
	get := func(t string) *metav1.Condition { return meta.FindStatusCondition(m.Status.Conditions, t) }
	isSet := func(flag *bool) bool { return flag != nil && *flag }
	// A flag counts with the field Cluster API sets with it: the data secret's name (a
	// dataSecretName given without a configRef is the data itself, ready from the start), the
	// providerID.
	hasDataSecret := m.Spec.Bootstrap.DataSecretName != nil && *m.Spec.Bootstrap.DataSecretName != ""
	bootstrapCreated := hasDataSecret && (isSet(m.Status.Initialization.BootstrapDataSecretCreated) || !m.Spec.Bootstrap.ConfigRef.IsDefined())
	infraProvisioned := isSet(m.Status.Initialization.InfrastructureProvisioned) && m.Spec.ProviderID != ""

	bootstrap, hasBootstrap := initialized(get(clusterv1.MachineBootstrapConfigReadyCondition),
		v1alpha1.MachineBootstrapConfigReadyCondition, bootstrapCreated,
		v1alpha1.MachineBootstrapDataSecretCreatedReason, v1alpha1.MachineBootstrapConfigNotReadyReason)
	if c := get(clusterv1.MachineBootstrapConfigReadyCondition); c != nil &&
		(c.Reason == clusterv1.MachineBootstrapConfigDoesNotExistReason || c.Reason == clusterv1.MachineBootstrapConfigDeletedReason) {
		// Cluster API says the bootstrap config is gone, whatever the flag.
		bootstrap = metav1.Condition{Type: v1alpha1.MachineBootstrapConfigReadyCondition, Status: metav1.ConditionUnknown,
			Reason: v1alpha1.MachineBootstrapConfigDoesNotExistReason, Message: c.Message, LastTransitionTime: c.LastTransitionTime}
	}
	infra, hasInfra := initialized(get(clusterv1.MachineInfrastructureReadyCondition),
		v1alpha1.MachineInfrastructureReadyCondition, infraProvisioned,
		v1alpha1.MachineInfrastructureProvisionedReason, v1alpha1.MachineInfrastructureNotProvisionedReason)
	switch c := get(clusterv1.MachineInfrastructureReadyCondition); {
	case c != nil && c.Reason == clusterv1.MachineInfrastructureDeletedReason:
		// Deleted after it was provisioned, whatever the flag: a failure unless the Machine is
		// being deleted.
		infra = metav1.Condition{Type: v1alpha1.MachineInfrastructureReadyCondition, Status: metav1.ConditionFalse,
			Reason: v1alpha1.MachineInfrastructureDeletedReason, Message: c.Message, LastTransitionTime: c.LastTransitionTime}
	case hasInfra && infra.Status == metav1.ConditionFalse &&
		(!bootstrapCreated || infra.Reason == clusterv1.MachineInfrastructureDoesNotExistReason):
		infra.Status = metav1.ConditionUnknown
	}
	var nodeReady metav1.Condition
	hasNodeReady := false
	if c := get(clusterv1.MachineNodeReadyCondition); c != nil {
		nodeReady, hasNodeReady = *c, true
		if nodeReady.Status == metav1.ConditionFalse && nodeReady.Reason == clusterv1.MachineNodeDeletedReason {
			nodeReady.Status = metav1.ConditionUnknown
		}
	}

	// Room for the eight mapped types and the readiness gates MachineFromClusterAPI appends.
	out := make([]metav1.Condition, 0, 8+len(m.Spec.ReadinessGates))
	add := func(c metav1.Condition, ok bool) {
		if ok {
			out = append(out, c)
		}
	}
	copyAsIs := func(t string) {
		if c := get(t); c != nil {
			out = append(out, *c)
		}
	}
	// In catalog order (conditions.Compare), so that MachineFromClusterAPI's sort finds them
	// sorted.
	add(bootstrap, hasBootstrap)
	copyAsIs(clusterv1.MachineDeletingCondition)
	copyAsIs(clusterv1.MachineHealthCheckSucceededCondition)
	add(infra, hasInfra)
	copyAsIs(clusterv1.MachineNodeHealthyCondition)
	add(nodeReady, hasNodeReady)
	copyAsIs(clusterv1.PausedCondition)
	copyAsIs(clusterv1.MachineUpdatingCondition)
	return out
}

// initialized maps a Cluster API condition (nil when missing) whose True state Cluster API
// records in an initialization flag: True when the flag is set, else the condition with a True
// status turned False. It reports false when there is nothing to map.
func initialized(c *metav1.Condition, conditionType string, flag bool, trueReason, notYetReason string) (metav1.Condition, bool) {
	switch {
	case flag && c != nil && c.Status == metav1.ConditionTrue:
		return *c, true
	case flag:
		return metav1.Condition{Type: conditionType, Status: metav1.ConditionTrue, Reason: trueReason}, true
	case c == nil:
		return metav1.Condition{}, false
	case c.Status == metav1.ConditionTrue:
		return metav1.Condition{Type: conditionType, Status: metav1.ConditionFalse, Reason: notYetReason,
			Message: "the Cluster API Machine's status.initialization does not report it yet", LastTransitionTime: c.LastTransitionTime}, true
	}
	return *c, true
}

// ReadinessGateFromClusterAPI returns g as a machinestatus readiness gate: the same condition
// type, and Negative polarity for Cluster API's NegativePolarity, else Positive (Cluster API's
// default).
func ReadinessGateFromClusterAPI(g clusterv1.MachineReadinessGate) v1alpha1.MachineReadinessGate {
	polarity := v1alpha1.PositiveConditionPolarity
	if g.Polarity == clusterv1.NegativePolarityCondition {
		polarity = v1alpha1.NegativeConditionPolarity
	}
	return v1alpha1.MachineReadinessGate{ConditionType: g.ConditionType, Polarity: polarity}
}
