package clusterapi

import (
	"fmt"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// lifecycleConditions are the Cluster API conditions the lifecycle table shows, in this order.
var lifecycleConditions = []string{
	clusterv1.MachineBootstrapConfigReadyCondition,
	clusterv1.MachineInfrastructureReadyCondition,
	clusterv1.MachineNodeReadyCondition,
	clusterv1.MachineHealthCheckSucceededCondition,
	clusterv1.MachineDeletingCondition,
}

// flowConditions are those the flows' tables show: the bootstrap data is always given, and a
// MachineDeployment's Machines are up to date with it or not.
var flowConditions = []string{
	clusterv1.MachineInfrastructureReadyCondition,
	clusterv1.MachineNodeReadyCondition,
	clusterv1.MachineHealthCheckSucceededCondition,
	clusterv1.MachineUpToDateCondition,
	clusterv1.MachineDeletingCondition,
}

// Row is one settled state of a Machine: Cluster API's side and ours.
type Row struct {
	// ClusterAPIPhase is Cluster API's status.phase.
	ClusterAPIPhase string
	// Conditions are the Cluster API conditions the table shows, as "Type Status/Reason",
	// joined by <br>.
	Conditions string
	// Phase is ours.
	Phase v1alpha1.MachinePhase
	// LastOperation is our lastOperation's "Type State"; Description its description up to the
	// first ": ".
	LastOperation string
	Description   string
	// Difference is the docs/clusterapi.md section that justifies a different phase ("" when
	// the phases agree or no section does).
	Difference string
}

// recordRow makes the row of a settled Machine. Only what is the same on every run is kept:
// the description up to its first ": " (the rest quotes condition messages, which carry times),
// and no HealthCheckSucceeded under deletion.
func recordRow(conditions []string, m *clusterv1.Machine, view ourView) Row {
	var conds []string
	for _, t := range conditions {
		if t == clusterv1.MachineHealthCheckSucceededCondition && m.DeletionTimestamp != nil {
			// Under deletion the MachineHealthCheck may or may not act before Cluster API
			// removes its finalizer (True on one run, False/NodeDeleted on another), and
			// neither side's phase reads it then.
			continue
		}
		for _, c := range m.Status.Conditions {
			if c.Type == t {
				conds = append(conds, fmt.Sprintf("%s %s/%s", t, c.Status, c.Reason))
			}
		}
	}
	r := Row{ClusterAPIPhase: m.Status.Phase, Conditions: strings.Join(conds, "<br>"), Phase: view.phase}
	if view.op != nil {
		r.LastOperation = fmt.Sprintf("%s %s", view.op.Type, view.op.State)
		r.Description, _, _ = strings.Cut(view.op.Description, ": ")
	}
	return r
}

// LifecycleRow is a row of the lifecycle table: a settled step of the worker Machine.
type LifecycleRow struct {
	Step string
	Row
	// Cause is the annotation's deletion cause.
	Cause string
}

// RenderTable renders the lifecycle's rows as the Markdown table of docs/clusterapi.md.
func RenderTable(rows []LifecycleRow) string {
	var b strings.Builder
	b.WriteString("| step | Cluster API `status.phase` | Cluster API conditions (status/reason) | machinestatus phase | lastOperation | description | deletion cause | difference |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		diff, phase := "—", string(r.Phase)
		if r.Difference != "" {
			diff = fmt.Sprintf("[%s](#%s)", r.Difference, anchor(r.Difference))
			phase = "**" + phase + "**"
		}
		fmt.Fprintf(&b, "| %d. %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, r.Step, r.ClusterAPIPhase, r.Conditions, phase, r.LastOperation, r.Description, r.Cause, diff)
	}
	return b.String()
}

// anchor is GitHub's anchor of a heading.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}
