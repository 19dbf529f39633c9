package aggregate

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/machinestatus/machinestatus/conditions"
)

const (
	// maxSummaryItems is how many contributing conditions a summary message lists before it
	// ends with "and N more".
	maxSummaryItems = 3

	// maxSummaryItemBytes bounds one line of a summary message ("* <Type>: <text>"). With
	// maxSummaryItems lines and the "and N more" line, a message stays far below
	// conditions.MaxMessageBytes.
	maxSummaryItemBytes = 512

	// notYetReportedText is the text of a missing condition in a summary message.
	notYetReportedText = "not yet reported"

	// noConditionsReportedMessage is the message of a summary whose conditions in scope are
	// all missing and all ignored when missing.
	noConditionsReportedMessage = "none of the conditions in scope is reported"
)

// SummaryConfigError says why a summary cannot be computed: the options are inconsistent.
// It is a programming error in the caller, never a property of the object summarized.
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
// from whose types are in scope (see ForConditionTypes). It does not modify from.
//
// Each condition type in scope is classified, in catalog order (conditions.Compare):
//   - missing: skipped when listed in IgnoreTypesIfMissing, else Unknown ("not yet reported");
//   - False, or True for a negative type (listed in NegativePolarityConditionTypes or
//     registered with conditions.RegisterNegativePolarity): an issue;
//   - Unknown (or any status other than True and False): unknown;
//   - otherwise: fine.
//
// The summary is, first match wins:
//   - False when at least one condition is an issue: reason IssueReported (one) or
//     MultipleIssuesReported (several);
//   - Unknown when at least one condition is unknown: reason NotYetReported (the only one is
//     missing), UnknownReported (the only one is present) or MultipleUnknownReported;
//   - Unknown with reason NoConditionsReported when nothing in scope is present and every type
//     may be ignored when missing;
//   - True with reason NoIssuesReported and an empty message otherwise.
//
// The message lists the issues, then the unknowns, each group in catalog order, one line
// "* <Type>: <message, or reason when the message is empty>" per condition, at most three
// lines followed by "and N more". Each line is cut at a UTF-8 boundary to 512 bytes, so the
// message is always well under the API server's 32768-byte limit, and the same input always
// gives the same message.
//
// The returned condition has Type, Status, Reason and Message set; ObservedGeneration and
// LastTransitionTime are left zero for conditions.Set to fill. A misconfiguration (no type in
// scope, target in scope, an invalid condition type) returns a *SummaryConfigError.
func NewSummaryCondition(from conditions.Getter, target string, opts ...SummaryOption) (*metav1.Condition, error) {
	o := (&SummaryOptions{}).ApplyOptions(opts)
	scope, err := summaryScope(target, o)
	if err != nil {
		return nil, err
	}
	negative := toSet(o.NegativePolarityConditionTypes)
	isNegative := func(t string) bool { return negative[t] || conditions.IsNegativePolarity(t) }
	ignored := toSet(o.IgnoreTypesIfMissing)

	var issues, unknowns []summaryItem
	present := 0
	for _, t := range scope {
		c := conditions.Get(from, t)
		if c == nil {
			if !ignored[t] {
				unknowns = append(unknowns, summaryItem{conditionType: t, missing: true})
			}
			continue
		}
		present++
		item := summaryItem{conditionType: t, text: itemText(c)}
		switch {
		case c.Status == metav1.ConditionTrue && isNegative(t), c.Status == metav1.ConditionFalse && !isNegative(t):
			issues = append(issues, item)
		case c.Status == metav1.ConditionTrue, c.Status == metav1.ConditionFalse:
			// fine
		default:
			unknowns = append(unknowns, item)
		}
	}

	out := &metav1.Condition{Type: target}
	switch {
	case len(issues) > 0:
		out.Status = metav1.ConditionFalse
		out.Reason = pick(len(issues) == 1, IssueReportedReason, MultipleIssuesReportedReason)
	case len(unknowns) == 1 && unknowns[0].missing:
		out.Status, out.Reason = metav1.ConditionUnknown, NotYetReportedReason
	case len(unknowns) > 0:
		out.Status = metav1.ConditionUnknown
		out.Reason = pick(len(unknowns) == 1, UnknownReportedReason, MultipleUnknownReportedReason)
	case present == 0:
		out.Status, out.Reason = metav1.ConditionUnknown, NoConditionsReportedReason
		out.Message = noConditionsReportedMessage
		return out, nil
	default:
		out.Status, out.Reason = metav1.ConditionTrue, NoIssuesReportedReason
		return out, nil
	}
	out.Message = summaryMessage(append(issues, unknowns...))
	return out, nil
}

// SetSummaryCondition computes the summary like NewSummaryCondition and writes it to to with
// conditions.Set, passing the options given by WithSetOptions (e.g. a fixed clock). It reports
// whether to changed; on a misconfiguration it writes nothing and returns the
// *SummaryConfigError, and a condition rejected by conditions.Set returns its error.
func SetSummaryCondition(to conditions.Setter, target string, opts ...SummaryOption) (bool, error) {
	c, err := NewSummaryCondition(to, target, opts...)
	if err != nil {
		return false, err
	}
	o := (&SummaryOptions{}).ApplyOptions(opts)
	return conditions.Set(to, *c, o.SetOptions...)
}

// summaryScope checks the options and returns the condition types in scope, deduplicated and
// in catalog order.
func summaryScope(target string, o *SummaryOptions) ([]string, error) {
	if problems := validation.IsQualifiedName(target); len(problems) > 0 {
		return nil, &SummaryConfigError{Target: target, Problem: "invalid target condition type: " + strings.Join(problems, "; ")}
	}
	if len(o.ConditionTypes) == 0 {
		return nil, &SummaryConfigError{Target: target, Problem: "no condition types in scope (use ForConditionTypes)"}
	}
	scope := slices.Clone(o.ConditionTypes)
	slices.SortFunc(scope, conditions.Compare)
	scope = slices.Compact(scope)
	for _, t := range scope {
		if t == target {
			return nil, &SummaryConfigError{Target: target, Problem: "the target condition type cannot be in its own scope"}
		}
		if problems := validation.IsQualifiedName(t); len(problems) > 0 {
			return nil, &SummaryConfigError{Target: target, Problem: fmt.Sprintf("invalid condition type %q in scope: %s", t, strings.Join(problems, "; "))}
		}
	}
	return scope, nil
}

// summaryItem is one condition that contributes to a summary's message.
type summaryItem struct {
	conditionType string
	text          string
	missing       bool
}

func (i summaryItem) line() string {
	text := i.text
	if i.missing {
		text = notYetReportedText
	}
	// Indent continuation lines (e.g. a nested summary) so that every item starts with "* ".
	text = strings.ReplaceAll(text, "\n", "\n  ")
	return conditions.TruncateTo("* "+i.conditionType+": "+text, maxSummaryItemBytes)
}

// summaryMessage lists the first maxSummaryItems items, then "and N more".
func summaryMessage(items []summaryItem) string {
	lines := make([]string, 0, maxSummaryItems+1)
	for i, item := range items {
		if i == maxSummaryItems {
			lines = append(lines, fmt.Sprintf("and %d more", len(items)-maxSummaryItems))
			break
		}
		lines = append(lines, item.line())
	}
	return strings.Join(lines, "\n")
}

// itemText is what a summary says about a present condition: its message, else its reason,
// else its status.
func itemText(c *metav1.Condition) string {
	switch {
	case c.Message != "":
		return c.Message
	case c.Reason != "":
		return c.Reason
	}
	return string(c.Status)
}

func toSet(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
