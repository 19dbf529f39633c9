package aggregate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// LastOperationAnnotation is the annotation in which a caller keeps the lastOperation of an
// object that has no field for it, such as a Cluster API Machine: the JSON of a
// v1alpha1.LastOperation, e.g.
//
//	machinestatus.io/last-operation: '{"type":"Create","state":"Successful","description":"Created: the Node is Ready","lastUpdated":"2026-01-01T00:12:00Z"}'
const LastOperationAnnotation = "machinestatus.io/last-operation"

// LastOperationFromAnnotations returns the lastOperation kept in the LastOperationAnnotation of
// the given annotations (e.g. obj.GetAnnotations()), or nil, nil when there is none. A value
// that is not the JSON of a lastOperation, or names an unknown type or state, returns an error;
// a caller may then start again from nil, which ClusterAPIMachineStatus turns into the
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
	if !slices.Contains(v1alpha1.MachineOperationTypes(), op.Type) {
		return nil, fmt.Errorf("cannot read annotation %s: unknown operation type %q", LastOperationAnnotation, op.Type)
	}
	if !slices.Contains(v1alpha1.MachineOperationStates(), op.State) {
		return nil, fmt.Errorf("cannot read annotation %s: unknown operation state %q", LastOperationAnnotation, op.State)
	}
	return op, nil
}

// SetLastOperationAnnotation writes op to obj's LastOperationAnnotation (removes it for a nil
// op) and reports whether the annotations changed. It gives obj a new annotation map rather
// than modifying the one obj has, and it writes nothing to the API server: the caller patches
// obj when this reports a change. The value is deterministic (times in RFC 3339, UTC, whole
// seconds), so an unchanged lastOperation never changes the object.
func SetLastOperationAnnotation(obj metav1.Object, op *v1alpha1.LastOperation) (bool, error) {
	old := obj.GetAnnotations()
	current, present := old[LastOperationAnnotation]
	if op == nil {
		if !present {
			return false, nil
		}
		annotations := maps.Clone(old)
		delete(annotations, LastOperationAnnotation)
		obj.SetAnnotations(annotations)
		return true, nil
	}
	value, err := json.Marshal(op)
	if err != nil {
		return false, fmt.Errorf("cannot write annotation %s: %w", LastOperationAnnotation, err)
	}
	if present && current == string(value) {
		return false, nil
	}
	annotations := maps.Clone(old)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[LastOperationAnnotation] = string(value)
	obj.SetAnnotations(annotations)
	return true, nil
}
