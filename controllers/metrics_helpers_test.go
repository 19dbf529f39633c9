package controllers

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// onlyNamespace collects the per-Machine series of one namespace, so that tests sharing the
// registry do not see each other's Machines.
type onlyNamespace string

func (n onlyNamespace) Describe(ch chan<- *prometheus.Desc) {
	machineInfoMetric.Describe(ch)
	lastOperationTimestampMetric.Describe(ch)
}

func (n onlyNamespace) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric, 1000)
	machineInfoMetric.Collect(all)
	lastOperationTimestampMetric.Collect(all)
	close(all)
	for m := range all {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			continue
		}
		for _, l := range d.GetLabel() {
			if l.GetName() == "namespace" && l.GetValue() == string(n) {
				ch <- m
			}
		}
	}
}

type observed struct {
	count uint64
	sum   float64
}

// histogram returns the machinestatus_machine_operation_duration_seconds sample of Cluster API
// Machines of one cluster, pool, type and state.
func histogram(t *testing.T, cluster, pool string, typ v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState) observed {
	t.Helper()
	var d dto.Metric
	h := operationDurationMetric.WithLabelValues("cluster.x-k8s.io", cluster, pool, string(typ), string(state))
	if err := h.(prometheus.Metric).Write(&d); err != nil {
		t.Fatal(err)
	}
	return observed{count: d.GetHistogram().GetSampleCount(), sum: d.GetHistogram().GetSampleSum()}
}
