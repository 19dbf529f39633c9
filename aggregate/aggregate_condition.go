package aggregate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

const (
	// maxAggregateGroups is how many groups of objects an aggregate message lists before it
	// ends with "and N more".
	maxAggregateGroups = 3

	// maxAggregateNames is how many objects a group names before it ends with "…".
	maxAggregateNames = 5

	// maxAggregateLineBytes bounds one line of an aggregate message. With the header,
	// maxAggregateGroups lines and the "and N more" line, a message stays far below
	// conditions.MaxMessageBytes however many objects there are.
	maxAggregateLineBytes = 1024
)

// AggregateConfigError says why an aggregate cannot be computed: the options or the objects
// given are inconsistent. It is a programming error in the caller.
type AggregateConfigError struct {
	// ConditionType is the type aggregated.
	ConditionType string
	// Target is the type of the aggregate that was asked for.
	Target string
	// Problem says what is wrong.
	Problem string
}

// Error implements error.
func (e *AggregateConfigError) Error() string {
	return fmt.Sprintf("cannot aggregate condition %q into %q: %s", e.ConditionType, e.Target, e.Problem)
}

// NewAggregateCondition computes one condition that aggregates the condition of type
// conditionType across the objects in from, e.g. the Ready conditions of the Machines of a
// pool. The result has type conditionType unless TargetConditionType says otherwise. It does
// not modify from.
//
// Each object is classified by its condition of type conditionType:
//   - missing: unknown ("not yet reported");
//   - False, or True for a negative type (conditionType listed in
//     NegativePolarityConditionTypes): an issue;
//   - otherwise True or False: fine;
//   - Unknown, or any other status: unknown.
//
// The aggregate is, first match wins:
//   - False when at least one object has an issue: reason IssueReported (one object) or
//     MultipleIssuesReported (several);
//   - Unknown when at least one object is unknown: reason NotYetReported (the only one has
//     no such condition), UnknownReported (the only one has it) or MultipleUnknownReported;
//   - Unknown with reason NoConditionsReported when from is empty (an aggregate of nothing is
//     never True);
//   - True with reason NoIssuesReported and an empty message otherwise.
//
// The message counts the objects that are not fine by status, then lists them in groups of
// the same reason and message: issues first, then unknowns, each the largest group first,
// then by reason and message; at most three groups, then "and N more" objects. For example,
// with ObjectKind("Machine", "Machines"):
//
//	Ready is not True on 4 of 10 Machines: 2 False, 1 Unknown, 1 not yet reported
//	* NodeNotReady: 2 Machines (m1, m2): kubelet stopped posting node status
//	* NodeReadyUnknown: 1 Machine (m3)
//	* not yet reported: 1 Machine (m4)
//
// A group names at most five objects, sorted, then "…". Each line is cut at a UTF-8 boundary
// to 1024 bytes, so the message stays far below the API server's 32768 bytes for any number
// of objects, and the same objects in any order give the same condition.
//
// The returned condition has Type, Status, Reason and Message set; ObservedGeneration and
// LastTransitionTime are left zero for conditions.Set to fill. A misconfiguration returns an
// *AggregateConfigError: an invalid condition type or target type, a nil object, or an object
// that cannot be named (it has no GetName method and WithObjectName is not given, or
// WithObjectName takes another type).
func NewAggregateCondition[T conditions.Getter](from []T, conditionType string, opts ...AggregateOption) (*metav1.Condition, error) {
	o := (&AggregateOptions{}).ApplyOptions(opts)
	target := o.TargetConditionType
	if target == "" {
		target = conditionType
	}
	configError := func(format string, args ...any) error {
		return &AggregateConfigError{ConditionType: conditionType, Target: target, Problem: fmt.Sprintf(format, args...)}
	}
	if problems := typeProblems(conditionType); problems != "" {
		return nil, configError("invalid condition type: %s", problems)
	}
	if problems := typeProblems(target); problems != "" {
		return nil, configError("invalid target condition type: %s", problems)
	}
	negative := slices.Contains(o.NegativePolarityConditionTypes, conditionType)
	bad, good := metav1.ConditionFalse, metav1.ConditionTrue
	if negative {
		bad, good = good, bad
	}

	var t tally
	groups := map[groupKey]*objectGroup{}
	for i, obj := range from {
		if conditions.IsNil(obj) {
			return nil, configError("from[%d] is nil", i)
		}
		name, err := o.nameOf(obj)
		if err != nil {
			return nil, configError("cannot name from[%d]: %v", i, err)
		}
		c := meta.FindStatusCondition(obj.GetConditions(), conditionType)
		s := standingOf(c, negative)
		t.add(s)
		var key groupKey
		switch s {
		case fine:
			continue
		case notReported:
			key = groupKey{unknown: true, missing: true, label: notYetReportedText}
		case issue:
			key = groupKey{label: label(c), message: c.Message}
		default:
			key = groupKey{unknown: true, label: label(c), message: c.Message}
		}
		g := groups[key]
		if g == nil {
			g = &objectGroup{key: key}
			groups[key] = g
		}
		g.names = append(g.names, name)
	}

	kind, kinds := o.Kind, o.KindPlural
	if kind == "" {
		kind = "object"
	}
	if kinds == "" {
		kinds = "objects"
	}
	noun := func(n int) string { return pick(n == 1, kind, kinds) }
	count := func(n int) string { return fmt.Sprintf("%d %s", n, noun(n)) }

	out := &metav1.Condition{Type: target}
	out.Status, out.Reason = t.verdict()
	switch out.Reason {
	case NoIssuesReportedReason:
		return out, nil
	case NoConditionsReportedReason:
		out.Message = conditions.TruncateTo(fmt.Sprintf("%s is not reported: there are no %s", conditionType, kinds), maxAggregateLineBytes)
		return out, nil
	}

	notFine := t.issues + t.unknowns
	var counts []string
	for _, c := range []struct {
		n    int
		text string
	}{{t.issues, string(bad)}, {t.unknowns - t.missing, string(metav1.ConditionUnknown)}, {t.missing, notYetReportedText}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.text))
		}
	}
	header := fmt.Sprintf("%s is not %s on %d of %s: %s", conditionType, good, notFine, count(len(from)), strings.Join(counts, ", "))
	lines := []string{conditions.TruncateTo(header, maxAggregateLineBytes)}

	sorted := make([]*objectGroup, 0, len(groups))
	for _, g := range groups {
		sorted = append(sorted, g)
	}
	slices.SortFunc(sorted, compareGroups)
	listed := 0
	for i, g := range sorted {
		if i == maxAggregateGroups {
			rest := notFine - listed
			lines = append(lines, fmt.Sprintf("and %d more %s", rest, noun(rest)))
			break
		}
		listed += len(g.names)
		lines = append(lines, conditions.TruncateTo(g.line(count), maxAggregateLineBytes))
	}
	out.Message = conditions.TruncateMessage(strings.Join(lines, "\n"))
	return out, nil
}

// groupKey identifies a group of objects in an aggregate message: issues or unknowns, with the
// same reason and message, or all without the condition.
type groupKey struct {
	unknown bool
	missing bool
	label   string
	message string
}

// objectGroup is the names of the objects of one group.
type objectGroup struct {
	key   groupKey
	names []string
}

// compareGroups orders groups: issues before unknowns, then the largest first, then by label
// and message.
func compareGroups(a, b *objectGroup) int {
	switch {
	case a.key.unknown != b.key.unknown:
		return pickInt(a.key.unknown, 1, -1)
	case len(a.names) != len(b.names):
		return len(b.names) - len(a.names)
	case a.key.label != b.key.label:
		return strings.Compare(a.key.label, b.key.label)
	case a.key.missing != b.key.missing:
		return pickInt(a.key.missing, 1, -1)
	}
	return strings.Compare(a.key.message, b.key.message)
}

// line is the group's line in the message, e.g.
// "* NodeNotReady: 2 Machines (m1, m2): kubelet stopped posting node status".
func (g *objectGroup) line(count func(int) string) string {
	slices.Sort(g.names)
	names := g.names[:min(len(g.names), maxAggregateNames)]
	more := pick(len(g.names) > maxAggregateNames, ", …", "")
	line := fmt.Sprintf("* %s: %s (%s%s)", g.key.label, count(len(g.names)), strings.Join(names, ", "), more)
	if g.key.message == "" {
		return line
	}
	// Indent continuation lines (e.g. a summary's items) under the group.
	return line + ": " + strings.ReplaceAll(g.key.message, "\n", "\n  ")
}

// label is what a group of objects whose condition is c is called: its reason, else its status.
func label(c *metav1.Condition) string {
	if c.Reason != "" {
		return c.Reason
	}
	if c.Status != "" {
		return string(c.Status)
	}
	return "no status"
}

// nameOf names obj for a message: by ObjectName when set, else by its GetName method.
func (o *AggregateOptions) nameOf(obj any) (string, error) {
	if o.ObjectName != nil {
		name, ok := o.ObjectName(obj)
		if !ok {
			return "", fmt.Errorf("the WithObjectName function does not take a %T", obj)
		}
		return name, nil
	}
	if n, ok := obj.(interface{ GetName() string }); ok {
		return n.GetName(), nil
	}
	return "", fmt.Errorf("%T has no GetName method (use WithObjectName)", obj)
}

func pickInt(cond bool, a, b int) int {
	if cond {
		return a
	}
	return b
}
