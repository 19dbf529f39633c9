package clusterapi

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// maxWriteShare is the most our manager may write to the Machines, in effective writes, as a
// share of what Cluster API's own controllers write to them in the same run.
const maxWriteShare = 0.15

// runWrites is the account of every Machine's writes in a run, labelled.
type runWrites struct {
	machines []labelledWrites
	// writers are the writers of the Machines other than ours, in the table's order: Cluster
	// API's reconcilers first, then the suite, then anyone else.
	writers []string
	events  map[string]int
}

type labelledWrites struct {
	label string
	machineWrites
}

// accountRun accounts the audit log's Machine writes, each Machine labelled as label says.
func accountRun(a *auditLog, label func(types.NamespacedName, []machineWrite) string) runWrites {
	var r runWrites
	seen := map[string]bool{}
	for m, ws := range a.Machines {
		acc := account(m, ws)
		r.machines = append(r.machines, labelledWrites{label: label(m, ws), machineWrites: acc})
		for w := range acc.By {
			if w != writerOurs && !seen[w] {
				seen[w] = true
				r.writers = append(r.writers, w)
			}
		}
	}
	slices.SortFunc(r.machines, func(a, b labelledWrites) int { return compareLabels(a.label, b.label) })
	rank := func(w string) int {
		switch {
		case isClusterAPI(w):
			return 0
		case w == writerSuite:
			return 1
		}
		return 2
	}
	slices.SortFunc(r.writers, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	r.events = a.eventCounts()
	return r
}

// compareLabels orders "pool #2" before "pool #10".
func compareLabels(a, b string) int {
	pa, na, _ := strings.Cut(a, " #")
	pb, nb, _ := strings.Cut(b, " #")
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if len(na) != len(nb) {
		return len(na) - len(nb)
	}
	return strings.Compare(na, nb)
}

// poolLabels labels each Machine by its pool (its MachineDeployment, from the labels its
// writes returned) and the order of its creation in the pool ("rollout #3"); a Machine of no
// pool by its name.
func poolLabels(a *auditLog) func(types.NamespacedName, []machineWrite) string {
	type created struct {
		m    types.NamespacedName
		pool string
		at   int64
	}
	var all []created
	for m, ws := range a.Machines {
		c := created{m: m, pool: "", at: ws[0].Received.UnixNano()}
		for _, w := range ws {
			if w.Response != nil {
				c.pool = w.Response.Labels[clusterv1.MachineDeploymentNameLabel]
				break
			}
		}
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b created) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return strings.Compare(a.m.Name, b.m.Name)
	})
	labels := map[types.NamespacedName]string{}
	n := map[string]int{}
	for _, c := range all {
		if c.pool == "" {
			labels[c.m] = c.m.Name
			continue
		}
		n[c.pool]++
		labels[c.m] = fmt.Sprintf("%s #%d", c.pool, n[c.pool])
	}
	return func(m types.NamespacedName, _ []machineWrite) string { return labels[m] }
}

// totals sums our writes and every other writer's over the Machines.
func (r runWrites) totals() (ours writeCounts, others map[string]writeCounts) {
	others = map[string]writeCounts{}
	for _, m := range r.machines {
		for w, c := range m.By {
			if w == writerOurs {
				ours.plus(c)
				continue
			}
			o := others[w]
			o.plus(c)
			others[w] = o
		}
	}
	return ours, others
}

// clusterAPIEffective is the sum of Cluster API's effective Machine writes.
func (r runWrites) clusterAPIEffective() int {
	n := 0
	for _, m := range r.machines {
		n += m.clusterAPIEffective()
	}
	return n
}

// eventsBy sums Event writes: ours and Cluster API's reconcilers'.
func (r runWrites) eventsBy() (ours, clusterAPI int) {
	for w, n := range r.events {
		switch {
		case w == writerOurs:
			ours += n
		case isClusterAPI(w):
			clusterAPI += n
		}
	}
	return ours, clusterAPI
}

// failures are the run's write failures: identical patches, more than one patch per (type,
// state) change, and more effective writes than maxWriteShare of Cluster API's; and Events
// beyond Cluster API's.
func (r runWrites) failures() []string {
	var out []string
	for _, m := range r.machines {
		if m.Identical > 0 {
			out = append(out, fmt.Sprintf("Machine %s (%s): %d identical patches of ours (each one's body equal to the previous one's); our patches set %s",
				m.label, m.Machine.Name, m.Identical, strings.Join(m.Sequence, " → ")))
		}
		if m.Extra > 0 {
			out = append(out, fmt.Sprintf("Machine %s (%s): %d patches of ours for %d (type, state) changes, want at most one per change: %s",
				m.label, m.Machine.Name, m.Changes+m.Extra, m.Changes, strings.Join(m.Sequence, " → ")))
		}
	}
	ours, _ := r.totals()
	if capi := r.clusterAPIEffective(); float64(ours.Effective) > maxWriteShare*float64(capi) {
		out = append(out, fmt.Sprintf("our manager made %d effective Machine writes, %.1f%% of Cluster API's %d; want at most %.0f%%",
			ours.Effective, 100*float64(ours.Effective)/float64(max(capi, 1)), capi, 100*maxWriteShare))
	}
	if ev, capi := r.eventsBy(); ev > capi {
		out = append(out, fmt.Sprintf("our manager wrote %d Events, Cluster API's controllers %d; want no more than Cluster API's", ev, capi))
	}
	return out
}

// renderWritesTable renders the writes of each Machine: ours (effective writes, requests in
// parentheses, (type, state) changes, identical patches) beside each other writer's effective
// writes (requests in parentheses), then the totals.
func (r runWrites) renderWritesTable() string {
	var b strings.Builder
	b.WriteString("| Machine | ours | ours: (type, state) changes | ours: identical |")
	sep := "|---|---:|---:|---:|"
	for _, w := range r.writers {
		fmt.Fprintf(&b, " %s |", w)
		sep += "---:|"
	}
	b.WriteString(" ours / Cluster API |\n" + sep + "---:|\n")
	for _, m := range r.machines {
		ours := m.By[writerOurs]
		fmt.Fprintf(&b, "| %s | %d (%d) | %d | %d |", m.label, ours.Effective, ours.Requests, m.Changes, m.Identical)
		for _, w := range r.writers {
			c := m.By[w]
			fmt.Fprintf(&b, " %d (%d) |", c.Effective, c.Requests)
		}
		fmt.Fprintf(&b, " %s |\n", share(ours.Effective, m.clusterAPIEffective()))
	}
	ours, others := r.totals()
	changes, identical := 0, 0
	for _, m := range r.machines {
		changes += m.Changes
		identical += m.Identical
	}
	fmt.Fprintf(&b, "| **all %d** | %d (%d) | %d | %d |", len(r.machines), ours.Effective, ours.Requests, changes, identical)
	for _, w := range r.writers {
		c := others[w]
		fmt.Fprintf(&b, " %d (%d) |", c.Effective, c.Requests)
	}
	fmt.Fprintf(&b, " %s |\n", share(ours.Effective, r.clusterAPIEffective()))
	ev, capi := r.eventsBy()
	fmt.Fprintf(&b, "\nEvents written (creates and patches): ours %d, Cluster API's controllers %d.\n", ev, capi)
	return b.String()
}

func share(ours, clusterAPI int) string {
	if clusterAPI == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(ours)/float64(clusterAPI))
}

// digits matches the numbers of a writes table, which change from run to run.
var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// writesTableShape is a writes table with its numbers masked, but the Machines' labels (its
// first column): what a run must reproduce (the Machines and the writers).
func writesTableShape(table string) string {
	lines := strings.Split(table, "\n")
	for i, line := range lines {
		cells := strings.Split(line, "|")
		first := 0
		if strings.HasPrefix(line, "|") && len(cells) > 2 {
			first = 2 // cells[1] is the label
		}
		for j := first; j < len(cells); j++ {
			cells[j] = digits.ReplaceAllString(cells[j], "N")
		}
		lines[i] = strings.Join(cells, "|")
	}
	return strings.Join(lines, "\n")
}

// eventFailures checks our manager's Events about the Machines: every operation result our
// patches entered has its event (<Type>Succeeded or <Type>Failed), every Machine that is gone
// has DeleteSucceeded (else lost), and no other event is about a Cluster API Machine but the
// phase Failed (MachineFailed; else unwanted). Events are emitted asynchronously: call it until
// none is lost, or give up.
func (h *harness) eventFailures(ctx context.Context, r runWrites) (lost, unwanted []string, err error) {
	list := &eventsv1.EventList{}
	if err := h.c.List(ctx, list); err != nil {
		return nil, nil, err
	}
	machines := &clusterv1.MachineList{}
	if err := h.c.List(ctx, machines); err != nil {
		return nil, nil, err
	}
	exists := map[types.NamespacedName]bool{}
	for _, m := range machines.Items {
		exists[types.NamespacedName{Namespace: m.Namespace, Name: m.Name}] = true
	}
	got := map[types.NamespacedName]map[string]bool{}
	// Events that should not be: the Machines each reason is about.
	other := map[string][]string{}
	for _, e := range list.Items {
		if e.ReportingController != "machinestatus" || e.Regarding.Kind != "Machine" || e.Regarding.APIVersion != clusterv1.GroupVersion.String() {
			continue
		}
		m := types.NamespacedName{Namespace: e.Regarding.Namespace, Name: e.Regarding.Name}
		if got[m] == nil {
			got[m] = map[string]bool{}
		}
		got[m][e.Reason] = true
		if !strings.HasSuffix(e.Reason, "Succeeded") && !strings.HasSuffix(e.Reason, "Failed") {
			other[e.Reason] = append(other[e.Reason], m.Name)
		}
	}
	reasons := make([]string, 0, len(other))
	for r := range other {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		unwanted = append(unwanted, fmt.Sprintf("event %s about %d Cluster API Machines (e.g. %s): for one, our manager emits only operation results and MachineFailed",
			r, len(other[r]), other[r][0]))
	}
	for _, m := range r.machines {
		want := map[string]bool{}
		for _, ts := range m.Results {
			want[resultReason(ts)] = true
		}
		gone := !exists[m.Machine]
		if gone {
			want[resultReason(deleteSucceeded)] = true
		}
		var missing []string
		for reason := range want {
			if !got[m.Machine][reason] {
				missing = append(missing, reason)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			lost = append(lost, fmt.Sprintf("Machine %s (%s): lost events %s (our patches set %s; gone: %t)",
				m.label, m.Machine.Name, strings.Join(missing, ", "), strings.Join(m.Sequence, " → "), gone))
		}
	}
	return lost, unwanted, nil
}

// resultReason is the reason of the event of an operation result.
func resultReason(ts typeState) string {
	if ts.State == v1alpha1.MachineOperationStateFailed {
		return string(ts.Type) + "Failed"
	}
	return string(ts.Type) + "Succeeded"
}
