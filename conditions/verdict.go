package conditions

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The verdict rule, shared by summaries (one object, the condition types in scope) and
// aggregates (one condition type, many objects), as Cluster API's conditions package serves both
// with one merge strategy. Each part (a condition type in scope, or an object) has a standing;
// the tally of the standings gives the status and reason.

// standing is what one part of a summary or an aggregate says.
type standing uint8

const (
	// fine: True, or False for a negative-polarity type.
	fine standing = iota
	// issue: False, or True for a negative-polarity type.
	issue
	// unknown: the condition is present with status Unknown or any status but True and False.
	unknown
	// notReported: the condition is missing (and the summary does not ignore it).
	notReported
)

// standingOf classifies c, the condition of one part (nil: missing); negative says True is the
// issue for its type.
func standingOf(c *metav1.Condition, negative bool) standing {
	switch {
	case c == nil:
		return notReported
	case c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse:
		return unknown
	case (c.Status == metav1.ConditionTrue) == negative:
		return issue
	}
	return fine
}

// tally counts the standings of the parts of a summary or an aggregate.
type tally struct {
	// issues counts the parts that are an issue.
	issues int
	// unknowns counts the parts that are unknown or not reported.
	unknowns int
	// missing counts the parts, among unknowns, that are not reported.
	missing int
	// reported counts the parts whose condition is present, whatever its status.
	reported int
}

// add counts one part of standing s.
func (t *tally) add(s standing) {
	switch s {
	case issue:
		t.issues++
	case unknown:
		t.unknowns++
	case notReported:
		t.unknowns++
		t.missing++
		return
	}
	t.reported++
}

// verdict is the status and reason of the tally, first match wins:
//   - False when at least one part is an issue: IssueReported (one) or MultipleIssuesReported;
//   - Unknown when at least one part is unknown or not reported: NotYetReported (the only one is
//     not reported), UnknownReported (the only one is present) or MultipleUnknownReported;
//   - Unknown with NoConditionsReported when no part reports the condition at all (a summary
//     whose types are all missing and ignored, an aggregate of no objects): never True on
//     nothing;
//   - True with NoIssuesReported otherwise.
func (t tally) verdict() (metav1.ConditionStatus, string) {
	switch {
	case t.issues == 1:
		return metav1.ConditionFalse, IssueReportedReason
	case t.issues > 1:
		return metav1.ConditionFalse, MultipleIssuesReportedReason
	case t.unknowns == 1 && t.missing == 1:
		return metav1.ConditionUnknown, NotYetReportedReason
	case t.unknowns == 1:
		return metav1.ConditionUnknown, UnknownReportedReason
	case t.unknowns > 1:
		return metav1.ConditionUnknown, MultipleUnknownReportedReason
	case t.reported == 0:
		return metav1.ConditionUnknown, NoConditionsReportedReason
	}
	return metav1.ConditionTrue, NoIssuesReportedReason
}
