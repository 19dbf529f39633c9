package clusterapi

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Markers of the recorded table in docs/clusterapi.md.
const (
	tableBegin = "<!-- clusterapi-table:begin -->"
	tableEnd   = "<!-- clusterapi-table:end -->"
)

// tableConditions are the Cluster API conditions the table shows, in this order.
var tableConditions = []string{
	clusterv1.MachineBootstrapConfigReadyCondition,
	clusterv1.MachineInfrastructureReadyCondition,
	clusterv1.MachineNodeReadyCondition,
	clusterv1.MachineHealthCheckSucceededCondition,
	clusterv1.MachineDeletingCondition,
}

// Row is one settled step of the recorded table: Cluster API's side and ours.
type Row struct {
	// Step names the step.
	Step string
	// ClusterAPIPhase is Cluster API's status.phase.
	ClusterAPIPhase string
	// Conditions are Cluster API's tableConditions as "Type Status/Reason", joined by <br>.
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

// record makes the row of a settled step. Only what is the same on every run is kept: the
// description up to its first ": " (the rest quotes condition messages, which carry times), and
// no HealthCheckSucceeded under deletion.
func record(step string, m *clusterv1.Machine, view ourView) Row {
	var conds []string
	for _, t := range tableConditions {
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
	r := Row{Step: step, ClusterAPIPhase: m.Status.Phase, Conditions: strings.Join(conds, "<br>"), Phase: view.phase}
	if view.op != nil {
		r.LastOperation = fmt.Sprintf("%s %s", view.op.Type, view.op.State)
		r.Description, _, _ = strings.Cut(view.op.Description, ": ")
	}
	return r
}

// RenderTable renders the rows as the Markdown table docs/clusterapi.md shows between its
// markers.
func RenderTable(rows []Row) string {
	var b strings.Builder
	b.WriteString("| step | Cluster API `status.phase` | Cluster API conditions (status/reason) | machinestatus phase | lastOperation | description | difference |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		diff, phase := "—", string(r.Phase)
		if r.Difference != "" {
			diff = fmt.Sprintf("[%s](#%s)", r.Difference, anchor(r.Difference))
			phase = "**" + phase + "**"
		}
		fmt.Fprintf(&b, "| %d. %s | %s | %s | %s | %s | %s | %s |\n", i+1, r.Step, r.ClusterAPIPhase, r.Conditions, phase, r.LastOperation, r.Description, diff)
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

// readDocsTable returns the table between the markers of the file at path.
func readDocsTable(path string) (string, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	_, rest, ok := bytes.Cut(doc, []byte(tableBegin+"\n"))
	if !ok {
		return "", fmt.Errorf("%s has no %s", path, tableBegin)
	}
	table, _, ok := bytes.Cut(rest, []byte(tableEnd))
	if !ok {
		return "", fmt.Errorf("%s has no %s", path, tableEnd)
	}
	return string(table), nil
}

// writeDocsTable replaces the table between the markers of the file at path.
func writeDocsTable(path, table string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	before, rest, ok := bytes.Cut(doc, []byte(tableBegin+"\n"))
	if !ok {
		return fmt.Errorf("%s has no %s", path, tableBegin)
	}
	_, after, ok := bytes.Cut(rest, []byte(tableEnd))
	if !ok {
		return fmt.Errorf("%s has no %s", path, tableEnd)
	}
	// A new buffer: before and after share doc's memory.
	var out bytes.Buffer
	out.Write(before)
	out.WriteString(tableBegin + "\n" + table + tableEnd)
	out.Write(after)
	return os.WriteFile(path, out.Bytes(), 0o644)
}
