package aggregate

import (
	"math/rand/v2"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// TestReadyScopeIsValid: whatever the readiness gates (types the CRD would reject, Ready,
// Stalled, repeats, built-in types), Ready's summary is never misconfigured, so Summarize always
// writes Ready.
func TestReadyScopeIsValid(t *testing.T) {
	pool := []string{
		"", " ", "-Leading", "Trailing.", "a/b/c", "Prêt", "example.com/", strings.Repeat("x", 64),
		strings.Repeat("a.", 130) + "a/X", v1alpha1.MachineReadyCondition, v1alpha1.MachineStalledCondition,
		v1alpha1.MachineNodeReadyCondition, v1alpha1.MachineDeletingCondition, v1alpha1.MachineUpdatingCondition,
		"example.com/NetworkReady", "example.com/NetworkReady", "Zone1", "storage.example.com/Mounted",
	}
	polarities := []v1alpha1.ConditionPolarity{"", v1alpha1.PositiveConditionPolarity, v1alpha1.NegativeConditionPolarity}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		m := &v1alpha1.Machine{}
		if i%2 == 0 {
			m.Spec.Bootstrap = &v1alpha1.Bootstrap{}
		}
		if i%3 == 0 {
			now := metav1.Now()
			m.DeletionTimestamp = &now
		}
		for range rng.IntN(len(pool)) {
			m.Spec.ReadinessGates = append(m.Spec.ReadinessGates, v1alpha1.MachineReadinessGate{
				ConditionType: pool[rng.IntN(len(pool))], Polarity: polarities[rng.IntN(len(polarities))]})
		}
		if _, err := readyCondition(m); err != nil {
			t.Fatalf("gates %+v: %v", m.Spec.ReadinessGates, err)
		}
	}
}
