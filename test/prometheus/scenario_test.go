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
// does every minute, and checks which alerts fire, for which Machine, pool or API, and when, with
// the shipped thresholds. The series file is the manager recorded while test/metrics's
// TestFleetSeries drives a fleet (its documentation says what happens at which minute).
func TestAlertsOnScenario(t *testing.T) {
	machine := func(group, ns, name, cluster, pool, phase, op, state string) string {
		return fmt.Sprintf(`{api_group=%q, cluster=%q, name=%q, namespace=%q, operation_state=%q, operation_type=%q, phase=%q, pool=%q}`,
			group, cluster, name, ns, state, op, phase, pool)
	}
	const ms, capi = "machinestatus.io", "cluster.x-k8s.io"
	want := map[string]map[string]firing{
		// workers-c has been creating since before m0 (its infrastructure never provisions):
		// 2400 s passed at m40.
		"MachineOperationStuck": {
			machine(ms, "fleet", "workers-c", "prod", "workers", "Provisioning", "Create", "Processing"): {40, 46},
		},
		// Failed Create and HealthCheck: at once (threshold 0), while the Machine is Failed.
		"MachineFailed": {
			machine(ms, "fleet", "workers-e", "prod", "workers", "Failed", "HealthCheck", "Failed"): {5, 46},
			machine(capi, "edge", "md-0-f1", "edge", "md-0", "Failed", "Create", "Failed"):          {15, 15},
			machine(capi, "edge", "md-0-f2", "edge", "md-0", "Failed", "Create", "Failed"):          {17, 17},
			machine(capi, "edge", "md-0-f3", "edge", "md-0", "Failed", "Create", "Failed"):          {19, 19},
			machine(capi, "edge", "md-0-f4", "edge", "md-0", "Failed", "Create", "Failed"):          {21, 21},
			machine(capi, "edge", "md-0-x3", "edge", "md-0", "Failed", "HealthCheck", "Failed"):     {27, 46},
		},
		// workers: 1 of 4 not Running (0.25, not above the threshold) at m0-m2, 2 of 4 from m3
		// (workers-d Unknown), 3 of 4 from m5, 3 of 5 from m11: fires 15 minutes after m3. md-0
		// and infra never stay above 0.25 for 15 minutes.
		"MachinePoolNotRunning": {
			`{api_group="machinestatus.io", cluster="prod", pool="workers"}`: {18, 46},
		},
		// Creates failed in md-0 at m15, m17, m19, m21 (the first one is the series' first
		// sample, which increase() sees only by extrapolation): 3 or more in the last hour from
		// m21, 5 minutes later.
		"MachineOperationsFailing": {
			`{api_group="cluster.x-k8s.io", cluster="edge", pool="md-0", state="Failed", type="Create"}`: {26, 46},
		},
		// Cluster API is installed at m11: the manager reported it not served from m0, 10
		// minutes before m10.
		"MachinestatusAPINotReconciled": {
			`{api_group="cluster.x-k8s.io"}`: {10, 11},
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
