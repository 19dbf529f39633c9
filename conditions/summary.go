package conditions

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// maxSummaryItems is how many contributing conditions a summary message lists before it
	// ends with "and N more".
	maxSummaryItems = 3
	// maxSummaryItemBytes bounds one item of a summary message ("<Type>: <text>").
	maxSummaryItemBytes = 512
	// notYetReportedText is the text of a missing condition in a summary message.
	notYetReportedText = "not yet reported"
)

// SummaryConfigError says why a summary cannot be computed: the options are inconsistent. It is
// a programming error in the caller, never a property of the object summarized.
type SummaryConfigError struct {
	// Target is the type of the summary condition that was asked for.
	Target string
	// Problem says what is wrong with the configuration.
	Problem string
}

// Error implements error.
func (e *SummaryConfigError) Error() string {
	return fmt.Sprintf("cannot summarize conditions into %q: %s", e.Target, e.Problem)
}

// NewSummaryCondition computes a condition of type target that summarizes the conditions of
// from whose types are in scope (ForConditionTypes). It does not modify from.
//
// Each type in scope (a repeated type counts once) is:
//   - missing: skipped when listed in IgnoreTypesIfMissing, else unknown ("not yet reported");
//   - False, or True for a type listed in NegativePolarityConditionTypes: an issue;
//   - Unknown, or any status but True and False: unknown;
//   - otherwise fine.
//
// The summary is, first match wins:
//   - False when something is an issue: IssueReported (one) or MultipleIssuesReported;
//   - Unknown when something is unknown: NotYetReported (the only one is missing),
//     UnknownReported (the only one is present) or MultipleUnknownReported;
//   - Unknown/NoConditionsReported when nothing in scope is present;
//   - True/NoIssuesReported, with an empty message.
//
// The message lists the issues, then the unknowns, each group in catalog order (Compare), as
// "<Type>: <message, else reason, else status>" on one line (OneLine), each item cut to 512
// bytes, at most three items and then "and N more", separated by "; ".
//
// The result has Type, Status, Reason and Message set; ObservedGeneration and
// LastTransitionTime are left for Set. A misconfiguration (no type in scope, the target in
// scope, an invalid condition type) returns a *SummaryConfigError.
func NewSummaryCondition(from Getter, target string, opts ...SummaryOption) (*metav1.Condition, error) {
	o := (&SummaryOptions{}).ApplyOptions(opts)
	scope := o.ConditionTypes
	if len(scope) == 0 || slices.Contains(scope, target) || !validType(target) {
		return nil, checkSummary(target, scope)
	}
	list := GetAll(from)
	var issues, unknowns []summaryEntry
	var t tally
	for i, ct := range scope {
		if slices.Contains(scope[:i], ct) {
			continue // a repeated type counts once
		}
		c := meta.FindStatusCondition(list, ct)
		if c == nil {
			// A type the object holds was validated when it was stored; one it lacks may be a
			// misconfiguration.
			if !validType(ct) {
				return nil, checkSummary(target, scope)
			}
			if slices.Contains(o.IgnoreTypesIfMissing, ct) {
				continue
			}
		}
		s := standingOf(c, slices.Contains(o.NegativePolarityConditionTypes, ct))
		t.add(s)
		switch s {
		case issue:
			issues = append(issues, summaryEntry{ct, c})
		case unknown, notReported:
			unknowns = append(unknowns, summaryEntry{ct, c})
		}
	}
	out := &metav1.Condition{Type: target}
	out.Status, out.Reason = t.verdict()
	switch out.Reason {
	case NoIssuesReportedReason:
	case NoConditionsReportedReason:
		out.Message = "none of the conditions in scope is reported"
	default:
		out.Message = summaryMessage(issues, unknowns)
	}
	return out, nil
}

// summaryEntry is a condition of type t (nil: missing) that a summary message lists.
type summaryEntry struct {
	t string
	c *metav1.Condition
}

// summaryMessage lists the issues, then the unknowns, each group in catalog order, at most
// maxSummaryItems items and then "and N more", separated by "; ".
func summaryMessage(issues, unknowns []summaryEntry) string {
	byType := func(a, b summaryEntry) int { return Compare(a.t, b.t) }
	slices.SortFunc(issues, byType)
	slices.SortFunc(unknowns, byType)
	entries := slices.Concat(issues, unknowns)
	var items []string
	for _, e := range entries[:min(len(entries), maxSummaryItems)] {
		items = append(items, summaryItem(e.t, e.c))
	}
	if more := len(entries) - maxSummaryItems; more > 0 {
		items = append(items, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(items, "; ")
}

// SetSummaryCondition computes the summary like NewSummaryCondition and writes it to to with
// Set (the options' Clock dates a change of status). It reports whether to changed; on a
// misconfiguration it writes nothing and returns the *SummaryConfigError.
func SetSummaryCondition(to Setter, target string, opts ...SummaryOption) (bool, error) {
	c, err := NewSummaryCondition(to, target, opts...)
	if err != nil {
		return false, err
	}
	o := (&SummaryOptions{}).ApplyOptions(opts)
	return Set(to, *c, WithClock{Clock: o.Clock})
}

// checkSummary returns the *SummaryConfigError of a summary into target over scope, or nil. Of
// several problems in scope, the first type in catalog order is named.
func checkSummary(target string, scope []string) error {
	fail := func(format string, args ...any) error {
		return &SummaryConfigError{Target: target, Problem: fmt.Sprintf(format, args...)}
	}
	if problems := typeProblems(target); problems != "" {
		return fail("invalid target condition type: %s", problems)
	}
	if len(scope) == 0 {
		return fail("no condition types in scope (use ForConditionTypes)")
	}
	for _, t := range slices.SortedFunc(slices.Values(scope), Compare) {
		if t == target {
			return fail("the target condition type cannot be in its own scope")
		}
		if problems := typeProblems(t); problems != "" {
			return fail("invalid condition type %q in scope: %s", t, problems)
		}
	}
	return nil
}

// typeProblems says why t cannot be a condition type (ValidateType), or "" when it can.
func typeProblems(t string) string {
	var invalid *ValidationError
	if errors.As(ValidateType(t), &invalid) {
		return invalid.Problems()
	}
	return ""
}

// summaryItem is the item of a condition of type t (nil: missing) in a summary message: the
// other writer's text on one line and made safe to print (Sanitize), then cut.
func summaryItem(t string, c *metav1.Condition) string {
	text := notYetReportedText
	switch {
	case c == nil:
	case c.Message != "":
		text = c.Message
	case c.Reason != "":
		text = c.Reason
	default:
		text = string(c.Status)
	}
	return TruncateTo(t+": "+Sanitize(OneLine(text)), maxSummaryItemBytes)
}
