// Package fleetsim writes the series a Prometheus would have scraped from two machinestatus
// managers (a leader and a standby, which takes over) for a small fleet of machinestatus and
// Cluster API Machines, in promtool's input_series format: the metrics and labels the manager
// serves (machinestatus_machine_info, machinestatus_machine_last_operation_timestamp_seconds,
// machinestatus_machine_operation_duration_seconds, machinestatus_machines,
// machinestatus_machine_operation_results_total, machinestatus_machine_api_served) with the
// target labels a ServiceMonitor with honorLabels adds. It stands in for a recording of the
// manager (see the package prometheus documentation) and plays Scenario.
package fleetsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Start is the time of the first scrape; Interval the time between scrapes; Steps their number.
const (
	Start    = 1767225600 // 2026-01-01T00:00:00Z
	Interval = time.Minute
	Steps    = 101 // 0 to 100 minutes
)

// Buckets are the upper bounds of machinestatus_machine_operation_duration_seconds.
var Buckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 43200}

// Scenario describes what Series plays, minute by minute (m is the minute of a scrape):
//
//   - machinestatus.io, cluster prod, pool workers (namespace fleet): workers-a and workers-b
//     Running; workers-c creating (Provisioning, Create Processing) from m0 on; workers-d
//     Running, draining from m20 (DrainNode Processing), its drain Failed from m30.
//   - machinestatus.io, cluster prod, pool infra: infra-a Updating m25-m29 (Update Processing),
//     Update Successful from m30; infra-b Running; infra-spare Standby.
//   - cluster.x-k8s.io, cluster edge, pool md-0 (namespace edge): md-0-x1 Running; md-0-x2
//     creating until m12, then Running (Create Successful after 780 s); md-0-x3 Running, Failed
//     from m50 (HealthCheck Failed); md-0-f1..f4 appear at m50, m55, m60, m65, their Create
//     Failed 5 minutes later, Deleting the next minute, gone the minute after (Delete Successful).
//   - managers: Pod machinestatus-manager-a leads until m79 (its series go stale at m80);
//     machinestatus-manager-b, a standby until then, leads from m80 and reconciles the
//     machinestatus.io Machines but not the Cluster API ones (api_served 0): their per-Machine
//     series are gone from m80.
const Scenario = "see the package documentation"

// LeaderChange is the minute the standby takes over.
const LeaderChange = 80

type machine struct {
	group, namespace, name, cluster, pool string
	// states by minute: the state from that minute on; a zero state (phase "") means the
	// Machine does not exist.
	states []timed
}

type timed struct {
	from  int
	state state
}

type state struct {
	phase, opType, opState string
	lastUpdated            int64 // Unix seconds
}

func at(m int) int64 { return Start + int64(m)*int64(Interval/time.Second) }

// stateAt returns the Machine's state at minute m (phase "": none).
func (mc machine) stateAt(m int) state {
	var s state
	for _, t := range mc.states {
		if t.from <= m {
			s = t.state
		}
	}
	return s
}

const (
	machinestatusGroup = "machinestatus.io"
	clusterAPIGroup    = "cluster.x-k8s.io"
)

func fleet() []machine {
	running := func(op string, since int64) state { return state{"Running", op, "Successful", since} }
	ms := []machine{
		{machinestatusGroup, "fleet", "workers-a", "prod", "workers", []timed{{0, running("Create", at(-180))}}},
		{machinestatusGroup, "fleet", "workers-b", "prod", "workers", []timed{{0, running("Update", at(-60))}}},
		{machinestatusGroup, "fleet", "workers-c", "prod", "workers", []timed{{0, state{"Provisioning", "Create", "Processing", at(0)}}}},
		{machinestatusGroup, "fleet", "workers-d", "prod", "workers", []timed{
			{0, running("Create", at(-300))},
			{20, state{"Draining", "DrainNode", "Processing", at(20)}},
			{30, state{"Draining", "DrainNode", "Failed", at(30)}},
		}},
		{machinestatusGroup, "fleet", "infra-a", "prod", "infra", []timed{
			{0, running("Create", at(-400))},
			{25, state{"Updating", "Update", "Processing", at(25)}},
			{30, running("Update", at(30))},
		}},
		{machinestatusGroup, "fleet", "infra-b", "prod", "infra", []timed{{0, running("Create", at(-400))}}},
		{machinestatusGroup, "fleet", "infra-spare", "prod", "infra", []timed{{0, state{"Standby", "Create", "Successful", at(-400)}}}},
		{clusterAPIGroup, "edge", "md-0-x1", "edge", "md-0", []timed{{0, running("Create", at(-30))}}},
		{clusterAPIGroup, "edge", "md-0-x2", "edge", "md-0", []timed{
			{0, state{"Provisioning", "Create", "Processing", at(-1)}},
			{6, state{"Provisioned", "Create", "Processing", at(-1)}},
			{12, running("Create", at(12))},
		}},
		{clusterAPIGroup, "edge", "md-0-x3", "edge", "md-0", []timed{
			{0, running("Create", at(-30))},
			{50, state{"Failed", "HealthCheck", "Failed", at(50)}},
		}},
	}
	for i, t := range []int{55, 60, 65, 70} {
		ms = append(ms, machine{clusterAPIGroup, "edge", fmt.Sprintf("md-0-f%d", i+1), "edge", "md-0", []timed{
			{t - 5, state{"Provisioning", "Create", "Processing", at(t - 5)}},
			{t, state{"Failed", "Create", "Failed", at(t)}},
			{t + 1, state{"Deleting", "Delete", "Processing", at(t + 1)}},
			{t + 2, state{}},
		}})
	}
	return ms
}

// observation is one operation that ended, as the leader's histogram observes it.
type observation struct {
	minute                           int
	group, cluster, pool, typ, state string
	seconds                          float64
}

// observations returns the operations that ended before the scenario (minute < 0: counted in
// the leader's histograms from the first scrape on) and during it, derived from the Machines'
// states (an operation ends when its state becomes Successful or Failed).
func observations(ms []machine) []observation {
	obs := []observation{
		{-1, machinestatusGroup, "prod", "workers", "Create", "Successful", 400},
		{-1, machinestatusGroup, "prod", "workers", "Create", "Successful", 500},
		{-1, machinestatusGroup, "prod", "workers", "Create", "Successful", 650},
		{-1, machinestatusGroup, "prod", "workers", "Create", "Successful", 1300},
		{-1, machinestatusGroup, "prod", "infra", "Create", "Successful", 700},
		{-1, machinestatusGroup, "prod", "infra", "Update", "Successful", 200},
		{-1, machinestatusGroup, "prod", "infra", "Update", "Successful", 250},
		{-1, clusterAPIGroup, "edge", "md-0", "Create", "Successful", 500},
		{-1, clusterAPIGroup, "edge", "md-0", "Create", "Successful", 620},
		{-1, clusterAPIGroup, "edge", "md-0", "Create", "Successful", 900},
	}
	for _, mc := range ms {
		for i := 1; i < len(mc.states); i++ {
			prev, cur := mc.states[i-1].state, mc.states[i].state
			m := mc.states[i].from
			if m >= LeaderChange && mc.group == clusterAPIGroup {
				continue // nobody reconciles them any more
			}
			switch {
			case cur.phase == "" && prev.opType == "Delete":
				obs = append(obs, observation{m, mc.group, mc.cluster, mc.pool, "Delete", "Successful", float64(at(m) - prev.lastUpdated)})
			case prev.opState == "Processing" && cur.opType == prev.opType && cur.opState != "Processing":
				obs = append(obs, observation{m, mc.group, mc.cluster, mc.pool, cur.opType, cur.opState, float64(at(m) - prev.lastUpdated)})
			}
		}
	}
	return obs
}

// series is one series' labels and its value at every scrape (NaN: not scraped).
type series struct {
	labels map[string]string
	values []float64
}

// target labels of each manager Pod, as a ServiceMonitor (honorLabels) adds them; namespace is
// the Pod's unless the series has its own (a Machine's).
func target(pod, ip string) map[string]string {
	return map[string]string{
		"job": "machinestatus-manager-metrics", "service": "machinestatus-manager-metrics",
		"endpoint": "https", "container": "manager", "namespace": "machinestatus-system",
		"pod": pod, "instance": ip + ":8443",
	}
}

type recorder struct{ series map[string]*series }

func (r *recorder) set(m int, name string, tgt, lbls map[string]string, v float64) {
	all := map[string]string{"__name__": name}
	for k, v := range tgt {
		all[k] = v
	}
	for k, v := range lbls {
		if v != "" { // an empty label is no label
			all[k] = v
		}
	}
	key := seriesString(all)
	s, ok := r.series[key]
	if !ok {
		s = &series{labels: all, values: make([]float64, Steps)}
		for i := range s.values {
			s.values[i] = math.NaN()
		}
		r.series[key] = s
	}
	s.values[m] = v
}

var phases = []string{"Pending", "Provisioning", "Provisioned", "Running", "Unknown", "Updating", "Draining", "Standby", "Failed", "Deleting", "Deleted"}

// Series returns the scenario's series file.
func Series() []byte {
	ms := fleet()
	obs := observations(ms)
	r := &recorder{series: map[string]*series{}}
	pods := []struct {
		name, ip string
		from, to int // the minutes it is scraped
	}{{"machinestatus-manager-a", "10.244.0.11", 0, LeaderChange - 1}, {"machinestatus-manager-b", "10.244.0.12", 0, Steps - 1}}
	for m := range Steps {
		for i, pod := range pods {
			if m < pod.from || m > pod.to {
				continue
			}
			tgt := target(pod.name, pod.ip)
			leader := (i == 0) == (m < LeaderChange)
			served := map[string]bool{machinestatusGroup: leader, clusterAPIGroup: leader && i == 0}
			for _, g := range []string{machinestatusGroup, clusterAPIGroup} {
				r.set(m, "machinestatus_machine_api_served", tgt, map[string]string{"api_group": g}, b2f(served[g]))
				counts := map[string]int{}
				for _, mc := range ms {
					if s := mc.stateAt(m); mc.group == g && served[g] && s.phase != "" {
						counts[s.phase]++
					}
				}
				for _, p := range phases {
					r.set(m, "machinestatus_machines", tgt, map[string]string{"api_group": g, "phase": p}, float64(counts[p]))
				}
			}
			for _, mc := range ms {
				s := mc.stateAt(m)
				if s.phase == "" || !served[mc.group] {
					continue
				}
				id := map[string]string{"api_group": mc.group, "namespace": mc.namespace, "name": mc.name, "cluster": mc.cluster, "pool": mc.pool}
				info := map[string]string{"phase": s.phase, "operation_type": s.opType, "operation_state": s.opState, "up_to_date": upToDate(mc.group, s)}
				for k, v := range id {
					info[k] = v
				}
				r.set(m, "machinestatus_machine_info", tgt, info, 1)
				r.set(m, "machinestatus_machine_last_operation_timestamp_seconds", tgt, id, float64(s.lastUpdated))
			}
			if i == 0 && leader {
				recordHistograms(r, m, tgt, obs)
			}
		}
	}
	return encode(r)
}

// upToDate is the up_to_date label: Cluster API's UpToDate condition, "" for machinestatus
// Machines.
func upToDate(group string, s state) string {
	switch {
	case group == machinestatusGroup:
		return ""
	case s.opType == "Update" && s.opState == "Processing":
		return "false"
	default:
		return "true"
	}
}

// recordHistograms sets the leader's histogram and result counter series at minute m: every
// operation observed up to m, a series existing from its first observation on.
func recordHistograms(r *recorder, m int, tgt map[string]string, obs []observation) {
	type key struct{ group, cluster, pool, typ, state string }
	hist := map[key][]float64{}
	results := map[[3]string]float64{}
	for _, o := range obs {
		if o.minute > m {
			continue
		}
		k := key{o.group, o.cluster, o.pool, o.typ, o.state}
		hist[k] = append(hist[k], o.seconds)
		results[[3]string{o.group, o.typ, o.state}]++
	}
	for k, values := range hist {
		lbls := map[string]string{"api_group": k.group, "cluster": k.cluster, "pool": k.pool, "type": k.typ, "state": k.state}
		sum := 0.0
		for _, v := range values {
			sum += v
		}
		for _, le := range append(slices.Clone(Buckets), math.Inf(1)) {
			n := 0
			for _, v := range values {
				if v <= le {
					n++
				}
			}
			bl := map[string]string{"le": formatLe(le)}
			for k, v := range lbls {
				bl[k] = v
			}
			r.set(m, "machinestatus_machine_operation_duration_seconds_bucket", tgt, bl, float64(n))
		}
		r.set(m, "machinestatus_machine_operation_duration_seconds_sum", tgt, lbls, sum)
		r.set(m, "machinestatus_machine_operation_duration_seconds_count", tgt, lbls, float64(len(values)))
	}
	for k, n := range results {
		r.set(m, "machinestatus_machine_operation_results_total", tgt, map[string]string{"api_group": k[0], "type": k[1], "state": k[2]}, n)
	}
}

func formatLe(le float64) string {
	if math.IsInf(le, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(le, 'f', -1, 64)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// seriesString is the series in PromQL notation, labels sorted.
func seriesString(lbls map[string]string) string {
	var names []string
	for k := range lbls {
		if k != "__name__" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(lbls["__name__"])
	b.WriteString("{")
	for i, k := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, lbls[k])
	}
	b.WriteString("}")
	return b.String()
}

// encode writes the series file, each series' values encoded by Values.
func encode(r *recorder) []byte {
	var keys []string
	for k := range r.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, `# The series of a Machine fleet scraped from two machinestatus managers every %s, in promtool's
# input_series format (start_timestamp: Unix seconds of the first sample). Written by
# PROMETHEUS_WRITE_SERIES=1 make prometheus-tests from test/prometheus/internal/fleetsim (its
# Scenario says what happens): do not edit.
start_timestamp: %d
interval: %s
input_series:
`, model.Duration(Interval), Start, model.Duration(Interval))
	for _, k := range keys {
		fmt.Fprintf(&b, "- series: '%s'\n  values: '%s'\n", k, Values(r.series[k].values))
	}
	return []byte(b.String())
}

// Values encodes samples in promtool's expanding notation: a run of one value as "vxN" (N+1
// samples), missing samples (NaN) as "_" ("_xN": N of them), the first missing sample after a
// present one as "stale" (Prometheus marks a series a scrape no longer has stale).
func Values(vs []float64) string {
	tokens := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case !math.IsNaN(v):
			tokens[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case i > 0 && !math.IsNaN(vs[i-1]):
			tokens[i] = "stale"
		default:
			tokens[i] = "_"
		}
	}
	// Drop trailing missing samples.
	for len(tokens) > 0 && tokens[len(tokens)-1] == "_" {
		tokens = tokens[:len(tokens)-1]
	}
	var out []string
	for i := 0; i < len(tokens); {
		j := i
		for j+1 < len(tokens) && tokens[j+1] == tokens[i] && tokens[i] != "stale" {
			j++
		}
		switch {
		case j == i:
			out = append(out, tokens[i])
		case tokens[i] == "_":
			out = append(out, fmt.Sprintf("_x%d", j-i+1)) // _xN is N missing samples
		default:
			out = append(out, fmt.Sprintf("%sx%d", tokens[i], j-i)) // vxN is N+1 samples
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}
