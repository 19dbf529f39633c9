package scale

import (
	"fmt"
	"strings"
	"time"
)

// Goal is one target of the scale issue and whether the run met it.
type Goal struct {
	Name   string
	Figure string
	Met    bool
}

// Goals checks the run against the targets (for N ≤ 1000, the absolute time and memory goals
// too; they are stated for N=1000 on a 2-core machine).
func (r *Result) Goals() []Goal {
	p99 := Percentile(r.FlipLatencies, 99)
	growth := (r.RSS - r.RSSBaseline) / float64(max(r.N, 1))
	goals := []Goal{
		{"status writes ≤ distinct statuses", fmt.Sprintf("%d ≤ %d", r.StatusWrites, r.DistinctStatuses), r.StatusWrites <= r.DistinctStatuses},
		{"idle writes = 0", fmt.Sprintf("%d in %s", r.IdleWrites, r.IdleWindow.Round(time.Second)), r.IdleWrites == 0},
		{"flip latency p99 < 2 s", fmt.Sprintf("%.2f s", p99.Seconds()), len(r.FlipLatencies) > 0 && p99 < 2*time.Second},
		{"RSS growth ≤ 50 KB per Machine", fmt.Sprintf("%.1f KB", growth/1024), growth <= 50*1024},
	}
	if r.N <= 1000 {
		goals = append(goals,
			Goal{"convergence ≤ 60 s", fmt.Sprintf("%.1f s", r.Convergence.Seconds()), r.Convergence <= 60*time.Second},
			Goal{"manager RSS < 150 MB", fmt.Sprintf("%.1f MB", r.RSS/1e6), r.RSS < 150e6})
	}
	return goals
}

// Table renders the measurements as a Markdown table.
func (r *Result) Table() string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	fmt.Fprintf(&b, "| N = %d | |\n|---|---|\n", r.N)
	row("convergence (last infrastructure provisioned → all Running)", fmt.Sprintf("%.1f s", r.Convergence.Seconds()))
	row("machines/status writes (API server's apiserver_request_total)", fmt.Sprintf("%d (%.2f per Machine)", r.StatusWrites, float64(r.StatusWrites)/float64(max(r.N, 1))))
	row("distinct statuses the Machines went through (lower bound)", fmt.Sprintf("%d (%.2f per Machine)", r.DistinctStatuses, float64(r.DistinctStatuses)/float64(max(r.N, 1))))
	row("idle writes while kwok heartbeats", fmt.Sprintf("%d in %s", r.IdleWrites, r.IdleWindow.Round(time.Second)))
	row("Node Ready flip → Machine phase change (p50 / p99)", fmt.Sprintf("%.2f s / %.2f s over %d flips of %d Nodes",
		Percentile(r.FlipLatencies, 50).Seconds(), Percentile(r.FlipLatencies, 99).Seconds(), len(r.FlipLatencies), r.Flipped))
	row("manager RSS (before any Machine → steady)", fmt.Sprintf("%.1f MB → %.1f MB", r.RSSBaseline/1e6, r.RSS/1e6))
	row("manager Go heap in use (before → steady)", fmt.Sprintf("%.1f MB → %.1f MB", r.HeapBaseline/1e6, r.Heap/1e6))
	row("RSS / heap growth per Machine", fmt.Sprintf("%.1f KB / %.1f KB", (r.RSS-r.RSSBaseline)/float64(max(r.N, 1))/1024, (r.Heap-r.HeapBaseline)/float64(max(r.N, 1))/1024))
	return b.String()
}

// MetricsTable renders the metrics cost of the baseline manager and of this one at N, and the
// remediation loop's series churn, as a Markdown table and a line; "" without a baseline.
func (r *Result) MetricsTable(baseline string) string {
	if r.Before == nil || r.After == nil {
		return ""
	}
	n := float64(max(r.N, 1))
	b, a := r.Before, r.After
	var out strings.Builder
	fmt.Fprintf(&out, "| N = %d | before (%s) | after | after / before |\n|---|---:|---:|---:|\n", r.N, baseline)
	row := func(what string, before, after float64, format string) {
		ratio := "–"
		if before != 0 {
			ratio = fmt.Sprintf("%.2f×", after/before)
		}
		fmt.Fprintf(&out, "| %s | "+format+" | "+format+" | %s |\n", what, before, after, ratio)
	}
	row("series in a scrape (every family)", float64(b.SeriesN), float64(a.SeriesN), "%.0f")
	row("series per Machine (N Machines less none)", float64(b.SeriesN-b.SeriesEmpty)/n, float64(a.SeriesN-a.SeriesEmpty)/n, "%.2f")
	row("machinestatus_* series in a scrape", float64(b.OursN), float64(a.OursN), "%.0f")
	row("scrape size (KB, uncompressed)", float64(b.BytesN)/1024, float64(a.BytesN)/1024, "%.1f")
	row("scrape size per Machine (bytes)", float64(b.BytesN-b.BytesEmpty)/n, float64(a.BytesN-a.BytesEmpty)/n, "%.0f")
	row(fmt.Sprintf("scrape time (ms, median of %d)", scrapeRounds), float64(b.ScrapeN.Microseconds())/1000, float64(a.ScrapeN.Microseconds())/1000, "%.1f")
	row("manager RSS (MB)", b.RSSN/1e6, a.RSSN/1e6, "%.1f")
	row("RSS per Machine (KB, N Machines less none)", (b.RSSN-b.RSSEmpty)/n/1024, (a.RSSN-a.RSSEmpty)/n/1024, "%.1f")
	if c := r.Churn; c != nil {
		rem := float64(max(c.Remediated, 1))
		fmt.Fprintf(&out, "\nRemediation loop (after): %d Machines failed by their health check, deleted and replaced by new ones, the manager scraped every %s (%d scrapes): per remediated Machine %.2f series created and %.2f removed, %.2f and %.2f of them per-Machine series (`machinestatus_machine_info`, `machinestatus_machine_last_operation_timestamp_seconds`); %d and %d in all.\n",
			c.Remediated, churnScrapeInterval, c.Scrapes, float64(c.Created)/rem, float64(c.Removed)/rem,
			float64(c.PerMachineCreated)/rem, float64(c.PerMachineRemoved)/rem, c.Created, c.Removed)
	}
	return out.String()
}
