package clusterapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// keptOperation is the lastOperation our manager keeps in a Cluster API Machine's
// machinestatus.io/last-operation annotation (aggregate.LastOperationAnnotation), read field by
// field from a patch's body, so that the audit log's patches of either format read: type, state
// and lastUpdated, the deletion cause (reason), and a description only in the first format,
// which stored one.
type keptOperation struct {
	Type        v1alpha1.MachineOperationType  `json:"type"`
	State       v1alpha1.MachineOperationState `json:"state"`
	LastUpdated metav1.Time                    `json:"lastUpdated"`
	Reason      string                         `json:"reason,omitempty"`
	Description string                         `json:"description,omitempty"`
}

// deletionCauses are the reasons the annotation may give a Delete operation.
var deletionCauses = []v1alpha1.MachineOperationReason{
	v1alpha1.DeletionRequestedReason, v1alpha1.RolloutReason, v1alpha1.MarkedForDeletionReason,
	v1alpha1.ClusterDeletedReason, v1alpha1.RemediationReason, v1alpha1.RemediationNodeStartupTimeoutReason,
	v1alpha1.RemediationUnhealthyNodeReason, v1alpha1.RemediationUnhealthyMachineReason,
	v1alpha1.RemediationNodeDeletedReason, v1alpha1.RemediationRequestedReason,
}

// The deletion causes the scenarios expect.
const (
	causeDeletionRequested             = string(v1alpha1.DeletionRequestedReason)
	causeRollout                       = string(v1alpha1.RolloutReason)
	causeRemediationUnhealthyNode      = string(v1alpha1.RemediationUnhealthyNodeReason)
	causeRemediationNodeStartupTimeout = string(v1alpha1.RemediationNodeStartupTimeoutReason)
)

// causeProblem says what is wrong with a deletion cause read from the annotation ("" when
// nothing is): one outside deletionCauses.
func causeProblem(cause string) string {
	if cause == "" || slices.Contains(deletionCauses, v1alpha1.MachineOperationReason(cause)) {
		return ""
	}
	names := make([]string, len(deletionCauses))
	for i, c := range deletionCauses {
		names[i] = string(c)
	}
	return fmt.Sprintf("deletion cause %q is not one of %s", cause, strings.Join(names, ", "))
}

// decodeKept reads an annotation value; ok is false when it is not a lastOperation.
func decodeKept(value string) (keptOperation, bool) {
	var k keptOperation
	if err := json.Unmarshal([]byte(value), &k); err != nil || k.Type == "" || k.State == "" {
		return keptOperation{}, false
	}
	return k, true
}

// operation is k as the lastOperation the derivation takes as its previous value.
func (k keptOperation) operation() *v1alpha1.LastOperation {
	return &v1alpha1.LastOperation{Type: k.Type, State: k.State, Reason: v1alpha1.MachineOperationReason(k.Reason),
		Description: k.Description, LastUpdated: k.LastUpdated}
}

// typeState is what a write of our manager must change: the operation's type and state.
type typeState struct {
	Type  v1alpha1.MachineOperationType
	State v1alpha1.MachineOperationState
}

func (t typeState) String() string {
	if t.Type == "" {
		return "none"
	}
	return string(t.Type) + " " + string(t.State)
}

func typeStateOf(op *v1alpha1.LastOperation) typeState {
	if op == nil {
		return typeState{}
	}
	return typeState{op.Type, op.State}
}

// createProcessing is the operation of a Machine being created.
var createProcessing = typeState{v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateProcessing}

// ourView is what machinestatus says about a Cluster API Machine, as `kubectl machinestatus get`
// and `describe` read it: the lastOperation and phase derived from the Machine with the
// annotation our manager keeps as the previous lastOperation.
type ourView struct {
	phase v1alpha1.MachinePhase
	op    *v1alpha1.LastOperation
	// cause is the deletion cause the annotation keeps.
	cause string
	// settled is true once our manager has written all it must for this version of the
	// Machine (aggregate.MustKeep: a result, a Delete with its cause, a Processing a reader
	// would not derive).
	settled bool
}

// viewOf reads our view of m from what the manager wrote on it. A Machine whose annotation
// cannot be read is not settled.
func viewOf(m *clusterv1.Machine) ourView {
	kept, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil {
		return ourView{}
	}
	phase, op := aggregate.ClusterAPIMachineStatus(m, kept, false, time.Time{})
	v := ourView{phase: phase, op: op, settled: !aggregate.MustKeep(m, kept, op, false)}
	if kept != nil {
		v.cause = string(kept.Reason)
	}
	return v
}
