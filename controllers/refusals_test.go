package controllers

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestRefusalReason: which status write errors are refusals that retrying cannot fix.
func TestRefusalReason(t *testing.T) {
	gr := schema.GroupResource{Group: "machinestatus.io", Resource: "machines"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"too many conditions", apierrors.NewInvalid(schema.GroupKind{Group: "machinestatus.io", Kind: "Machine"}, "m", nil), "Invalid"},
		{"too large", apierrors.NewRequestEntityTooLargeError("limit is 3145728"), "RequestEntityTooLarge"},
		{"admission denial", apierrors.NewForbidden(gr, "m", fmt.Errorf("denied by policy")), "Forbidden"},
		{"bad request", apierrors.NewBadRequest("bad"), "BadRequest"},
		{"conflict: retried", apierrors.NewConflict(gr, "m", fmt.Errorf("modified")), ""},
		{"timeout: retried", apierrors.NewServerTimeout(gr, "patch", 1), ""},
		{"outage: retried", fmt.Errorf("connect: connection refused"), ""},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := refusalReason(tt.err); got != tt.want {
				t.Errorf("refusalReason = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReportOmitted: omitted conditions are named in one Warning event whose note counts the
// others' conditions (not ours) and agrees in number; none are, no event.
func TestReportOmitted(t *testing.T) {
	others := func(n int) []metav1.Condition {
		var list []metav1.Condition
		for i := range n {
			list = append(list, metav1.Condition{Type: fmt.Sprintf("other.example.com/Check%02d", i)})
		}
		return list
	}
	tests := []struct {
		name    string
		list    []metav1.Condition
		omitted []string
		want    []string
	}{
		{"nothing omitted", others(3), nil, nil},
		{"one omitted", append(others(62), metav1.Condition{Type: v1alpha1.MachineReadyCondition}, metav1.Condition{Type: v1alpha1.MachineNodeReadyCondition}),
			[]string{v1alpha1.MachineNodeHealthyCondition},
			[]string{"Warning ConditionsOmitted status.conditions may hold 64 conditions and other writers hold 62, so NodeHealthy is not written; remove other writers' conditions to make room"}},
		{"two omitted", others(64), []string{v1alpha1.MachineNodeHealthyCondition, v1alpha1.MachineStandbyCondition},
			[]string{"Warning ConditionsOmitted status.conditions may hold 64 conditions and other writers hold 64, so NodeHealthy, Standby are not written; remove other writers' conditions to make room"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			r := &MachineReconciler{Recorder: rec}
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}}
			m.Status.Conditions = tt.list
			before := testutil.ToFloat64(conditionsOmittedMetric)
			r.reportOmitted(context.Background(), m, tt.omitted)
			if got := testutil.ToFloat64(conditionsOmittedMetric) - before; got != float64(len(tt.omitted)) {
				t.Errorf("machinestatus_conditions_omitted_total grew by %v, want %d", got, len(tt.omitted))
			}
			// Only an omission starts a run of omissions (whose first one is logged at ERROR).
			key := types.NamespacedName{Namespace: "ns", Name: "m"}
			if started := r.refusals.setOmitted(key, true); started != (len(tt.omitted) == 0) {
				t.Errorf("after this report, a new omission starts a run: %v, want %v", started, len(tt.omitted) == 0)
			}
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
