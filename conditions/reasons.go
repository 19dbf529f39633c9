package conditions

// Reasons of a summary condition (NewSummaryCondition, SetSummaryCondition, and the Machine's
// Ready condition written by Summarize) and of an aggregate (NewAggregateCondition). They are
// fixed: the result's reason never repeats the reason of an input condition, so it always
// matches the API server's reason pattern and a change in an input's reason changes only the
// message. A summary counts the conditions in scope; an aggregate counts the objects, by their
// condition of the type aggregated (an object without it is "not yet reported").
const (
	// NoIssuesReportedReason: every condition in scope is present and fine (True, or False for
	// a negative-polarity type). The summary is True.
	NoIssuesReportedReason = "NoIssuesReported"

	// IssueReportedReason: exactly one condition in scope reports an issue (False, or True for
	// a negative-polarity type). The summary is False.
	IssueReportedReason = "IssueReported"

	// MultipleIssuesReportedReason: more than one condition in scope reports an issue. The
	// summary is False.
	MultipleIssuesReportedReason = "MultipleIssuesReported"

	// UnknownReportedReason: no condition reports an issue and exactly one present condition in
	// scope is Unknown. The summary is Unknown.
	UnknownReportedReason = "UnknownReported"

	// NotYetReportedReason: no condition reports an issue and the only unknown is a condition
	// in scope that is missing. The summary is Unknown.
	NotYetReportedReason = "NotYetReported"

	// MultipleUnknownReportedReason: no condition reports an issue and more than one condition
	// in scope is Unknown or missing. The summary is Unknown.
	MultipleUnknownReportedReason = "MultipleUnknownReported"

	// NoConditionsReportedReason: every condition in scope may be ignored when missing, and
	// none is present, or an aggregate has no objects, so nothing can be said. The result is
	// Unknown (a summary or aggregate of nothing is never True).
	NoConditionsReportedReason = "NoConditionsReported"
)
