package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestWrittenStatuses(t *testing.T) {
	var w writtenStatuses
	at := func(rv string) *v1alpha1.Machine {
		return &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", ResourceVersion: rv}}
	}
	phase := func(s *v1alpha1.MachineStatus) v1alpha1.MachinePhase {
		if s == nil {
			return "nil"
		}
		return s.Phase
	}
	if got := w.lastWritten(at("10")); got != nil {
		t.Fatalf("nothing written yet, got %v", got)
	}

	// Provisioned written from version 10, producing 11; while the cache shows 10 it lags.
	w.record(at("10"), &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseProvisioned}, "11")
	if got := phase(w.lastWritten(at("10"))); got != v1alpha1.MachinePhaseProvisioned {
		t.Errorf("cache at the version written from: lastWritten %s, want Provisioned", got)
	}
	// Running written from 10 again (the cache still lags), producing 12.
	w.record(at("10"), &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseRunning}, "12")
	for _, rv := range []string{"10", "11"} {
		if got := phase(w.lastWritten(at(rv))); got != v1alpha1.MachinePhaseRunning {
			t.Errorf("cache at %s, older than the last write: lastWritten %s, want Running", rv, got)
		}
	}
	// The cache shows the last write: it alone decides, and the Machine is forgotten.
	if got := w.lastWritten(at("12")); got != nil {
		t.Errorf("cache caught up: lastWritten %v, want nil", got)
	}
	if got := w.lastWritten(at("11")); got != nil {
		t.Errorf("after the cache caught up nothing is kept, got %v", got)
	}

	// A version after ours (someone else wrote after us) ends it.
	w.record(at("20"), &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseFailed}, "21")
	if got := w.lastWritten(at("22")); got != nil {
		t.Errorf("cache at a version after our write: lastWritten %v, want nil", got)
	}
	w.record(at("30"), &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseFailed}, "")
	w.forget(keyOf(at("30")))
	if got := w.lastWritten(at("30")); got != nil {
		t.Errorf("forgotten, got %v", got)
	}
}

// TestLastWritesWhileAnotherWriterRaces: another writer (Cluster API) writes between our read
// and our write: the cache then shows its version, older than the one our write produced but
// one we did not write from. Our value must still be what the reconcile compares with, or it
// sends the same patch again (issue 25: 3-6 identical patches per run).
func TestLastWritesWhileAnotherWriterRaces(t *testing.T) {
	var w lastWrites[string]
	key := keyOf(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}})
	w.put(key, "100", "102", "Create Successful") // read at 100; Cluster API wrote 101; ours is 102
	if got, ok := w.get(key, "101"); !ok || got != "Create Successful" {
		t.Errorf("cache at 101 (another writer's, before ours): get = %q, %v; want our value", got, ok)
	}
	if _, ok := w.get(key, "102"); ok {
		t.Errorf("cache at 102 (ours): still remembered, want the cache alone to decide")
	}
	w.put(key, "200", "202", "Delete Processing")
	if _, ok := w.get(key, "203"); ok {
		t.Errorf("cache at 203 (after ours): still remembered, want the cache alone to decide")
	}
}
