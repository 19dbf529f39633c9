package conditions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStandingOf: a part's standing by its condition's status and its type's polarity.
func TestStandingOf(t *testing.T) {
	cond := func(s metav1.ConditionStatus) *metav1.Condition { return &metav1.Condition{Type: "X", Status: s} }
	cases := []struct {
		name     string
		c        *metav1.Condition
		negative bool
		want     standing
	}{
		{"missing", nil, false, notReported},
		{"missing, negative", nil, true, notReported},
		{"True", cond(metav1.ConditionTrue), false, fine},
		{"False", cond(metav1.ConditionFalse), false, issue},
		{"True, negative", cond(metav1.ConditionTrue), true, issue},
		{"False, negative", cond(metav1.ConditionFalse), true, fine},
		{"Unknown", cond(metav1.ConditionUnknown), false, unknown},
		{"Unknown, negative", cond(metav1.ConditionUnknown), true, unknown},
		{"another status", cond("Maybe"), false, unknown},
		{"empty status", cond(""), true, unknown},
	}
	for _, tc := range cases {
		if got := standingOf(tc.c, tc.negative); got != tc.want {
			t.Errorf("%s: standing %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestVerdict: the status and reason of every shape of tally (the reasons of reasons.go), first
// match wins.
func TestVerdict(t *testing.T) {
	type verdict struct {
		Status metav1.ConditionStatus
		Reason string
	}
	cases := []struct {
		name  string
		parts []standing
		want  verdict
	}{
		{"nothing", nil, verdict{metav1.ConditionUnknown, NoConditionsReportedReason}},
		{"one fine", []standing{fine}, verdict{metav1.ConditionTrue, NoIssuesReportedReason}},
		{"all fine", []standing{fine, fine, fine}, verdict{metav1.ConditionTrue, NoIssuesReportedReason}},
		{"one issue", []standing{fine, issue}, verdict{metav1.ConditionFalse, IssueReportedReason}},
		{"two issues", []standing{issue, fine, issue}, verdict{metav1.ConditionFalse, MultipleIssuesReportedReason}},
		{"an issue wins over unknowns", []standing{unknown, notReported, issue}, verdict{metav1.ConditionFalse, IssueReportedReason}},
		{"one not reported", []standing{fine, notReported}, verdict{metav1.ConditionUnknown, NotYetReportedReason}},
		{"only one, not reported", []standing{notReported}, verdict{metav1.ConditionUnknown, NotYetReportedReason}},
		{"one unknown", []standing{unknown, fine}, verdict{metav1.ConditionUnknown, UnknownReportedReason}},
		{"two not reported", []standing{notReported, notReported}, verdict{metav1.ConditionUnknown, MultipleUnknownReportedReason}},
		{"unknown and not reported", []standing{unknown, notReported}, verdict{metav1.ConditionUnknown, MultipleUnknownReportedReason}},
		{"two unknowns", []standing{unknown, unknown, fine}, verdict{metav1.ConditionUnknown, MultipleUnknownReportedReason}},
	}
	for _, tc := range cases {
		var tl tally
		for _, s := range tc.parts {
			tl.add(s)
		}
		var got verdict
		got.Status, got.Reason = tl.verdict()
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	var tl tally
	for _, s := range []standing{fine, issue, unknown, notReported, notReported} {
		tl.add(s)
	}
	if d := cmp.Diff(tally{issues: 1, unknowns: 3, missing: 2, reported: 3}, tl, cmp.AllowUnexported(tally{})); d != "" {
		t.Errorf("tally (-want +got):\n%s", d)
	}
}
