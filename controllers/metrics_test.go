package controllers

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestPhaseGauge(t *testing.T) {
	var g phaseGauge // machinestatus.io
	capi := phaseGauge{api: "cluster.x-k8s.io"}
	running := func() float64 {
		return testutil.ToFloat64(machinesMetric.WithLabelValues("machinestatus.io", "Running"))
	}
	failed := func() float64 {
		return testutil.ToFloat64(machinesMetric.WithLabelValues("machinestatus.io", "Failed"))
	}
	capiRunning := func() float64 {
		return testutil.ToFloat64(machinesMetric.WithLabelValues("cluster.x-k8s.io", "Running"))
	}
	r0, f0, c0 := running(), failed(), capiRunning()
	a, b := types.NamespacedName{Namespace: "t", Name: "a"}, types.NamespacedName{Namespace: "t", Name: "b"}
	g.set(a, v1alpha1.MachinePhaseRunning)
	g.set(b, v1alpha1.MachinePhaseRunning)
	g.set(a, v1alpha1.MachinePhaseRunning)    // unchanged: counted once
	capi.set(a, v1alpha1.MachinePhaseRunning) // the same name in the other API: counted apart
	if got, gotCAPI := running()-r0, capiRunning()-c0; got != 2 || gotCAPI != 1 {
		t.Fatalf("Running = %v (machinestatus.io), %v (cluster.x-k8s.io); want 2 and 1", got, gotCAPI)
	}
	g.set(a, v1alpha1.MachinePhaseFailed)
	g.set(b, "") // deleted
	if r, f := running()-r0, failed()-f0; r != 0 || f != 1 {
		t.Fatalf("Running = %v, Failed = %v; want 0 and 1", r, f)
	}
}
