package aggregate

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestSameLastOperation: equal field by field, whatever the pointers, times by instant.
func TestSameLastOperation(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	op := func(edit func(*v1alpha1.LastOperation)) *v1alpha1.LastOperation {
		o := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateProcessing,
			Description: "Waiting", LastUpdated: metav1.NewTime(at)}
		if edit != nil {
			edit(o)
		}
		return o
	}
	tests := []struct {
		name string
		a, b *v1alpha1.LastOperation
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and a value", nil, op(nil), false},
		{"a value and nil", op(nil), nil, false},
		{"equal values, two pointers", op(nil), op(nil), true},
		{"the same instant in another location", op(nil), op(func(o *v1alpha1.LastOperation) {
			o.LastUpdated = metav1.NewTime(at.In(time.FixedZone("UTC+2", 7200)))
		}), true},
		{"another type", op(nil), op(func(o *v1alpha1.LastOperation) { o.Type = v1alpha1.MachineOperationUpdate }), false},
		{"another state", op(nil), op(func(o *v1alpha1.LastOperation) { o.State = v1alpha1.MachineOperationStateFailed }), false},
		{"another description", op(nil), op(func(o *v1alpha1.LastOperation) { o.Description = "Other" }), false},
		{"another instant", op(nil), op(func(o *v1alpha1.LastOperation) { o.LastUpdated = metav1.NewTime(at.Add(time.Second)) }), false},
	}
	for _, tt := range tests {
		if got := sameLastOperation(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: sameLastOperation = %v, want %v", tt.name, got, tt.want)
		}
	}
}
