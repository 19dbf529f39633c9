package describe

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/machinestatus/machinestatus/aggregate"
)

// notWritten stands for a machinestatus Machine's phase or lastOperation its controller has
// not written.
const notWritten = "<not written yet: is the machinestatus manager running?>"

// labelWidth is the width of the field labels, as in kubectl describe.
const labelWidth = 16

// writeDescription prints one Machine for people, ages counted back from now: its identity,
// phase, lastOperation, and its conditions as a tree, problems first (type, status, reason,
// age; the message below, every line indented).
func writeDescription(b *strings.Builder, d Description, now time.Time) {
	// Every value is cleaned: names, reasons and messages come from other writers.
	field := func(label, value string) {
		fmt.Fprintf(b, "%-*s%s\n", labelWidth, label+":", clean(value))
	}
	// more prints further lines of the field above, aligned with its value.
	more := func(text string) {
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", labelWidth), clean(line))
		}
	}
	field("Name", d.Machine.Name)
	field("Namespace", d.Machine.Namespace)
	field("API", d.Machine.APIVersion+" "+d.Machine.Kind)
	if d.Cluster != "" {
		field("Cluster", d.Cluster)
	}
	field("Node", orNone(d.Node))
	if d.ProviderID != "" {
		field("Provider ID", d.ProviderID)
	}
	if d.Version != "" {
		field("Version", d.Version)
	}
	field("Created", ago(d.CreationTimestamp, now))
	if d.DeletionTimestamp != nil {
		field("Deletion", "requested "+ago(*d.DeletionTimestamp, now))
	}

	phase := string(d.Phase)
	if phase == "" {
		phase = notWritten
	}
	if d.Machine.APIVersion != MachinestatusMachines.GroupVersion().String() {
		if d.ClusterAPIPhase == "" {
			// A Machine Cluster API's controller has not reconciled yet (or an in-between state:
			// it writes status.phase in a patch of its own).
			phase += " (Cluster API reports no phase)"
		} else {
			phase += fmt.Sprintf(" (Cluster API says %s)", d.ClusterAPIPhase)
		}
	}
	field("Phase", phase)

	if op := d.LastOperation; op == nil {
		field("Last Operation", notWritten)
	} else {
		field("Last Operation", fmt.Sprintf("%s %s, %s", op.Type, op.State, ago(op.LastUpdated, now)))
		if op.Description != "" {
			more(op.Description)
		}
	}
	switch d.LastOperationSource {
	case LastOperationFromAnnotation:
		more(fmt.Sprintf("(derived from the conditions, with the history kept in annotation %s)", aggregate.LastOperationAnnotation))
	case LastOperationFromConditions:
		more(fmt.Sprintf("(derived from the conditions alone: no annotation %s keeps its history)", aggregate.LastOperationAnnotation))
	case LastOperationWhileCreating:
		more("(derived from the conditions: a Machine being created has no history yet)")
	}
	for i, warning := range d.Warnings {
		if i == 0 {
			field("Warnings", warning)
		} else {
			more(warning)
		}
	}

	if len(d.Conditions) == 0 {
		field("Conditions", "<none>")
		return
	}
	field("Conditions", fmt.Sprintf("%d %s, %d good", d.Problems, plural(d.Problems, "problem", "problems"),
		len(d.Conditions)-d.Problems))
	writeConditionTree(b, d.Conditions, now)
}

// writeConditionTree prints cs (problems first) as a two-level tree: a Problems and a Good
// branch, one aligned row per condition, its message lines below it.
func writeConditionTree(b *strings.Builder, cs []Condition, now time.Time) {
	var widthType, widthStatus, widthReason int
	cs = slices.Clone(cs)
	for i := range cs {
		c := &cs[i]
		c.Type, c.Reason, c.Status = clean(c.Type), clean(c.Reason), metav1.ConditionStatus(clean(string(c.Status)))
		widthType = max(widthType, utf8.RuneCountInString(c.Type))
		widthStatus = max(widthStatus, len(c.Status))
		widthReason = max(widthReason, utf8.RuneCountInString(c.Reason))
	}
	problems := 0
	for _, c := range cs {
		if c.Problem {
			problems++
		}
	}
	type branch struct {
		title string
		cs    []Condition
	}
	var branches []branch
	if problems > 0 {
		branches = append(branches, branch{"Problems", cs[:problems]})
	}
	if problems < len(cs) {
		branches = append(branches, branch{"Good", cs[problems:]})
	}
	for i, br := range branches {
		lastBranch := i == len(branches)-1
		head, indent := "  ├─ ", "  │  "
		if lastBranch {
			head, indent = "  └─ ", "     "
		}
		fmt.Fprintf(b, "%s%s\n", head, br.title)
		for j, c := range br.cs {
			lastRow := j == len(br.cs)-1
			row, cont := "├─ ", "│    "
			if lastRow {
				row, cont = "└─ ", "     "
			}
			line := fmt.Sprintf("%s%s%s  %s  %s  %s", indent, row,
				pad(c.Type, widthType), pad(string(c.Status), widthStatus), pad(c.Reason, widthReason),
				age(c.LastTransitionTime, now))
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			if c.Message == "" {
				continue
			}
			for _, msg := range strings.Split(strings.TrimRight(c.Message, "\n"), "\n") {
				b.WriteString(strings.TrimRight(indent+cont+clean(msg), " ") + "\n")
			}
		}
	}
}

// age says how long before now t was, as kubectl prints ages ("4m12s"); "<unknown>" for the
// zero time, "0s" for a time after now (clock skew).
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(max(0, now.Sub(t.Time)))
}

// ago is age followed by " ago", or "<unknown>".
func ago(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return age(t, now) + " ago"
}

// pad left-aligns s in width runes.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
