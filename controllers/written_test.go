package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

func TestWrittenStatuses(t *testing.T) {
	var w writtenStatuses
	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", ResourceVersion: "10"}}
	running := &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseRunning}
	if w.alreadyWritten(m, running) {
		t.Fatal("nothing written yet")
	}
	w.record(m, running)
	if !w.alreadyWritten(m, running) {
		t.Error("the same status from the same cached version must be skipped")
	}
	if w.alreadyWritten(m, &v1alpha1.MachineStatus{Phase: v1alpha1.MachinePhaseFailed}) {
		t.Error("a different status must be written")
	}
	newer := m.DeepCopy()
	newer.ResourceVersion = "11"
	if w.alreadyWritten(newer, running) {
		t.Error("once the cache shows a newer version, it alone decides")
	}
	w.forget(keyOf(m))
	if w.alreadyWritten(m, running) {
		t.Error("forgotten")
	}
}
