package prometheus

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/prometheus/rules"
)

// firing is when an alert fired during the scenario: from the first to the last minute of the
// series file, every minute in between.
type firing struct{ From, To int }

// TestAlertsOnScenario evaluates the rules over the series file, as Prometheus's rule manager
// does every minute, and checks which alerts fire, for which Machine, pool or API, and when
// (internal/fleetsim.Scenario says what happens in the fleet; the thresholds are the shipped
// ones).
func TestAlertsOnScenario(t *testing.T) {
	machine := func(group, ns, name, cluster, pool, phase, op, state string) string {
		return fmt.Sprintf(`{api_group=%q, cluster=%q, name=%q, namespace=%q, operation_state=%q, operation_type=%q, phase=%q, pool=%q}`,
			group, cluster, name, ns, state, op, phase, pool)
	}
	want := map[string]map[string]firing{
		// Creating since m0: 2400 s reached at m40, above it from m41.
		"MachineOperationStuck": {
			machine("machinestatus.io", "fleet", "workers-c", "prod", "workers", "Provisioning", "Create", "Processing"): {41, 100},
		},
		"MachineFailed": {
			// DrainNode Failed since m30: 900 s at m45.
			machine("machinestatus.io", "fleet", "workers-d", "prod", "workers", "Draining", "DrainNode", "Failed"): {45, 100},
			// HealthCheck and Create: at once, until the Cluster API series are gone (m80) or
			// the Machine is deleted.
			machine("cluster.x-k8s.io", "edge", "md-0-x3", "edge", "md-0", "Failed", "HealthCheck", "Failed"): {50, 79},
			machine("cluster.x-k8s.io", "edge", "md-0-f1", "edge", "md-0", "Failed", "Create", "Failed"):      {55, 55},
			machine("cluster.x-k8s.io", "edge", "md-0-f2", "edge", "md-0", "Failed", "Create", "Failed"):      {60, 60},
			machine("cluster.x-k8s.io", "edge", "md-0-f3", "edge", "md-0", "Failed", "Create", "Failed"):      {65, 65},
			machine("cluster.x-k8s.io", "edge", "md-0-f4", "edge", "md-0", "Failed", "Create", "Failed"):      {70, 70},
		},
		// workers: 1 of 4 not Running (0.25, not above the threshold) until m19, 2 of 4 from
		// m20: fires 15 minutes later. md-0: 1 of 3 from m0 but Running again at m12 (never
		// fires); not Running from m50 on, until its series are gone.
		"MachinePoolNotRunning": {
			`{api_group="machinestatus.io", cluster="prod", pool="workers"}`: {35, 100},
			`{api_group="cluster.x-k8s.io", cluster="edge", pool="md-0"}`:    {65, 79},
		},
		// Creates failed in md-0 at m55, m60, m65, m70 (the first one is the series' first
		// sample, which increase() cannot see): 3 in the last hour from m70, 5 minutes later.
		"MachineOperationsFailing": {
			`{api_group="cluster.x-k8s.io", cluster="edge", pool="md-0", state="Failed", type="Create"}`: {75, 100},
		},
		// The new leader does not serve Cluster API from m80: 10 minutes later.
		"MachinestatusAPINotReconciled": {
			`{api_group="cluster.x-k8s.io"}`: {90, 100},
		},
	}
	e := evaluate(t)
	got := map[string]map[string]firing{}
	for alert, byLabels := range e.firing {
		got[alert] = map[string]firing{}
		for lbls, times := range byLabels {
			f := firing{e.minute(times[0]), e.minute(times[len(times)-1])}
			if len(times) != f.To-f.From+1 {
				t.Errorf("%s%s fired at %d minutes between m%d and m%d, not every minute", alert, lbls, len(times), f.From, f.To)
			}
			got[alert][lbls] = f
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("alerts fired over %s (-want +got):\n%s", "the series file", d)
	}
	// Every alert fires on the scenario: the series file exercises them all.
	for _, g := range e.groups {
		for _, r := range g.Rules() {
			if _, ok := r.(*rules.AlertingRule); ok && len(want[r.Name()]) == 0 {
				t.Errorf("alert %s fires nowhere in the scenario", r.Name())
			}
		}
	}
}
