package controllers

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Prometheus metrics of the controller, served on the manager's metrics endpoint next to
// controller-runtime's own (reconcile counts, errors and durations per controller).
var (
	// machinesMetric is machinestatus_machines{phase}: Machines this manager reconciles, by phase.
	machinesMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "machinestatus_machines",
		Help: "Number of Machines reconciled by this manager, by phase.",
	}, []string{"phase"})

	// phaseTransitionsMetric is machinestatus_machine_phase_transitions_total{from,to}.
	phaseTransitionsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_phase_transitions_total",
		Help: "Phase changes written by this manager, by previous and new phase (from is \"none\" for a new Machine).",
	}, []string{"from", "to"})

	// operationResultsMetric is machinestatus_machine_operation_results_total{type,state}.
	operationResultsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_operation_results_total",
		Help: "lastOperation results written by this manager (state Successful or Failed), by operation type.",
	}, []string{"type", "state"})

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
	metrics.Registry.MustRegister(machinesMetric, phaseTransitionsMetric, operationResultsMetric,
		statusWritesRefusedMetric, conditionsOmittedMetric)
	for _, p := range v1alpha1.MachinePhases {
		machinesMetric.WithLabelValues(string(p))
	}
	for _, r := range refusalReasons {
		statusWritesRefusedMetric.WithLabelValues(r)
	}
}

// phaseGauge keeps machinestatus_machines in step with the phase of every Machine reconciled.
type phaseGauge struct {
	mu    sync.Mutex
	phase map[types.NamespacedName]v1alpha1.MachinePhase
}

// set records key's phase (empty: the Machine is gone).
func (g *phaseGauge) set(key types.NamespacedName, p v1alpha1.MachinePhase) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.phase == nil {
		g.phase = map[types.NamespacedName]v1alpha1.MachinePhase{}
	}
	old, had := g.phase[key]
	if had && old == p {
		return
	}
	if had {
		machinesMetric.WithLabelValues(string(old)).Dec()
		delete(g.phase, key)
	}
	if p != "" {
		machinesMetric.WithLabelValues(string(p)).Inc()
		g.phase[key] = p
	}
}

// recordTransition counts a written phase change and operation result.
func recordTransition(t transition) {
	if t.phaseChanged {
		phaseTransitionsMetric.WithLabelValues(t.fromLabel(), string(t.to)).Inc()
	}
	if t.result != nil {
		operationResultsMetric.WithLabelValues(string(t.result.Type), string(t.result.State)).Inc()
	}
}
