package aggregate

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestReadyScopeIsValid pins down what lets Summarize skip the summary's scope check: whatever
// the readiness gates (types the CRD would reject, Ready, Stalled, repeats, built-in types),
// readyOptions builds options that summaryScope accepts as they are.
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
		var scope, negative [readyScopeArray]string
		o := readyOptions(m, nil, scope[:0], negative[:0])
		if _, err := summaryScope(v1alpha1.MachineReadyCondition, &o); err != nil {
			t.Fatalf("gates %+v: summaryScope of Ready's options: %v", m.Spec.ReadinessGates, err)
		}
		// And nothing valid is lost: the built-in types, then each valid gate other than Ready
		// and Stalled, once, in order.
		want := []string{v1alpha1.MachineDeletingCondition, v1alpha1.MachineHealthCheckSucceededCondition,
			v1alpha1.MachineInfrastructureReadyCondition, v1alpha1.MachineNodeHealthyCondition, v1alpha1.MachineNodeReadyCondition}
		if m.Spec.Bootstrap != nil {
			want = append([]string{v1alpha1.MachineBootstrapConfigReadyCondition}, want...)
		}
		for _, g := range m.Spec.ReadinessGates {
			typ := g.ConditionType
			if typ != v1alpha1.MachineReadyCondition && typ != v1alpha1.MachineStalledCondition &&
				!slices.Contains(want, typ) && conditions.ValidateType(typ) == nil {
				want = append(want, typ)
			}
		}
		if diff := cmp.Diff(want, o.ConditionTypes); diff != "" {
			t.Fatalf("gates %+v: Ready's scope (-want +got):\n%s", m.Spec.ReadinessGates, diff)
		}
	}
}
