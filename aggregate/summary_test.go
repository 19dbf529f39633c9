package aggregate_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// object is a minimal conditions.Setter without metadata.
type object struct{ conditions []metav1.Condition }

func (o *object) GetConditions() []metav1.Condition  { return o.conditions }
func (o *object) SetConditions(c []metav1.Condition) { o.conditions = c }

func summary(s metav1.ConditionStatus, reason, message string) *metav1.Condition {
	return &metav1.Condition{Type: "Ready", Status: s, Reason: reason, Message: message}
}

func TestNewSummaryCondition(t *testing.T) {
	scope := aggregate.ForConditionTypes("A", "B", "C")
	tests := []struct {
		name  string
		conds []metav1.Condition
		opts  []aggregate.SummaryOption
		want  *metav1.Condition
	}{
		{
			name:  "all True: True, no message",
			conds: conds(cond("A", T, "Fine", 0, "a is fine"), cond("B", T, "Fine", 0), cond("C", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(T, aggregate.NoIssuesReportedReason, ""),
		},
		{
			name:  "one False: IssueReported with its message",
			conds: conds(cond("A", T, "Fine", 0), cond("B", F, "Broken", 0, "b is broken"), cond("C", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(F, aggregate.IssueReportedReason, "B: b is broken"),
		},
		{
			name:  "False beats Unknown: one issue, then the unknown listed after it",
			conds: conds(cond("C", F, "Broken", 0), cond("A", U, "Unsure", 0, "a is unsure"), cond("B", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(F, aggregate.IssueReportedReason, "C: Broken; A: a is unsure"),
		},
		{
			name:  "several False: MultipleIssuesReported in catalog order",
			conds: conds(cond("C", F, "Broken", 0, "c"), cond("B", T, "Fine", 0), cond("A", F, "Broken", 0, "a")),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(F, aggregate.MultipleIssuesReportedReason, "A: a; C: c"),
		},
		{
			name:  "catalog order puts Ready first",
			conds: conds(cond("Alpha", F, "Broken", 0), cond("Ready", F, "Broken", 0)),
			opts:  []aggregate.SummaryOption{aggregate.ForConditionTypes("Alpha", "Ready")},
			want: &metav1.Condition{Type: "Available", Status: F, Reason: aggregate.MultipleIssuesReportedReason,
				Message: "Ready: Broken; Alpha: Broken"},
		},
		{
			name:  "one Unknown: UnknownReported",
			conds: conds(cond("A", T, "Fine", 0), cond("B", U, "Unsure", 0), cond("C", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(U, aggregate.UnknownReportedReason, "B: Unsure"),
		},
		{
			name:  "one missing: NotYetReported, never True",
			conds: conds(cond("A", T, "Fine", 0), cond("C", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(U, aggregate.NotYetReportedReason, "B: not yet reported"),
		},
		{
			name:  "missing and Unknown: MultipleUnknownReported",
			conds: conds(cond("A", T, "Fine", 0), cond("C", U, "Unsure", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(U, aggregate.MultipleUnknownReportedReason, "B: not yet reported; C: Unsure"),
		},
		{
			name: "nothing reported: one line per missing condition",
			opts: []aggregate.SummaryOption{scope},
			want: summary(U, aggregate.MultipleUnknownReportedReason, "A: not yet reported; B: not yet reported; C: not yet reported"),
		},
		{
			name:  "an invalid status counts as Unknown",
			conds: conds(cond("A", T, "Fine", 0), cond("B", "", "Odd", 0), cond("C", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{scope},
			want:  summary(U, aggregate.UnknownReportedReason, "B: Odd"),
		},
		{
			name:  "negative polarity: True is an issue",
			conds: conds(cond("A", T, "Fine", 0), cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0)),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", deleting),
				aggregate.NegativePolarityConditionTypes(deleting)},
			want: summary(F, aggregate.IssueReportedReason, "Deleting: DrainingNode"),
		},
		{
			name:  "negative polarity: False is fine",
			conds: conds(cond("A", T, "Fine", 0), cond(deleting, F, v1alpha1.MachineNotDeletingReason, 0)),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", deleting),
				aggregate.NegativePolarityConditionTypes(deleting)},
			want: summary(T, aggregate.NoIssuesReportedReason, ""),
		},
		{
			name:  "negative polarity: Unknown stays Unknown",
			conds: conds(cond("A", T, "Fine", 0), cond(deleting, U, "Unsure", 0)),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", deleting),
				aggregate.NegativePolarityConditionTypes(deleting)},
			want: summary(U, aggregate.UnknownReportedReason, "Deleting: Unsure"),
		},
		{
			name:  "negative polarity of a type not in scope is ignored",
			conds: conds(cond("A", T, "Fine", 0), cond("Z", T, "Whatever", 0)),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A"),
				aggregate.NegativePolarityConditionTypes(v1alpha1.NegativePolarityConditions...)},
			want: summary(T, aggregate.NoIssuesReportedReason, ""),
		},
		{
			name:  "ignore if missing: a missing ignored type is skipped",
			conds: conds(cond("A", T, "Fine", 0)),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", deleting),
				aggregate.NegativePolarityConditionTypes(deleting), aggregate.IgnoreTypesIfMissing(deleting)},
			want: summary(T, aggregate.NoIssuesReportedReason, ""),
		},
		{
			name:  "ignore if missing: a present ignored type still counts",
			conds: conds(cond("A", T, "Fine", 0), cond(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0, "draining")),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", deleting),
				aggregate.NegativePolarityConditionTypes(deleting), aggregate.IgnoreTypesIfMissing(deleting)},
			want: summary(F, aggregate.IssueReportedReason, "Deleting: draining"),
		},
		{
			name: "all ignored and none present: Unknown NoConditionsReported",
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "B"), aggregate.IgnoreTypesIfMissing("A", "B")},
			want: summary(U, aggregate.NoConditionsReportedReason, "none of the conditions in scope is reported"),
		},
		{
			name:  "all ignored and some present: judged on those present",
			conds: conds(cond("B", T, "Fine", 0)),
			opts:  []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "B"), aggregate.IgnoreTypesIfMissing("A", "B")},
			want:  summary(T, aggregate.NoIssuesReportedReason, ""),
		},
		{
			name: "at most three items, then and N more; issues before unknowns",
			conds: conds(
				cond("E", U, "Unsure", 0), cond("D", F, "Broken", 0), cond("C", U, "Unsure", 0),
				cond("B", F, "Broken", 0), cond("A", T, "Fine", 0),
			),
			opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "B", "C", "D", "E", "F")},
			want: summary(F, aggregate.MultipleIssuesReportedReason, "B: Broken; D: Broken; C: Unsure; and 2 more"),
		},
		{
			name:  "empty message and reason: the status is shown",
			conds: conds(cond("A", F, "", 0)),
			opts:  []aggregate.SummaryOption{aggregate.ForConditionTypes("A")},
			want:  summary(F, aggregate.IssueReportedReason, "A: False"),
		},
		{
			name:  "a multi-line message (a Cluster API v1beta2 summary) is put on one line in its item",
			conds: conds(cond("A", F, "Broken", 0, "* X: x\n* Y: y\n  * Z: z\n"), cond("B", F, "Broken", 0)),
			opts:  []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "B")},
			want:  summary(F, aggregate.MultipleIssuesReportedReason, "A: X: x, Y: y, Z: z; B: Broken"),
		},
		{
			name:  "options accumulate and duplicates collapse",
			conds: conds(cond("A", F, "Broken", 0)),
			opts:  []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "A"), aggregate.ForConditionTypes("A", "B"), nil},
			want:  summary(F, aggregate.IssueReportedReason, "A: Broken; B: not yet reported"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "Ready"
			if tt.want != nil {
				target = tt.want.Type
			}
			got, err := newSummary(t, &object{conditions: tt.conds}, target, tt.opts...)
			if err != nil {
				t.Fatalf("NewSummaryCondition() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewSummaryCondition() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewSummaryConditionIsDeterministic(t *testing.T) {
	list := conds(
		cond("A", F, "Broken", 0, "a"), cond("B", U, "Unsure", 0, "b"), cond("C", F, "Broken", 0, "c"),
		cond("D", T, "Fine", 0), cond("E", U, "Unsure", 0, "e"), cond("F", F, "Broken", 0, "f"),
	)
	types := []string{"A", "B", "C", "D", "E", "F", "G"}
	want, err := newSummary(t, &object{conditions: list}, "Ready", aggregate.ForConditionTypes(types...))
	if err != nil {
		t.Fatal(err)
	}
	for i := range list {
		// Rotate both the object's conditions and the scope.
		rotated := append(slices.Clone(list[i:]), list[:i]...)
		scope := append(slices.Clone(types[i:]), types[:i]...)
		slices.Reverse(scope)
		got, err := newSummary(t, &object{conditions: rotated}, "Ready", aggregate.ForConditionTypes(scope...))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("rotation %d: summary differs (-want +got):\n%s", i, diff)
		}
	}
}

func TestNewSummaryConditionMessageIsBounded(t *testing.T) {
	huge := strings.Repeat("日本", 40*1024/6) // about 40 KB of three-byte runes
	var list []metav1.Condition
	var types []string
	for i := range 50 {
		typ := fmt.Sprintf("example.com/%s-%02d", strings.Repeat("x", 50), i)
		status := F
		if i%2 == 1 {
			status = U
		}
		list = append(list, cond(typ, status, "Broken", 0, huge))
		types = append(types, typ)
	}
	obj := &object{conditions: list}
	clock := clocktesting.NewFakePassiveClock(at(100).Time)
	if _, err := setSummary(t, obj, "Ready", aggregate.ForConditionTypes(types...),
		aggregate.WithSetOptions(conditions.WithClock{Clock: clock})); err != nil {
		t.Fatalf("SetSummaryCondition() error = %v", err)
	}
	got := conditions.Get(obj, "Ready")
	if got == nil {
		t.Fatal("Ready was not set")
	}
	if n := len(got.Message); n > conditions.MaxMessageBytes || n > 4096 {
		t.Errorf("message is %d bytes, want at most 4096", n)
	}
	if !utf8.ValidString(got.Message) {
		t.Errorf("message is not valid UTF-8")
	}
	if !strings.HasSuffix(got.Message, "; and 47 more") {
		t.Errorf("message does not end with %q: ...%q", "and 47 more", got.Message[len(got.Message)-40:])
	}
	if err := conditions.Validate(*got); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	if diff := cmp.Diff(at(100), got.LastTransitionTime); diff != "" {
		t.Errorf("lastTransitionTime (-want +got):\n%s", diff)
	}
}

func TestSummaryMisconfiguration(t *testing.T) {
	tests := []struct {
		name   string
		target string
		opts   []aggregate.SummaryOption
		want   string
	}{
		{name: "no options", target: "Ready", want: `cannot summarize conditions into "Ready": no condition types in scope (use ForConditionTypes)`},
		{name: "empty scope", target: "Ready", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes()},
			want: `cannot summarize conditions into "Ready": no condition types in scope (use ForConditionTypes)`},
		{name: "target in scope", target: "Ready", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "Ready")},
			want: `cannot summarize conditions into "Ready": the target condition type cannot be in its own scope`},
		{name: "empty target", target: "", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A")}},
		{name: "invalid target", target: "not a type!", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A")}},
		{name: "invalid type in scope", target: "Ready", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("A", "")}},
		// The error names the first target or invalid type in catalog order, not a valid one before it.
		{name: "valid type before an invalid one", target: "Ready", opts: []aggregate.SummaryOption{aggregate.ForConditionTypes("Z", "A", "Not Ready")},
			want: `cannot summarize conditions into "Ready": invalid condition type "Not Ready" in scope: Invalid value: "Not Ready": ` +
				`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
				`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &object{conditions: conds(cond("A", T, "Fine", 0))}
			got, err := newSummary(t, obj, tt.target, tt.opts...)
			var cfgErr *aggregate.SummaryConfigError
			if !errors.As(err, &cfgErr) {
				t.Fatalf("NewSummaryCondition() error = %v, want a *SummaryConfigError", err)
			}
			if got != nil {
				t.Errorf("NewSummaryCondition() = %v, want nil", got)
			}
			if cfgErr.Target != tt.target {
				t.Errorf("Target = %q, want %q", cfgErr.Target, tt.target)
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.want)
			}

			before := slices.Clone(obj.conditions)
			changed, err := setSummary(t, obj, tt.target, tt.opts...)
			if !errors.As(err, &cfgErr) || changed {
				t.Errorf("SetSummaryCondition() = %v, %v; want false, a *SummaryConfigError", changed, err)
			}
			if diff := cmp.Diff(before, obj.conditions); diff != "" {
				t.Errorf("SetSummaryCondition() wrote on error (-before +after):\n%s", diff)
			}
		})
	}
}

func TestSetSummaryCondition(t *testing.T) {
	obj := &object{conditions: conds(cond("A", F, "Broken", 0, "a is broken"))}
	opts := func(minutes int) []aggregate.SummaryOption {
		return []aggregate.SummaryOption{
			aggregate.ForConditionTypes("A"),
			aggregate.WithSetOptions(conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(at(minutes).Time)}),
		}
	}
	steps := []struct {
		name        string
		edit        func()
		minutes     int
		wantChanged bool
		want        metav1.Condition
	}{
		{
			name: "first write takes the clock", minutes: 1, wantChanged: true,
			want: metav1.Condition{Type: "Ready", Status: F, Reason: aggregate.IssueReportedReason, Message: "A: a is broken", LastTransitionTime: at(1)},
		},
		{
			name: "same input later changes nothing", minutes: 2, wantChanged: false,
			want: metav1.Condition{Type: "Ready", Status: F, Reason: aggregate.IssueReportedReason, Message: "A: a is broken", LastTransitionTime: at(1)},
		},
		{
			name: "message change keeps the transition time", minutes: 3, wantChanged: true,
			edit: func() { meta.FindStatusCondition(obj.conditions, "A").Message = "a is still broken" },
			want: metav1.Condition{Type: "Ready", Status: F, Reason: aggregate.IssueReportedReason, Message: "A: a is still broken", LastTransitionTime: at(1)},
		},
		{
			name: "status change moves the transition time", minutes: 4, wantChanged: true,
			edit: func() { meta.FindStatusCondition(obj.conditions, "A").Status = T },
			want: metav1.Condition{Type: "Ready", Status: T, Reason: aggregate.NoIssuesReportedReason, LastTransitionTime: at(4)},
		},
	}
	for _, s := range steps {
		if s.edit != nil {
			s.edit()
		}
		changed, err := setSummary(t, obj, "Ready", opts(s.minutes)...)
		if err != nil {
			t.Fatalf("%s: SetSummaryCondition() error = %v", s.name, err)
		}
		if changed != s.wantChanged {
			t.Errorf("%s: changed = %v, want %v", s.name, changed, s.wantChanged)
		}
		if diff := cmp.Diff(&s.want, conditions.Get(obj, "Ready")); diff != "" {
			t.Errorf("%s: Ready (-want +got):\n%s", s.name, diff)
		}
	}
}
