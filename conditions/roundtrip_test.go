package conditions_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestJSONRoundTrip checks invariant 2: a Machine status written by Set survives a JSON round
// trip unchanged, location included (metav1.Time decodes into time.Local, so Set stores times
// there too). The comparison is strict: reflect.DeepEqual and cmp with strictTime.
func TestJSONRoundTrip(t *testing.T) {
	cet := time.FixedZone("CET", 60*60)
	tests := []struct {
		name      string
		build     func(t *testing.T) *v1alpha1.Machine
		wantEqual bool
	}{
		{
			name: "conditions written by Set",
			build: func(t *testing.T) *v1alpha1.Machine {
				m := machine(2)
				explicit := metav1.NewTime(t0.In(cet).Add(-90*time.Second + 123*time.Millisecond))
				for _, c := range []metav1.Condition{
					in("NodeReady", F, "NodeNotReady", "kubelet stopped posting node status"),
					in("InfrastructureReady", T, "InfrastructureProvisioned"),
					{Type: "BootstrapConfigReady", Status: T, Reason: "DataSecretCreated", LastTransitionTime: explicit},
					in("Ready", F, "NodeNotReady", "* NodeReady: kubelet stopped posting node status"),
					in("example.com/Backup", U, "Pending", "déjà vu 🙂 \"quoted\" <html> &amp;"),
					in("Updating", F, "NotUpdating", strings.Repeat("€", conditions.MaxMessageBytes)), // truncated
				} {
					if _, err := conditions.Set(m, c, clockAt(t0.In(cet))); err != nil {
						t.Fatalf("Set(%s) error = %v", c.Type, err)
					}
				}
				// A later status change with the clock moved on.
				if _, err := conditions.MarkTrue(m, "NodeReady", "NodeReady", "", clockAt(t0.Add(3*time.Minute+999*time.Millisecond))); err != nil {
					t.Fatalf("MarkTrue error = %v", err)
				}
				return m
			},
			wantEqual: true,
		},
		{
			// The control: a condition written by hand with sub-second precision in UTC does not
			// survive, which is what Set's truncation and location protect against.
			name: "condition written by hand, not by Set",
			build: func(*testing.T) *v1alpha1.Machine {
				return machine(2, metav1.Condition{Type: "Ready", Status: T, Reason: "NoIssuesReported", LastTransitionTime: metav1.NewTime(t0)})
			},
			wantEqual: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.build(t)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("json.Marshal() error = %v", err)
			}
			got := &v1alpha1.Machine{}
			if err := json.Unmarshal(data, got); err != nil {
				t.Fatalf("json.Unmarshal() error = %v", err)
			}

			diff := cmp.Diff(m, got, strictTime)
			if equal := diff == "" && reflect.DeepEqual(m, got); equal != tt.wantEqual {
				t.Errorf("round trip unchanged = %v, want %v; (-before +after):\n%s", equal, tt.wantEqual, diff)
			}
		})
	}
}
