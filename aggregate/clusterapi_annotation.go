package aggregate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// LastOperationAnnotation is the annotation in which a caller keeps the lastOperation of an
// object that has no field for it, such as a Cluster API Machine. It holds what a later reader
// cannot derive: the operation's type, state, lastUpdated and reason, as JSON, e.g.
//
//	machinestatus.io/last-operation: '{"type":"Delete","state":"Processing","reason":"Rollout","lastUpdated":"2026-01-01T00:12:00Z"}'
//
// The description is derived when the lastOperation is read (ClusterAPIMachineStatus). A value
// written before, with a description, is read as it is; nothing rewrites it just to drop it.
const LastOperationAnnotation = "machinestatus.io/last-operation"

// LastOperationFromAnnotations returns the lastOperation kept in the LastOperationAnnotation of
// the given annotations (e.g. obj.GetAnnotations()), or nil, nil when there is none. A value
// that is not the JSON of a lastOperation, or names an unknown type, state or reason, returns
// an error; a caller may then start again from nil, which ClusterAPIMachineStatus turns into the
// lastOperation the Machine's conditions give.
func LastOperationFromAnnotations(annotations map[string]string) (*v1alpha1.LastOperation, error) {
	value, ok := annotations[LastOperationAnnotation]
	if !ok {
		return nil, nil
	}
	op := &v1alpha1.LastOperation{}
	if err := json.Unmarshal([]byte(value), op); err != nil {
		return nil, fmt.Errorf("cannot read annotation %s: %w", LastOperationAnnotation, err)
	}
	switch {
	case !slices.Contains(v1alpha1.MachineOperationTypes(), op.Type):
		return nil, fmt.Errorf("cannot read annotation %s: unknown operation type %q", LastOperationAnnotation, op.Type)
	case !slices.Contains(v1alpha1.MachineOperationStates(), op.State):
		return nil, fmt.Errorf("cannot read annotation %s: unknown operation state %q", LastOperationAnnotation, op.State)
	case op.Reason != "" && !slices.Contains(operationReasons, op.Reason):
		return nil, fmt.Errorf("cannot read annotation %s: unknown operation reason %q", LastOperationAnnotation, op.Reason)
	}
	return op, nil
}

// operationReasons are the reasons a lastOperation may carry.
var operationReasons = []v1alpha1.MachineOperationReason{
	v1alpha1.DeletionRequestedReason, v1alpha1.RolloutReason, v1alpha1.MarkedForDeletionReason,
	v1alpha1.ClusterDeletedReason, v1alpha1.RemediationReason, v1alpha1.RemediationNodeStartupTimeoutReason,
	v1alpha1.RemediationUnhealthyNodeReason, v1alpha1.RemediationUnhealthyMachineReason,
	v1alpha1.RemediationNodeDeletedReason, v1alpha1.RemediationRequestedReason,
}

// LastOperationAnnotationValue returns the LastOperationAnnotation value that keeps op: its type,
// state, reason and lastUpdated (RFC 3339, UTC, whole seconds), deterministic.
func LastOperationAnnotationValue(op *v1alpha1.LastOperation) (string, error) {
	kept := v1alpha1.LastOperation{Type: op.Type, State: op.State, Reason: op.Reason,
		LastUpdated: metav1.NewTime(op.LastUpdated.UTC().Truncate(time.Second))}
	value, err := json.Marshal(kept)
	if err != nil {
		return "", fmt.Errorf("cannot write annotation %s: %w", LastOperationAnnotation, err)
	}
	return string(value), nil
}

// SameKeptOperation reports whether a and b keep the same in the annotation: type, state, reason
// and lastUpdated (the instant); the description is not kept.
func SameKeptOperation(a, b *v1alpha1.LastOperation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.State == b.State && a.Reason == b.Reason && a.LastUpdated.Equal(&b.LastUpdated)
}

// SetLastOperationAnnotation writes op to obj's LastOperationAnnotation (removes it for a nil
// op) unless it keeps the same already (SameKeptOperation), and reports whether the annotations
// changed. It gives obj a new annotation map and writes nothing to the API server: the caller
// patches obj when this reports a change.
func SetLastOperationAnnotation(obj metav1.Object, op *v1alpha1.LastOperation) (bool, error) {
	old := obj.GetAnnotations()
	_, present := old[LastOperationAnnotation]
	if op == nil {
		if !present {
			return false, nil
		}
		annotations := maps.Clone(old)
		delete(annotations, LastOperationAnnotation)
		obj.SetAnnotations(annotations)
		return true, nil
	}
	if stored, err := LastOperationFromAnnotations(old); err == nil && present && SameKeptOperation(stored, op) {
		return false, nil
	}
	value, err := LastOperationAnnotationValue(op)
	if err != nil {
		return false, err
	}
	annotations := maps.Clone(old)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[LastOperationAnnotation] = value
	obj.SetAnnotations(annotations)
	return true, nil
}

// MustKeep reports whether a manager writes op, the lastOperation it holds for m, to m's
// LastOperationAnnotation, which holds stored (nil: none). The annotation keeps what a later
// reader could not derive from m and the annotation, and tells readers that a manager keeps
// the Machine's history:
//   - the first lastOperation after a Create Processing (a Machine being created has no history
//     yet: its lastOperation is the same with or without one);
//   - a result (Successful or Failed), so that the next operation is read after it and a
//     manager that restarts does not report it again;
//   - a Delete, whose reason is read once, when the deletion starts;
//   - another Processing (Update, DrainNode, HealthCheck, Create after a failure) only when
//     ClusterAPIMachineStatus(m, stored, …) would not give it: a Node that is not Ready after a
//     Create Successful needs no write.
//
// Nothing is written when stored already keeps op (SameKeptOperation).
func MustKeep(m *clusterv1.Machine, stored, op *v1alpha1.LastOperation, clusterDeleting bool) bool {
	creating := op != nil && op.Type == v1alpha1.MachineOperationCreate && op.State == v1alpha1.MachineOperationStateProcessing
	switch {
	case op == nil, SameKeptOperation(stored, op):
		return false
	case stored == nil:
		return !creating
	case op.State != v1alpha1.MachineOperationStateProcessing, op.Type == v1alpha1.MachineOperationDelete:
		return true
	}
	_, derived := ClusterAPIMachineStatus(m, stored, clusterDeleting, time.Time{})
	return !SameKeptOperation(derived, op)
}
