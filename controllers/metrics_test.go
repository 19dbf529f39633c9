package controllers

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestPhaseGauge(t *testing.T) {
	var g phaseGauge
	running := func() float64 { return testutil.ToFloat64(machinesMetric.WithLabelValues("Running")) }
	failed := func() float64 { return testutil.ToFloat64(machinesMetric.WithLabelValues("Failed")) }
	r0, f0 := running(), failed()
	a, b := types.NamespacedName{Namespace: "t", Name: "a"}, types.NamespacedName{Namespace: "t", Name: "b"}
	g.set(a, v1alpha1.MachinePhaseRunning)
	g.set(b, v1alpha1.MachinePhaseRunning)
	g.set(a, v1alpha1.MachinePhaseRunning) // unchanged: counted once
	if got := running() - r0; got != 2 {
		t.Fatalf("Running = %v, want 2", got)
	}
	g.set(a, v1alpha1.MachinePhaseFailed)
	g.set(b, "") // deleted
	if r, f := running()-r0, failed()-f0; r != 0 || f != 1 {
		t.Fatalf("Running = %v, Failed = %v; want 0 and 1", r, f)
	}
}
