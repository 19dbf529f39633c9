package describe

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// Values of get --group-by.
const (
	groupByPool    = "pool"
	groupByCluster = "cluster"
	groupByOwner   = "owner"
	groupByLabel   = "label"
)

// DefaultRecent is --recent's default: how far back Events count as recent failures.
const DefaultRecent = 30 * time.Minute

// groupFlags are the flags of the grouped views.
type groupFlags struct {
	// by is get's --group-by: pool, cluster, owner or label=KEY.
	by string
	// expand prints every Machine on a line of its own.
	expand bool
	// recent is how far back Events count.
	recent time.Duration
}

// addFlags adds get's --group-by and the tree's flags.
func (g *groupFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&g.by, "group-by", "", "Print a tree of groups with a summary line each: pool, cluster, owner (controller owner reference) or label=KEY (reads every page first).")
	g.addTreeFlags(fs)
}

// addTreeFlags adds --expand and --recent.
func (g *groupFlags) addTreeFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&g.expand, "expand", false, "In a tree, print every Machine on a line of its own instead of one line for like Machines.")
	fs.DurationVar(&g.recent, "recent", DefaultRecent, "In a tree, count the failures Events recorded this far back, Machines since gone included.")
}

// machineLine is what a tree keeps of one Machine: strings and counts only.
type machineLine struct {
	namespace, name string
	// owner is the controller owner's Kind/name ("" without one).
	owner               string
	phase               v1alpha1.MachinePhase
	opType, opState     string
	since               time.Time
	problem, problemKey string
	running, failed     bool
	deleting            bool
	deletingCause       string
	upToDate            string // Cluster API's UpToDate status, "" unknown
	cluster, pool       string
	// set and controlPlane are a Cluster API Machine's MachineSet and control plane labels.
	set, controlPlane string
}

// lineOf returns the line of Machine m, described as d; poolLabel names a machinestatus
// Machine's pool.
func lineOf(m Machine, d Description, poolLabel string) machineLine {
	obj := m.object()
	l := machineLine{namespace: obj.GetNamespace(), name: obj.GetName(), phase: d.Phase, cluster: d.Cluster}
	if m.ClusterAPI != nil {
		l.pool = aggregate.Pool(obj.GetLabels(), "")
		l.set = obj.GetLabels()[clusterv1.MachineSetNameLabel]
		l.controlPlane = obj.GetLabels()[clusterv1.MachineControlPlaneNameLabel]
		if c := condition(d, "UpToDate"); c != nil {
			l.upToDate = string(c.Status)
		}
	} else {
		l.cluster = aggregate.Cluster("", obj.GetLabels())
		l.pool = aggregate.Pool(obj.GetLabels(), poolLabel)
	}
	if ref := metav1.GetControllerOf(obj); ref != nil {
		l.owner = ref.Kind + "/" + ref.Name
	}
	if op := d.LastOperation; op != nil {
		l.opType, l.opState, l.since = string(op.Type), string(op.State), op.LastUpdated.Time
	}
	l.running = d.Phase == v1alpha1.MachinePhaseRunning
	l.failed = d.Phase == v1alpha1.MachinePhaseFailed
	l.deleting = d.Phase == v1alpha1.MachinePhaseDeleting || d.DeletionTimestamp != nil
	if l.deleting {
		l.deletingCause = deletionCause(d)
	}
	if c := firstProblem(d); c != nil {
		l.problemKey = c.Type + " " + c.Reason
		l.problem = c.Type + " " + c.Reason
		if msg := conditions.CollapseSpace(conditions.OneLine(c.Message)); msg != "" {
			l.problem += ": " + truncateRunes(msg, 100)
		}
	}
	return l
}

// deletionCause says why a deleting Machine goes: "remediation" when a health check failed it
// (HealthCheckSucceeded False, or OwnerRemediated set), "rollout" when it is not up to date,
// else "".
func deletionCause(d Description) string {
	if c := condition(d, v1alpha1.MachineHealthCheckSucceededCondition); c != nil && c.Status == metav1.ConditionFalse {
		return "remediation"
	}
	if condition(d, "OwnerRemediated") != nil {
		return "remediation"
	}
	if c := condition(d, "UpToDate"); c != nil && c.Status == metav1.ConditionFalse {
		return "rollout"
	}
	return ""
}

// firstProblem is d's first problem that is not a summary (Ready, Available), else Ready when
// it is a problem, else nil.
func firstProblem(d Description) *Condition {
	var summary *Condition
	for i := range d.Conditions {
		c := &d.Conditions[i]
		if !c.Problem {
			continue
		}
		if c.Type == v1alpha1.MachineReadyCondition || c.Type == "Available" {
			if summary == nil {
				summary = c
			}
			continue
		}
		return c
	}
	return summary
}

// truncateRunes cuts s to n runes, ending in "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// groupKey returns l's group under get's --group-by by (validated), and the group's title.
func groupKey(l machineLine, by string, labelsOf map[string]string) (key, title string) {
	kind, labelKey, _ := strings.Cut(by, "=")
	var name string
	switch kind {
	case groupByPool:
		name = orNone(l.pool)
		if l.cluster != "" {
			title = "Pool " + l.cluster + "/" + name
		} else {
			title = "Pool " + name
		}
	case groupByCluster:
		name = orNone(l.cluster)
		title = "Cluster " + name
	case groupByOwner:
		name = orNone(l.owner)
		title = "Owner " + name
	case groupByLabel:
		name = orNone(labelsOf[labelKey])
		title = labelKey + "=" + name
	}
	return l.namespace + "/" + kind + "/" + l.cluster + "/" + name, title
}

// checkGroupBy returns a *UsageError for a wrong --group-by.
func checkGroupBy(by string) error {
	kind, key, hasKey := strings.Cut(by, "=")
	switch {
	case kind == groupByLabel && hasKey && key != "":
		return nil
	case !hasKey && (kind == groupByPool || kind == groupByCluster || kind == groupByOwner):
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("unknown --group-by %q: use pool, cluster, owner or label=KEY", by)}
}

// failureCount is how many Machines of a group a recent Event says failed an operation.
type failureCount struct {
	op       v1alpha1.MachineOperationType
	machines []string
}

// poolSummary returns the summary line of the Machines ls of a group, with desired (0:
// unknown) replicas and the recent failures, as cells of one style each, joined by " · ".
func poolSummary(ls []machineLine, desired int32, failures []failureCount, recent time.Duration) cell {
	n := len(ls)
	total := n
	if desired > 0 {
		total = int(desired)
	}
	running, failed, upToDate, notUpToDate := 0, 0, 0, 0
	deleting := map[string]int{}
	deletingN := 0
	others := map[v1alpha1.MachinePhase]int{}
	for _, l := range ls {
		switch {
		case l.deleting:
			deletingN++
			deleting[l.deletingCause]++
		case l.running:
			running++
		case l.failed:
			failed++
		default:
			others[l.phase]++
		}
		switch l.upToDate {
		case "True":
			upToDate++
		case "False":
			notUpToDate++
		}
	}
	var parts []string
	st := good
	parts = append(parts, fmt.Sprintf("%d/%d Running", running, total))
	if running < total {
		st = warn
	}
	if notUpToDate > 0 {
		parts = append(parts, fmt.Sprintf("rollout %d/%d up to date", upToDate, n))
	}
	if deletingN > 0 {
		var causes []string
		for c := range deleting {
			if c != "" {
				causes = append(causes, c)
			}
		}
		slices.Sort(causes)
		s := fmt.Sprintf("%d Deleting", deletingN)
		if len(causes) > 0 {
			s += " (" + strings.Join(causes, ", ") + ")"
		}
		parts = append(parts, s)
	}
	phases := make([]string, 0, len(others))
	for p := range others {
		phases = append(phases, string(p))
	}
	slices.Sort(phases)
	for _, p := range phases {
		parts = append(parts, fmt.Sprintf("%d %s", others[v1alpha1.MachinePhase(p)], p))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d Failed", failed))
		st = bad
	}
	for _, f := range failures {
		parts = append(parts, fmt.Sprintf("%d %s Failed in the last %s", len(f.machines), f.op, duration.HumanDuration(recent)))
		st = bad
	}
	return cell{text: strings.Join(parts, " · "), style: st}
}

// treeNode is one line of a tree and its children.
type treeNode struct {
	// name is the node's label (an object Kind/name, a Machine's name, "3 Machines").
	name string
	// cells are PHASE, LAST-OP, IN-STEP and DETAILS.
	cells    [4]cell
	children []*treeNode
}

// treeHeaders are the columns of a tree.
var treeHeaders = []string{"NAME", "PHASE", "LAST-OP", "IN-STEP", "DETAILS"}

// machineNodes returns the nodes of the Machines ls: one per Machine with expand, else one per
// set of like Machines (same phase, lastOperation and first problem), problems first.
func machineNodes(ls []machineLine, expand bool, now time.Time) []*treeNode {
	type set struct {
		ls  []machineLine
		key string
	}
	var sets []*set
	byKey := map[string]*set{}
	for _, l := range ls {
		key := string(l.phase) + "|" + l.opType + " " + l.opState + "|" + l.problemKey
		if expand {
			key = l.namespace + "/" + l.name
		}
		s := byKey[key]
		if s == nil {
			s = &set{key: key}
			byKey[key] = s
			sets = append(sets, s)
		}
		s.ls = append(s.ls, l)
	}
	rank := func(s *set) int {
		l := s.ls[0]
		switch {
		case l.failed || l.opState == string(v1alpha1.MachineOperationStateFailed):
			return 0
		case l.problem != "":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(sets, func(a, b *set) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.ls[0].name, b.ls[0].name)
	})
	nodes := make([]*treeNode, 0, len(sets))
	for _, s := range sets {
		l := s.ls[0]
		name := clean(l.name)
		problem := l.problem
		var longest time.Duration
		for _, x := range s.ls {
			if !x.since.IsZero() {
				longest = max(longest, now.Sub(x.since))
			}
		}
		if len(s.ls) > 1 {
			name = fmt.Sprintf("%d Machines", len(s.ls))
			problem = l.problemKey
		}
		inStep := ""
		if longest > 0 {
			inStep = duration.HumanDuration(longest)
		}
		opStyle := plain
		if l.opState == string(v1alpha1.MachineOperationStateFailed) {
			opStyle = bad
		}
		detailStyle := plain
		if problem != "" {
			detailStyle = warn
		}
		nodes = append(nodes, &treeNode{name: name, cells: [4]cell{
			{text: clean(string(l.phase)), style: phaseStyle(l.phase)},
			{text: clean(strings.TrimSpace(l.opType + " " + l.opState)), style: opStyle},
			{text: inStep},
			{text: clean(problem), style: detailStyle},
		}})
	}
	return nodes
}

// node returns the node of a group named name: the summary of its Machines ls (of desired
// replicas, 0: unknown, and the recent failures), and the Machines below it.
func (g groupFlags) node(name string, ls []machineLine, desired int32, failures []failureCount, now time.Time) *treeNode {
	n := &treeNode{name: name, children: machineNodes(ls, g.expand, now)}
	n.cells[3] = poolSummary(ls, desired, failures, g.recent)
	return n
}

// writeTree renders roots as a table whose NAME column draws the tree.
func writeTree(roots []*treeNode) *textTable {
	t := &textTable{headers: treeHeaders}
	var walk func(n *treeNode, prefix, branch string)
	walk = func(n *treeNode, prefix, branch string) {
		row := []cell{{text: prefix + branch + n.name}}
		row = append(row, n.cells[:]...)
		t.rows = append(t.rows, row)
		childPrefix := prefix
		switch branch {
		case "├─ ":
			childPrefix += "│  "
		case "└─ ":
			childPrefix += "   "
		}
		for i, c := range n.children {
			b := "├─ "
			if i == len(n.children)-1 {
				b = "└─ "
			}
			walk(c, childPrefix, b)
		}
	}
	for _, r := range roots {
		walk(r, "", "")
	}
	return t
}
