package controllers

import (
	"cmp"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// apiGroupLabel tells the Machine APIs apart in every metric: machinestatus.io for
// machinestatus Machines, cluster.x-k8s.io for Cluster API Machines.
const apiGroupLabel = "api_group"

// Prometheus metrics of the controllers, served on the manager's metrics endpoint next to
// controller-runtime's own (reconcile counts, errors and durations per controller).
var (
	// machinesMetric is machinestatus_machines{api_group,phase}: Machines this manager
	// reconciles, by phase.
	machinesMetric = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "machinestatus_machines",
		Help: "Number of Machines reconciled by this manager, by API group and phase.",
	}, []string{apiGroupLabel, "phase"})

	// phaseTransitionsMetric is machinestatus_machine_phase_transitions_total{api_group,from,to}.
	phaseTransitionsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_phase_transitions_total",
		Help: "Phase changes observed by this manager, by API group, previous and new phase (from is \"none\" for a Machine new to machinestatus).",
	}, []string{apiGroupLabel, "from", "to"})

	// operationResultsMetric is machinestatus_machine_operation_results_total{api_group,type,state}.
	operationResultsMetric = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "machinestatus_machine_operation_results_total",
		Help: "lastOperation results written by this manager (state Successful or Failed), by API group and operation type.",
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
	metrics.Registry.MustRegister(machinesMetric, phaseTransitionsMetric, operationResultsMetric,
		statusWritesRefusedMetric, conditionsOmittedMetric)
	for _, r := range refusalReasons {
		statusWritesRefusedMetric.WithLabelValues(r)
	}
	(&phaseGauge{}).init()
}

// phaseGauge keeps machinestatus_machines in step with the phase of every Machine of one API
// reconciled.
type phaseGauge struct {
	// api is the API group label; empty means machinestatus.io.
	api   string
	mu    sync.Mutex
	phase map[types.NamespacedName]v1alpha1.MachinePhase
}

func (g *phaseGauge) label() string { return cmp.Or(g.api, v1alpha1.GroupVersion.Group) }

// init makes every phase of g's API present in machinestatus_machines, 0 until counted.
func (g *phaseGauge) init() {
	for _, p := range v1alpha1.MachinePhases() {
		machinesMetric.WithLabelValues(g.label(), string(p))
	}
}

// get returns the phase last set for key, and whether there is one.
func (g *phaseGauge) get(key types.NamespacedName) (v1alpha1.MachinePhase, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.phase[key]
	return p, ok
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
		machinesMetric.WithLabelValues(g.label(), string(old)).Dec()
		delete(g.phase, key)
	}
	if p != "" {
		machinesMetric.WithLabelValues(g.label(), string(p)).Inc()
		g.phase[key] = p
	}
}

// recordTransition counts a phase change and an operation result of a Machine of API group api.
func recordTransition(api string, t transition) {
	if t.phaseChanged {
		phaseTransitionsMetric.WithLabelValues(api, t.fromLabel(), string(t.to)).Inc()
	}
	if t.result != nil {
		operationResultsMetric.WithLabelValues(api, string(t.result.Type), string(t.result.State)).Inc()
	}
}
