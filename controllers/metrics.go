package controllers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// apiGroupLabel tells the Machine APIs apart in every metric: machinestatus.io for
// machinestatus Machines, cluster.x-k8s.io for Cluster API Machines.
const apiGroupLabel = "api_group"

// operationDurationBuckets are the bounds of machinestatus_machine_operation_duration_seconds:
// from a health check that recovers in seconds to a creation or drain that takes hours.
var operationDurationBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 43200}

// Prometheus metrics of the controllers, served on the manager's metrics endpoint next to
// controller-runtime's own (reconcile counts, errors and durations per controller). The table
// in docs/operating.md is generated from this registry.
var (
	// machinesMetric is machinestatus_machines{api_group,phase}: Machines this manager
	// reconciles, by phase.
	machinesMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "machinestatus_machines",
		Help: "Number of Machines reconciled by this manager, by API group and phase.",
	}, []string{apiGroupLabel, "phase"})

	// machineInfoMetric is machinestatus_machine_info: one series per Machine, value 1.
	machineInfoMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "machinestatus_machine_info",
		Help: "One series per Machine reconciled by this manager, value 1: its cluster, pool, phase, lastOperation type and state, and whether Cluster API reports it up to date (up_to_date true, false, or empty when unknown).",
	}, []string{apiGroupLabel, "namespace", "name", "cluster", "pool", "phase", "operation_type", "operation_state", "up_to_date"})

	// lastOperationTimestampMetric is machinestatus_machine_last_operation_timestamp_seconds.
	lastOperationTimestampMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "machinestatus_machine_last_operation_timestamp_seconds",
		Help: "When the Machine's lastOperation last changed type or state (its lastUpdated), in Unix seconds; time() minus it is how long the Machine has been in its operation's state.",
	}, []string{apiGroupLabel, "namespace", "name", "cluster", "pool"})

	// operationDurationMetric is machinestatus_machine_operation_duration_seconds.
	operationDurationMetric = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "machinestatus_machine_operation_duration_seconds",
		Help:    "How long finished operations took, from their start (creationTimestamp for Create, deletionTimestamp for Delete, else the lastUpdated of their Processing state) to the lastUpdated of their result, observed once per result.",
		Buckets: operationDurationBuckets,
	}, []string{apiGroupLabel, "cluster", "pool", "type", "state"})

	// phaseTransitionsMetric is machinestatus_machine_phase_transitions_total{api_group,from,to}.
	phaseTransitionsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_phase_transitions_total",
		Help: "Phase changes observed by this manager, by API group, previous and new phase (from is \"none\" for a Machine new to machinestatus).",
	}, []string{apiGroupLabel, "from", "to"})

	// operationResultsMetric is machinestatus_machine_operation_results_total{api_group,type,state}.
	operationResultsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_operation_results_total",
		Help: "lastOperation results observed by this manager (state Successful or Failed), by API group and operation type.",
	}, []string{apiGroupLabel, "type", "state"})

	// statusWritesRefusedMetric is machinestatus_status_writes_refused_total{reason}.
	statusWritesRefusedMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_status_writes_refused_total",
		Help: "Status writes the API server refused for a reason retrying cannot fix, by reason (Invalid, RequestEntityTooLarge, Forbidden, BadRequest).",
	}, []string{"reason"})

	// conditionsOmittedMetric is machinestatus_conditions_omitted_total.
	conditionsOmittedMetric = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "machinestatus_conditions_omitted_total",
		Help: "Conditions of this controller left out of status writes because other writers' conditions filled status.conditions (maxItems 64).",
	})
)

func init() {
	metrics.Registry.MustRegister(machinesMetric, machineInfoMetric, lastOperationTimestampMetric,
		operationDurationMetric, phaseTransitionsMetric, operationResultsMetric,
		statusWritesRefusedMetric, conditionsOmittedMetric)
	for _, r := range refusalReasons {
		statusWritesRefusedMetric.WithLabelValues(r)
	}
}
