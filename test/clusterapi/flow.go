package clusterapi

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// A flow drives one pool (a MachineDeployment) through steps. Each step does something, then
// waits until the pool settles in the state it expects: its Machines, in groups, each in a
// Cluster API state, and as many Machines gone as it expects; every Machine unchanged for quiet
// and our manager caught up with each. The settled step is recorded as rows of a table (one per
// distinct row, with how many Machines it describes), and our side is compared with what the
// step wants.

// flow is a pool's scenario.
type flow struct {
	// name names the flow, its pool (MachineDeployment and SimMachineTemplate) and its docs
	// block (clusterapi-flow-NAME).
	name  string
	steps []flowStep
}

// flowStep is one step of a flow.
type flowStep struct {
	name string
	do   func(ctx context.Context, h *harness, pool string) error
	// expect are the groups the pool's Machines settle in; each Machine belongs to the first
	// group whose state it is in, and each group must hold exactly n.
	expect []group
	// gone is how many of the pool's Machines went away during the step.
	gone int
}

// group is what some of a pool's Machines must be at a settled step.
type group struct {
	n int
	// state is Cluster API's state the Machines must be in.
	state func(*clusterv1.Machine) bool
	// op and cause are ours: the lastOperation's type and state, and for a Delete operation
	// the deletion cause (the annotation's reason).
	op    typeState
	cause string
}

// flowRow is a row of a flow's table: a settled step's distinct state and how many of the
// pool's Machines are in it.
type flowRow struct {
	Step     string
	Machines int
	// Gone is true for the row of the Machines that went away during the step.
	Gone bool
	Row
	Cause string
}

// flowResult is what running a flow recorded, and what our side got wrong.
type flowResult struct {
	rows []flowRow
	// mismatches are the settled steps where our side was not what the step wants, or a
	// difference from Cluster API's phase the docs do not justify.
	mismatches []string
}

// run drives the flow's pool through its steps. The error is for what kept the flow from
// running (a step that did not settle, a failed request).
func (f flow) run(ctx context.Context, h *harness, out io.Writer) (flowResult, error) {
	var res flowResult
	p := &poolWatch{h: h, pool: f.name, seen: map[string]bool{}, ended: map[string]bool{}}
	for i, s := range f.steps {
		label := fmt.Sprintf("%d. %s", i+1, s.name)
		if s.do != nil {
			if err := s.do(ctx, h, f.name); err != nil {
				return res, fmt.Errorf("flow %s, step %s: %w", f.name, label, err)
			}
		}
		groups, err := p.settle(ctx, s)
		if err != nil {
			return res, fmt.Errorf("flow %s, step %s: %w", f.name, label, err)
		}
		rows, mismatches := s.record(label, groups)
		res.rows = append(res.rows, rows...)
		res.mismatches = append(res.mismatches, mismatches...)
		fmt.Fprintf(out, "flow %s: settled at step %s\n", f.name, label)
	}
	return res, nil
}

// observed is one Machine of a settled step.
type observed struct {
	m    *clusterv1.Machine
	view ourView
}

// poolWatch follows a pool's Machines from step to step.
type poolWatch struct {
	h    *harness
	pool string
	// seen are the names of every Machine of the pool seen so far; ended those that went away
	// before the last settled step.
	seen, ended map[string]bool
}

// settle waits until the pool is as the step expects and unchanged for quiet, with our manager
// caught up with every Machine, and returns its Machines by group.
func (p *poolWatch) settle(ctx context.Context, s flowStep) ([][]observed, error) {
	var (
		groups    [][]observed
		gone      []string
		signature string
		since     time.Time
		lastSeen  string
	)
	err := wait.PollUntilContextTimeout(ctx, poll, stepTimeout, true, func(ctx context.Context) (bool, error) {
		ms, err := p.h.poolMachines(ctx, p.pool)
		if err != nil {
			return false, err
		}
		now := map[string]bool{}
		sig := make([]string, 0, len(ms))
		for _, m := range ms {
			now[m.Name], p.seen[m.Name] = true, true
			sig = append(sig, m.Name+"@"+m.ResourceVersion)
		}
		gone = gone[:0]
		for name := range p.seen {
			if !now[name] && !p.ended[name] {
				gone = append(gone, name)
			}
		}
		got, settled := assign(ms, s.expect)
		lastSeen = describePool(ms, len(gone))
		if got == nil || len(gone) != s.gone {
			signature = ""
			return false, nil
		}
		if sg := strings.Join(sig, " "); sg != signature {
			signature, since = sg, time.Now()
			return false, nil
		}
		if !settled || time.Since(since) < quiet {
			return false, nil
		}
		groups = got
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("not settled (last seen: %s): %w", lastSeen, err)
	}
	for _, name := range gone {
		p.ended[name] = true
	}
	return groups, nil
}

// assign puts each Machine in the first group whose state it is in; it returns nil unless
// every Machine has a group and each group holds exactly as many as it expects, and whether
// our manager has caught up with every Machine.
func assign(ms []clusterv1.Machine, expect []group) ([][]observed, bool) {
	groups := make([][]observed, len(expect))
	settled := true
	for i := range ms {
		m := &ms[i]
		found := false
		for g := range expect {
			if expect[g].state(m) {
				v := viewOf(m)
				settled = settled && v.settled
				groups[g] = append(groups[g], observed{m: m, view: v})
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	for g := range expect {
		if len(groups[g]) != expect[g].n {
			return nil, false
		}
	}
	return groups, settled
}

// describePool says, for a message, what the pool's Machines were last seen as.
func describePool(ms []clusterv1.Machine, gone int) string {
	parts := make([]string, 0, len(ms)+1)
	for i := range ms {
		m := &ms[i]
		v := viewOf(m)
		parts = append(parts, fmt.Sprintf("%s: phase %q, conditions %s; ours %s (settled %t)",
			m.Name, m.Status.Phase, conditionsOf(m), describeOp(v.op), v.settled))
	}
	parts = append(parts, fmt.Sprintf("%d gone", gone))
	return strings.Join(parts, "; ")
}

// record returns the rows of a settled step, and where our side is not what the step wants.
func (s flowStep) record(label string, groups [][]observed) ([]flowRow, []string) {
	var rows []flowRow
	var mismatches []string
	for g, obs := range groups {
		want := s.expect[g]
		for _, o := range obs {
			r := flowRow{Step: label, Machines: 1, Row: recordRow(flowConditions, o.m, o.view), Cause: o.view.cause}
			var ok bool
			r.Difference, ok = justification(r.ClusterAPIPhase, o.view.phase)
			if !ok {
				mismatches = append(mismatches, fmt.Sprintf("step %s: our phase %s, Cluster API's %s: a difference docs/clusterapi.md does not justify", label, o.view.phase, r.ClusterAPIPhase))
			}
			if p := causeProblem(o.view.cause); p != "" {
				mismatches = append(mismatches, fmt.Sprintf("step %s: %s", label, p))
			}
			wantCause := ""
			if want.op.Type == v1alpha1.MachineOperationDelete {
				wantCause = want.cause
			}
			if got := typeStateOf(o.view.op); got != want.op || o.view.cause != wantCause {
				mismatches = append(mismatches, fmt.Sprintf("step %s: our lastOperation %s (deletion cause %q), want %s (deletion cause %q)",
					label, describeOp(o.view.op), o.view.cause, want.op, wantCause))
			}
			if i := slices.IndexFunc(rows, func(x flowRow) bool { return x.Row == r.Row && x.Cause == r.Cause }); i >= 0 {
				rows[i].Machines++
				continue
			}
			rows = append(rows, r)
		}
	}
	if s.gone > 0 {
		rows = append(rows, flowRow{Step: label, Machines: s.gone, Gone: true})
	}
	return rows, mismatches
}

// renderFlowTable renders a flow's rows as the Markdown table of its docs block.
func renderFlowTable(rows []flowRow) string {
	var b strings.Builder
	b.WriteString("| step | Machines | Cluster API `status.phase` | Cluster API conditions (status/reason) | machinestatus phase | lastOperation | deletion cause | difference |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	last := ""
	for _, r := range rows {
		step := r.Step
		if step == last {
			step = ""
		}
		last = r.Step
		if r.Gone {
			fmt.Fprintf(&b, "| %s | %d | gone | | | | | |\n", step, r.Machines)
			continue
		}
		diff, phase := "—", string(r.Phase)
		if r.Difference != "" {
			diff = fmt.Sprintf("[%s](#%s)", r.Difference, anchor(r.Difference))
			phase = "**" + phase + "**"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", step, r.Machines, r.ClusterAPIPhase, r.Conditions, phase, r.LastOperation, r.Cause, diff)
	}
	return b.String()
}

// States of Cluster API's Machines that flows wait for.

func conditionIs(m *clusterv1.Machine, t string, s metav1.ConditionStatus) bool {
	return hasCondition(m, t, s, "")
}

// running: Running with a Ready Node; with a MachineHealthCheck, also its check passed.
func running(healthChecked bool) func(*clusterv1.Machine) bool {
	return func(m *clusterv1.Machine) bool {
		return m.DeletionTimestamp == nil && m.Status.Phase == string(clusterv1.MachinePhaseRunning) &&
			conditionIs(m, clusterv1.MachineNodeReadyCondition, metav1.ConditionTrue) &&
			(!healthChecked || conditionIs(m, clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue))
	}
}

// upToDate: running, and up to date (or not) with its MachineDeployment.
func upToDate(healthChecked, is bool) func(*clusterv1.Machine) bool {
	status := metav1.ConditionFalse
	if is {
		status = metav1.ConditionTrue
	}
	return func(m *clusterv1.Machine) bool {
		return running(healthChecked)(m) && conditionIs(m, clusterv1.MachineUpToDateCondition, status)
	}
}

// provisionedNoNode: infrastructure provisioned, no Node.
func provisionedNoNode(m *clusterv1.Machine) bool {
	return m.DeletionTimestamp == nil && m.Status.Phase == string(clusterv1.MachinePhaseProvisioned) &&
		conditionIs(m, clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue) && m.Status.NodeRef.Name == ""
}

// deletingAt: being deleted, Cluster API's Deleting condition at reason.
func deletingAt(reason string) func(*clusterv1.Machine) bool {
	return func(m *clusterv1.Machine) bool {
		return m.DeletionTimestamp != nil && hasCondition(m, clusterv1.MachineDeletingCondition, metav1.ConditionTrue, reason)
	}
}

// deletedKept: Cluster API is done deleting (its finalizer removed); the test's keeps it.
func deletedKept(m *clusterv1.Machine) bool {
	return deletingAt(clusterv1.MachineDeletingDeletionCompletedReason)(m) && !slices.Contains(m.Finalizers, clusterv1.MachineFinalizer)
}
