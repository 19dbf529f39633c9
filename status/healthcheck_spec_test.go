package status

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestHealthCheckSpec checks the health check's defaults as the API documents them
// (spec.healthCheck): nodeStartupTimeoutSeconds 600, unhealthyNodeConditions Ready=Unknown and
// Ready=False for 300 seconds; given values are used as they are.
func TestHealthCheckSpec(t *testing.T) {
	defaults := []v1alpha1.UnhealthyNodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: 300},
		{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: 300},
	}
	diskPressure := []v1alpha1.UnhealthyNodeCondition{{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, TimeoutSeconds: 60}}
	tests := []struct {
		name          string
		hc            *v1alpha1.MachineHealthCheck
		wantStartup   time.Duration
		wantUnhealthy []v1alpha1.UnhealthyNodeCondition
	}{
		{"no health check", nil, 600 * time.Second, defaults},
		{"empty health check", &v1alpha1.MachineHealthCheck{}, 600 * time.Second, defaults},
		{"startup timeout given", &v1alpha1.MachineHealthCheck{NodeStartupTimeoutSeconds: ptr.To[int32](30)}, 30 * time.Second, defaults},
		{"unhealthy conditions given", &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: diskPressure}, 600 * time.Second, diskPressure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			startup, unhealthy := healthCheckSpec(&v1alpha1.Machine{Spec: v1alpha1.MachineSpec{HealthCheck: tc.hc}})
			if startup != tc.wantStartup {
				t.Errorf("startup timeout = %v, want %v", startup, tc.wantStartup)
			}
			if diff := cmp.Diff(tc.wantUnhealthy, unhealthy); diff != "" {
				t.Errorf("unhealthy node conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHealthCheckStatusAbsentWhenNothingUnhealthy checks that status.healthCheck, what the
// health check remembers between reconciles, is absent once the Node has no unhealthy condition
// to remember (not an empty record), whether or not one was remembered before.
func TestHealthCheckStatusAbsentWhenNothingUnhealthy(t *testing.T) {
	for _, remembered := range []bool{false, true} {
		m := &v1alpha1.Machine{}
		if remembered {
			seenAt(m, corev1.NodeReady, corev1.ConditionFalse, at(-60), at(-60))
		}
		w := &conditionWriter{m: m, now: at(0)}
		setHealthCheckSucceededCondition(w, node(corev1.ConditionTrue, at(-30)), at(0))
		if m.Status.HealthCheck != nil {
			t.Errorf("remembered before: %v: status.healthCheck = %+v, want none", remembered, m.Status.HealthCheck)
		}
	}
}
