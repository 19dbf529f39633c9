package conditions_test

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// t0 is the fixed "now" of the tests. It has sub-second precision on purpose: Set must drop it.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535_897_932, time.UTC)

const (
	T = metav1.ConditionTrue
	F = metav1.ConditionFalse
	U = metav1.ConditionUnknown
)

// clockAt is the option that makes Set read now from a fixed clock at t.
func clockAt(t time.Time) conditions.WithClock {
	return conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(t)}
}

// sec is t as Set stores it: truncated to seconds, in the local zone like a decoded metav1.Time.
func sec(t time.Time) metav1.Time {
	return metav1.NewTime(t.Truncate(time.Second).Local())
}

// cond builds a condition with the given lastTransitionTime (stored as Set would store it) and
// observedGeneration; msg is optional.
func cond(typ string, s metav1.ConditionStatus, reason string, ltt time.Time, gen int64, msg ...string) metav1.Condition {
	c := metav1.Condition{Type: typ, Status: s, Reason: reason, LastTransitionTime: sec(ltt), ObservedGeneration: gen}
	if len(msg) > 0 {
		c.Message = msg[0]
	}
	return c
}

// in builds the condition a caller passes to Set: no time, no generation.
func in(typ string, s metav1.ConditionStatus, reason string, msg ...string) metav1.Condition {
	c := metav1.Condition{Type: typ, Status: s, Reason: reason}
	if len(msg) > 0 {
		c.Message = msg[0]
	}
	return c
}

// machine builds a Machine at the given metadata.generation with the given conditions.
func machine(gen int64, conds ...metav1.Condition) *v1alpha1.Machine {
	return &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "default", Generation: gen},
		Status:     v1alpha1.MachineStatus{Conditions: conds},
	}
}

// plainSetter is a Setter that is not a Kubernetes object: it has no metadata.generation.
type plainSetter struct{ conds []metav1.Condition }

func (p *plainSetter) GetConditions() []metav1.Condition  { return p.conds }
func (p *plainSetter) SetConditions(c []metav1.Condition) { p.conds = c }

var _ conditions.Setter = &plainSetter{}

// types returns the types of conds in order.
func types(conds []metav1.Condition) []string {
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		out = append(out, c.Type)
	}
	return out
}

// base is the lastTransitionTime origin of condAt.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// minute is base plus n minutes.
func minute(n int) metav1.Time { return metav1.NewTime(base.Add(time.Duration(n) * time.Minute)) }

// condAt builds a condition whose lastTransitionTime is minute(n); msg is optional.
func condAt(t string, s metav1.ConditionStatus, reason string, n int, msg ...string) metav1.Condition {
	c := metav1.Condition{Type: t, Status: s, Reason: reason, LastTransitionTime: minute(n)}
	if len(msg) > 0 {
		c.Message = msg[0]
	}
	return c
}

// conds lists conditions.
func conds(c ...metav1.Condition) []metav1.Condition { return c }

// negativeTypes are the catalog's negative-polarity types.
func negativeTypes() []string {
	var out []string
	for _, c := range v1alpha1.Catalog() {
		if c.Polarity == v1alpha1.NegativeConditionPolarity {
			out = append(out, c.Type)
		}
	}
	return out
}

// deleting is the catalog's Deleting type, negative polarity.
const deleting = v1alpha1.MachineDeletingCondition

// summaryReasons are the fixed reasons of summaries and aggregates.
var summaryReasons = []string{
	conditions.NoIssuesReportedReason, conditions.IssueReportedReason, conditions.MultipleIssuesReportedReason,
	conditions.UnknownReportedReason, conditions.NotYetReportedReason, conditions.MultipleUnknownReportedReason,
	conditions.NoConditionsReportedReason,
}
