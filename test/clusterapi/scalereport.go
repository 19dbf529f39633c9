package clusterapi

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ScaleGoal is one goal of the scale run and whether it was met.
type ScaleGoal struct {
	Name, Figure string
	Met          bool
}

// Goals checks the run against the goals: our effective Machine writes at most
// maxWriteShare of Cluster API's, never more than one write per (type, state) change, no
// identical patch, no idle write, Events no more than Cluster API's, no ERROR line in our log.
func (r *ScaleResult) Goals() []ScaleGoal {
	ours, _ := r.Writes.totals()
	capi := r.Writes.clusterAPIEffective()
	changes, extra, identical := 0, 0, 0
	for _, m := range r.Writes.machines {
		changes += m.Changes
		extra += m.Extra
		identical += m.Identical
	}
	evOurs, evCAPI := r.Writes.eventsBy()
	return []ScaleGoal{
		{fmt.Sprintf("effective Machine writes ≤ %.0f%% of Cluster API's", 100*maxWriteShare),
			fmt.Sprintf("%d of %d (%s)", ours.Effective, capi, share(ours.Effective, capi)), float64(ours.Effective) <= maxWriteShare*float64(capi)},
		{"≤ 1 write per (type, state) change", fmt.Sprintf("%d patches for %d changes", ours.Requests, changes), extra == 0},
		{"no identical patch", fmt.Sprintf("%d", identical), identical == 0},
		{"0 idle writes", fmt.Sprintf("%d in %s", r.IdleWrites[writerOurs], r.Idle.Round(time.Second)), r.IdleWrites[writerOurs] == 0},
		{"Events ≤ Cluster API's", fmt.Sprintf("%d ≤ %d", evOurs, evCAPI), evOurs <= evCAPI},
		{"no ERROR line", fmt.Sprintf("%d", len(r.ErrorLines)), len(r.ErrorLines) == 0},
	}
}

// Table renders the run as Markdown: per Machine, each writer's effective writes (requests
// in parentheses), the processes' CPU time and memory, the lag and the phases.
func (r *ScaleResult) Table() string {
	var b strings.Builder
	perMachine := func(n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(max(r.Machines, 1))) }
	ours, others := r.Writes.totals()
	changes := 0
	for _, m := range r.Writes.machines {
		changes += m.Changes
	}
	fmt.Fprintf(&b, "| per Machine (%d Machines created in the run) | effective writes | requests |\n|---|---:|---:|\n", r.Machines)
	fmt.Fprintf(&b, "| ours (the annotation; %s (type, state) changes) | %s | %s |\n", perMachine(changes), perMachine(ours.Effective), perMachine(ours.Requests))
	capi := writeCounts{}
	for _, w := range r.Writes.writers {
		c := others[w]
		if isClusterAPI(w) {
			capi.plus(c)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", w, perMachine(c.Effective), perMachine(c.Requests))
	}
	fmt.Fprintf(&b, "| all of Cluster API's | %s | %s |\n", perMachine(capi.Effective), perMachine(capi.Requests))
	evOurs, evCAPI := r.Writes.eventsBy()
	fmt.Fprintf(&b, "| Events (creates and patches) | ours %s | Cluster API's %s |\n\n", perMachine(evOurs), perMachine(evCAPI))

	fmt.Fprintf(&b, "| process | CPU time | CPU per Machine created | RSS before → peak | peak growth per Machine at N |\n|---|---:|---:|---:|---:|\n")
	for _, p := range []struct {
		name string
		f    ProcessFigures
	}{{"our manager", r.Ours}, {"Cluster API's controllers", r.ClusterAPI}} {
		fmt.Fprintf(&b, "| %s | %.1f s | %.1f ms | %.0f MB → %.0f MB | %.1f KB |\n", p.name, p.f.CPU.Seconds(),
			float64(p.f.CPU.Milliseconds())/float64(max(r.Machines, 1)), p.f.RSSBefore/1e6, p.f.PeakRSS/1e6,
			(p.f.PeakRSS-p.f.RSSBefore)/float64(max(r.N, 1))/1024)
	}
	fmt.Fprintf(&b, "\nLag from the Cluster API write that changed a Machine's (type, state) to our patch: p50 %d ms, p99 %d ms, max %d ms over %d changes.\n",
		percentile(r.Lags, 50).Milliseconds(), percentile(r.Lags, 99).Milliseconds(), percentile(r.Lags, 100).Milliseconds(), len(r.Lags))
	var times []string
	for _, w := range append([]string{writerOurs}, r.Writes.writers...) {
		if ds := r.WriteTimes[w]; len(ds) > 0 {
			times = append(times, fmt.Sprintf("%s %d / %d ms", w, percentile(ds, 50).Milliseconds(), percentile(ds, 99).Milliseconds()))
		}
	}
	fmt.Fprintf(&b, "The API server's time per Machine write (p50 / p99): %s; host load average %s at the first Machine, %s at the end.\n",
		strings.Join(times, ", "), r.Load[0], r.Load[1])
	idle := make([]string, 0, len(r.IdleWrites))
	for w, n := range r.IdleWrites {
		idle = append(idle, fmt.Sprintf("%s %d", w, n))
	}
	slices.Sort(idle)
	if len(idle) == 0 {
		idle = []string{"none"}
	}
	fmt.Fprintf(&b, "Machine writes in the idle %s at the end: %s.\n", r.Idle.Round(time.Second), strings.Join(idle, ", "))
	phases := make([]string, 0, len(r.Phases))
	for _, p := range r.Phases {
		phases = append(phases, fmt.Sprintf("%s %.0f s", p.Name, p.Took.Seconds()))
	}
	fmt.Fprintf(&b, "Phases: %s.\n", strings.Join(phases, "; "))
	return b.String()
}

// percentile is the p-th percentile of ds (nearest rank), 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
