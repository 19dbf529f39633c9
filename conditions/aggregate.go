package conditions

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// maxAggregateGroups is how many groups of objects an aggregate message lists before it
	// ends with "and N more".
	maxAggregateGroups = 3
	// maxAggregateNames is how many objects a group names before it ends with "…".
	maxAggregateNames = 5
	// maxAggregateLineBytes bounds one line of an aggregate message.
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
// conditionType across the objects in from, e.g. the Ready conditions of a pool's Machines. The
// result has type conditionType unless TargetConditionType says otherwise. It does not modify
// from.
//
// Each object is, by its condition of type conditionType: missing: unknown ("not yet
// reported"); False, or True for a negative type (NegativePolarityConditionTypes): an issue;
// another True or False: fine; Unknown or any other status: unknown. The aggregate's status and
// reason follow NewSummaryCondition's rule, counting objects instead of types; an aggregate of
// no objects is Unknown/NoConditionsReported.
//
// The message counts the objects that are not fine, then lists them in groups of the same reason
// and message: issues first, then unknowns, the largest group first, then by reason and message;
// at most three groups, then "and N more". For example, with ObjectKind{"Machine", "Machines"}:
//
//	Ready is not True on 4 of 10 Machines: 2 False, 1 Unknown, 1 not yet reported
//	* NodeNotReady: 2 Machines (m1, m2): kubelet stopped posting node status
//	* NodeReadyUnknown: 1 Machine (m3)
//	* not yet reported: 1 Machine (m4)
//
// A group names at most five objects, sorted, then "…". Each line is cut to 1024 bytes, and the
// same objects in any order give the same condition. A misconfiguration returns an
// *AggregateConfigError: an invalid condition type or target type, a nil object, or an object
// that cannot be named.
func NewAggregateCondition[T Getter](from []T, conditionType string, opts ...AggregateOption) (*metav1.Condition, error) {
	o := (&AggregateOptions{}).ApplyOptions(opts)
	target := cmp.Or(o.TargetConditionType, conditionType)
	fail := func(format string, args ...any) error {
		return &AggregateConfigError{ConditionType: conditionType, Target: target, Problem: fmt.Sprintf(format, args...)}
	}
	if problems := typeProblems(conditionType); problems != "" {
		return nil, fail("invalid condition type: %s", problems)
	}
	if problems := typeProblems(target); problems != "" {
		return nil, fail("invalid target condition type: %s", problems)
	}
	negative := slices.Contains(o.NegativePolarityConditionTypes, conditionType)
	good, bad := metav1.ConditionTrue, metav1.ConditionFalse
	if negative {
		good, bad = bad, good
	}

	var t tally
	groups := map[groupKey][]string{}
	for i, obj := range from {
		if IsNil(obj) {
			return nil, fail("from[%d] is nil", i)
		}
		name, err := o.nameOf(obj)
		if err != nil {
			return nil, fail("cannot name from[%d]: %v", i, err)
		}
		c := meta.FindStatusCondition(obj.GetConditions(), conditionType)
		s := standingOf(c, negative)
		t.add(s)
		switch s {
		case notReported:
			k := groupKey{unknown: true, missing: true, label: notYetReportedText}
			groups[k] = append(groups[k], name)
		case issue, unknown:
			k := groupKey{unknown: s == unknown, label: groupLabel(c), message: c.Message}
			groups[k] = append(groups[k], name)
		}
	}

	out := &metav1.Condition{Type: target}
	out.Status, out.Reason = t.verdict()
	kind, kinds := cmp.Or(o.Kind, "object"), cmp.Or(o.KindPlural, "objects")
	noun := func(n int) string {
		if n == 1 {
			return kind
		}
		return kinds
	}
	count := func(n int) string { return fmt.Sprintf("%d %s", n, noun(n)) }
	switch out.Reason {
	case NoIssuesReportedReason:
		return out, nil
	case NoConditionsReportedReason:
		out.Message = TruncateTo(fmt.Sprintf("%s is not reported: there are no %s", conditionType, kinds), maxAggregateLineBytes)
		return out, nil
	}

	var counts []string
	for _, c := range []struct {
		n    int
		text string
	}{{t.issues, string(bad)}, {t.unknowns - t.missing, string(metav1.ConditionUnknown)}, {t.missing, notYetReportedText}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.text))
		}
	}
	notFine := t.issues + t.unknowns
	lines := []string{TruncateTo(fmt.Sprintf("%s is not %s on %d of %s: %s", conditionType, good, notFine, count(len(from)), strings.Join(counts, ", ")), maxAggregateLineBytes)}

	keys := slices.Collect(maps.Keys(groups))
	slices.SortFunc(keys, func(a, b groupKey) int {
		switch {
		case a.unknown != b.unknown:
			if a.unknown {
				return 1
			}
			return -1
		case len(groups[a]) != len(groups[b]):
			return len(groups[b]) - len(groups[a])
		case a.label != b.label:
			return strings.Compare(a.label, b.label)
		case a.missing != b.missing:
			if a.missing {
				return 1
			}
			return -1
		}
		return strings.Compare(a.message, b.message)
	})
	listed := 0
	for i, k := range keys {
		if i == maxAggregateGroups {
			rest := notFine - listed
			lines = append(lines, fmt.Sprintf("and %d more %s", rest, noun(rest)))
			break
		}
		names := groups[k]
		listed += len(names)
		lines = append(lines, TruncateTo(groupLine(k, names, count), maxAggregateLineBytes))
	}
	out.Message = TruncateMessage(strings.Join(lines, "\n"))
	return out, nil
}

// groupKey identifies a group of objects in an aggregate message: issues or unknowns, with the
// same reason and message, or all without the condition.
type groupKey struct {
	unknown, missing bool
	label, message   string
}

// groupLine is a group's line in the message, e.g.
// "* NodeNotReady: 2 Machines (m1, m2): kubelet stopped posting node status".
func groupLine(k groupKey, names []string, count func(int) string) string {
	slices.Sort(names)
	shown := strings.Join(names[:min(len(names), maxAggregateNames)], ", ")
	if len(names) > maxAggregateNames {
		shown += ", …"
	}
	line := fmt.Sprintf("* %s: %s (%s)", Sanitize(k.label), count(len(names)), shown)
	if k.message == "" {
		return line
	}
	// Other writers' text, escaped line by line; continuation lines (e.g. a summary's items)
	// are indented under the group.
	lines := strings.Split(k.message, "\n")
	for i := range lines {
		lines[i] = Sanitize(lines[i])
	}
	return line + ": " + strings.Join(lines, "\n  ")
}

// groupLabel names a group of objects whose condition is c: its reason, else its status.
func groupLabel(c *metav1.Condition) string {
	return cmp.Or(c.Reason, string(c.Status), "no status")
}

// nameOf names obj for a message: by ObjectName when set, else by its GetName method.
func (o *AggregateOptions) nameOf(obj any) (string, error) {
	if o.ObjectName != nil {
		name, ok := o.ObjectName(obj)
		if !ok {
			return "", fmt.Errorf("the ObjectName option does not take a %T", obj)
		}
		return name, nil
	}
	if n, ok := obj.(interface{ GetName() string }); ok {
		return n.GetName(), nil
	}
	return "", fmt.Errorf("%T has no GetName method (use WithObjectName)", obj)
}
