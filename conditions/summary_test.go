package conditions_test

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
	scope := conditions.ForConditionTypes{"A", "B", "C"}
	tests := []struct {
		name  string
		conds []metav1.Condition
		opts  []conditions.SummaryOption
		want  *metav1.Condition
	}{
		{
			name:  "all True: True, no message",
			conds: conds(condAt("A", T, "Fine", 0, "a is fine"), condAt("B", T, "Fine", 0), condAt("C", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name:  "one False: IssueReported with its message",
			conds: conds(condAt("A", T, "Fine", 0), condAt("B", F, "Broken", 0, "b is broken"), condAt("C", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(F, conditions.IssueReportedReason, "B: b is broken"),
		},
		{
			name:  "False beats Unknown: one issue, then the unknown listed after it",
			conds: conds(condAt("C", F, "Broken", 0), condAt("A", U, "Unsure", 0, "a is unsure"), condAt("B", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(F, conditions.IssueReportedReason, "C: Broken; A: a is unsure"),
		},
		{
			name:  "several False: MultipleIssuesReported in catalog order",
			conds: conds(condAt("C", F, "Broken", 0, "c"), condAt("B", T, "Fine", 0), condAt("A", F, "Broken", 0, "a")),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(F, conditions.MultipleIssuesReportedReason, "A: a; C: c"),
		},
		{
			name:  "catalog order puts Ready first",
			conds: conds(condAt("Alpha", F, "Broken", 0), condAt("Ready", F, "Broken", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"Alpha", "Ready"}},
			want: &metav1.Condition{Type: "Available", Status: F, Reason: conditions.MultipleIssuesReportedReason,
				Message: "Ready: Broken; Alpha: Broken"},
		},
		{
			name:  "one Unknown: UnknownReported",
			conds: conds(condAt("A", T, "Fine", 0), condAt("B", U, "Unsure", 0), condAt("C", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(U, conditions.UnknownReportedReason, "B: Unsure"),
		},
		{
			name:  "one missing: NotYetReported, never True",
			conds: conds(condAt("A", T, "Fine", 0), condAt("C", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(U, conditions.NotYetReportedReason, "B: not yet reported"),
		},
		{
			name:  "missing and Unknown: MultipleUnknownReported",
			conds: conds(condAt("A", T, "Fine", 0), condAt("C", U, "Unsure", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(U, conditions.MultipleUnknownReportedReason, "B: not yet reported; C: Unsure"),
		},
		{
			name: "nothing reported: one line per missing condition",
			opts: []conditions.SummaryOption{scope},
			want: summary(U, conditions.MultipleUnknownReportedReason, "A: not yet reported; B: not yet reported; C: not yet reported"),
		},
		{
			name:  "an invalid status counts as Unknown",
			conds: conds(condAt("A", T, "Fine", 0), condAt("B", "", "Odd", 0), condAt("C", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{scope},
			want:  summary(U, conditions.UnknownReportedReason, "B: Odd"),
		},
		{
			name:  "negative polarity: True is an issue",
			conds: conds(condAt("A", T, "Fine", 0), condAt(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0)),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", deleting},
				conditions.NegativePolarityConditionTypes{deleting}},
			want: summary(F, conditions.IssueReportedReason, "Deleting: DrainingNode"),
		},
		{
			name:  "negative polarity: False is fine",
			conds: conds(condAt("A", T, "Fine", 0), condAt(deleting, F, v1alpha1.MachineNotDeletingReason, 0)),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", deleting},
				conditions.NegativePolarityConditionTypes{deleting}},
			want: summary(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name:  "negative polarity: Unknown stays Unknown",
			conds: conds(condAt("A", T, "Fine", 0), condAt(deleting, U, "Unsure", 0)),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", deleting},
				conditions.NegativePolarityConditionTypes{deleting}},
			want: summary(U, conditions.UnknownReportedReason, "Deleting: Unsure"),
		},
		{
			name:  "negative polarity of a type not in scope is ignored",
			conds: conds(condAt("A", T, "Fine", 0), condAt("Z", T, "Whatever", 0)),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A"},
				conditions.NegativePolarityConditionTypes(negativeTypes())},
			want: summary(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name:  "ignore if missing: a missing ignored type is skipped",
			conds: conds(condAt("A", T, "Fine", 0)),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", deleting},
				conditions.NegativePolarityConditionTypes{deleting}, conditions.IgnoreTypesIfMissing{deleting}},
			want: summary(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name:  "ignore if missing: a present ignored type still counts",
			conds: conds(condAt("A", T, "Fine", 0), condAt(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0, "draining")),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", deleting},
				conditions.NegativePolarityConditionTypes{deleting}, conditions.IgnoreTypesIfMissing{deleting}},
			want: summary(F, conditions.IssueReportedReason, "Deleting: draining"),
		},
		{
			name: "all ignored and none present: Unknown NoConditionsReported",
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B"}, conditions.IgnoreTypesIfMissing{"A", "B"}},
			want: summary(U, conditions.NoConditionsReportedReason, "none of the conditions in scope is reported"),
		},
		{
			name:  "all ignored and some present: judged on those present",
			conds: conds(condAt("B", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B"}, conditions.IgnoreTypesIfMissing{"A", "B"}},
			want:  summary(T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "at most three items, then and N more; issues before unknowns",
			conds: conds(
				condAt("E", U, "Unsure", 0), condAt("D", F, "Broken", 0), condAt("C", U, "Unsure", 0),
				condAt("B", F, "Broken", 0), condAt("A", T, "Fine", 0),
			),
			opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B", "C", "D", "E", "F"}},
			want: summary(F, conditions.MultipleIssuesReportedReason, "B: Broken; D: Broken; C: Unsure; and 2 more"),
		},
		{
			name:  "empty message and reason: the status is shown",
			conds: conds(condAt("A", F, "", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A"}},
			want:  summary(F, conditions.IssueReportedReason, "A: False"),
		},
		{
			name:  "a multi-line message (a Cluster API v1beta2 summary) is put on one line in its item",
			conds: conds(condAt("A", F, "Broken", 0, "* X: x\n* Y: y\n  * Z: z\n"), condAt("B", F, "Broken", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B"}},
			want:  summary(F, conditions.MultipleIssuesReportedReason, "A: X: x, Y: y, Z: z; B: Broken"),
		},
		{
			name:  "options accumulate and duplicates collapse",
			conds: conds(condAt("A", F, "Broken", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A", "A"}, conditions.ForConditionTypes{"A", "B"}, nil},
			want:  summary(F, conditions.IssueReportedReason, "A: Broken; B: not yet reported"),
		},
		{
			name:  "a type another writer listed twice: the first entry counts",
			conds: conds(condAt("A", T, "Fine", 0), condAt("B", F, "Broken", 0, "first"), condAt("B", T, "Fine", 0, "second")),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B"}},
			want:  summary(F, conditions.IssueReportedReason, "B: first"),
		},
		{
			name:  "a negative type missing from the list and another outside the scope",
			conds: conds(condAt("A", T, "Fine", 0)),
			opts:  []conditions.SummaryOption{conditions.ForConditionTypes{"A", "B"}, conditions.NegativePolarityConditionTypes{"B", "Z"}},
			want:  summary(U, conditions.NotYetReportedReason, "B: not yet reported"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "Ready"
			if tt.want != nil {
				target = tt.want.Type
			}
			got, err := conditions.NewSummaryCondition(&object{conditions: tt.conds}, target, tt.opts...)
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
		condAt("A", F, "Broken", 0, "a"), condAt("B", U, "Unsure", 0, "b"), condAt("C", F, "Broken", 0, "c"),
		condAt("D", T, "Fine", 0), condAt("E", U, "Unsure", 0, "e"), condAt("F", F, "Broken", 0, "f"),
	)
	types := []string{"A", "B", "C", "D", "E", "F", "G"}
	want, err := conditions.NewSummaryCondition(&object{conditions: list}, "Ready", conditions.ForConditionTypes(types))
	if err != nil {
		t.Fatal(err)
	}
	for i := range list {
		// Rotate both the object's conditions and the scope.
		rotated := append(slices.Clone(list[i:]), list[:i]...)
		scope := append(slices.Clone(types[i:]), types[:i]...)
		slices.Reverse(scope)
		got, err := conditions.NewSummaryCondition(&object{conditions: rotated}, "Ready", conditions.ForConditionTypes(scope))
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
		list = append(list, condAt(typ, status, "Broken", 0, huge))
		types = append(types, typ)
	}
	obj := &object{conditions: list}
	clock := clocktesting.NewFakePassiveClock(minute(100).Time)
	if _, err := conditions.SetSummaryCondition(obj, "Ready", conditions.ForConditionTypes(types),
		conditions.WithClock{Clock: clock}); err != nil {
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
	if diff := cmp.Diff(minute(100), got.LastTransitionTime); diff != "" {
		t.Errorf("lastTransitionTime (-want +got):\n%s", diff)
	}
}

func TestSummaryMisconfiguration(t *testing.T) {
	tests := []struct {
		name   string
		target string
		opts   []conditions.SummaryOption
		want   string
	}{
		{name: "no options", target: "Ready", want: `cannot summarize conditions into "Ready": no condition types in scope (use ForConditionTypes)`},
		{name: "empty scope", target: "Ready", opts: []conditions.SummaryOption{conditions.ForConditionTypes{}},
			want: `cannot summarize conditions into "Ready": no condition types in scope (use ForConditionTypes)`},
		{name: "target in scope", target: "Ready", opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", "Ready"}},
			want: `cannot summarize conditions into "Ready": the target condition type cannot be in its own scope`},
		{name: "empty target", target: "", opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A"}}},
		{name: "invalid target", target: "not a type!", opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A"}}},
		{name: "invalid type in scope", target: "Ready", opts: []conditions.SummaryOption{conditions.ForConditionTypes{"A", ""}}},
		// The error names the first target or invalid type in catalog order, not a valid one before it.
		{name: "valid type before an invalid one", target: "Ready", opts: []conditions.SummaryOption{conditions.ForConditionTypes{"Z", "A", "Not Ready"}},
			want: `cannot summarize conditions into "Ready": invalid condition type "Not Ready" in scope: Invalid value: "Not Ready": ` +
				`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
				`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &object{conditions: conds(condAt("A", T, "Fine", 0))}
			got, err := conditions.NewSummaryCondition(obj, tt.target, tt.opts...)
			var cfgErr *conditions.SummaryConfigError
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
			changed, err := conditions.SetSummaryCondition(obj, tt.target, tt.opts...)
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
	obj := &object{conditions: conds(condAt("A", F, "Broken", 0, "a is broken"))}
	opts := func(minutes int) []conditions.SummaryOption {
		return []conditions.SummaryOption{
			conditions.ForConditionTypes{"A"},
			conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(minute(minutes).Time)},
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
			want: metav1.Condition{Type: "Ready", Status: F, Reason: conditions.IssueReportedReason, Message: "A: a is broken", LastTransitionTime: minute(1)},
		},
		{
			name: "same input later changes nothing", minutes: 2, wantChanged: false,
			want: metav1.Condition{Type: "Ready", Status: F, Reason: conditions.IssueReportedReason, Message: "A: a is broken", LastTransitionTime: minute(1)},
		},
		{
			name: "message change keeps the transition time", minutes: 3, wantChanged: true,
			edit: func() { meta.FindStatusCondition(obj.conditions, "A").Message = "a is still broken" },
			want: metav1.Condition{Type: "Ready", Status: F, Reason: conditions.IssueReportedReason, Message: "A: a is still broken", LastTransitionTime: minute(1)},
		},
		{
			name: "status change moves the transition time", minutes: 4, wantChanged: true,
			edit: func() { meta.FindStatusCondition(obj.conditions, "A").Status = T },
			want: metav1.Condition{Type: "Ready", Status: T, Reason: conditions.NoIssuesReportedReason, LastTransitionTime: minute(4)},
		},
	}
	for _, s := range steps {
		if s.edit != nil {
			s.edit()
		}
		changed, err := conditions.SetSummaryCondition(obj, "Ready", opts(s.minutes)...)
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

// TestSummaryStateSpace runs NewSummaryCondition on three types, each in every state (missing,
// True, False, Unknown, an invalid status; messages of several lines or long) and every
// combination of negative polarity and ignore-if-missing, and checks what holds whatever the
// rule's details (which TestNewSummaryCondition pins): no error; a fixed reason; never True while
// a type that is not ignored is missing; the message bounded and valid UTF-8; and every reason
// reached.
func TestSummaryStateSpace(t *testing.T) {
	types := []string{"example.com/Gamma", "Beta", "Alpha"}
	type state struct {
		status  metav1.ConditionStatus
		reason  string
		message string
	}
	states := []state{
		{},
		{T, "Fine", ""},
		{F, "Broken", "line one\nline two"},
		{U, "", ""},
		{"Maybe", "Odd", strings.Repeat("é", 600)},
	}
	reached := map[string]bool{}
	combos := 1
	for range types {
		combos *= len(states) * 4
	}
	for combo := range combos {
		var list []metav1.Condition
		var negative, ignored, missing []string
		rest := combo
		for _, typ := range types {
			st := states[rest%len(states)]
			rest /= len(states)
			flags := rest % 4
			rest /= 4
			if st.status == "" {
				missing = append(missing, typ)
			} else {
				list = append(list, condAt(typ, st.status, st.reason, 0, st.message))
			}
			if flags&1 != 0 {
				negative = append(negative, typ)
			}
			if flags&2 != 0 {
				ignored = append(ignored, typ)
			}
		}
		got, err := conditions.NewSummaryCondition(&object{conditions: list}, "Summary", conditions.ForConditionTypes(types),
			conditions.NegativePolarityConditionTypes(negative), conditions.IgnoreTypesIfMissing(ignored))
		if err != nil {
			t.Fatalf("combination %d: %v", combo, err)
		}
		reached[got.Reason] = true
		if !slices.Contains(summaryReasons, got.Reason) {
			t.Fatalf("combination %d: reason %q is not a fixed reason", combo, got.Reason)
		}
		for _, typ := range missing {
			if got.Status == T && !slices.Contains(ignored, typ) {
				t.Fatalf("combination %d: True although %s is missing", combo, typ)
			}
		}
		if len(got.Message) > 4*512+32 || !utf8.ValidString(got.Message) {
			t.Fatalf("combination %d: message of %d bytes (valid UTF-8: %v)", combo, len(got.Message), utf8.ValidString(got.Message))
		}
	}
	if len(reached) != len(summaryReasons) {
		t.Errorf("reasons reached: %v, want all of %v", reached, summaryReasons)
	}
}

// TestSummaryItemsAreSanitized: another writer's message reaches a summary with its terminal
// escapes, bidi overrides, NUL and invalid UTF-8 made visible (conditions.Sanitize), before the
// item is cut.
func TestSummaryItemsAreSanitized(t *testing.T) {
	hostile := "\x1b[2J\x1b[H\x1b]0;title\x07Phase: Running\u202e\x00\xff"
	got, err := conditions.NewSummaryCondition(&object{conditions: conds(condAt("A", F, "Broken", 0, hostile))},
		"Ready", conditions.ForConditionTypes{"A"})
	if err != nil {
		t.Fatal(err)
	}
	want := `A: \x1b[2J\x1b[H\x1b]0;title\x07Phase: Running\u202e\x00\xff`
	if got.Message != want {
		t.Errorf("message %q, want %q", got.Message, want)
	}
	long := strings.Repeat("\x1b", 400) // 400 bytes, 1600 once escaped: cut after escaping
	got, err = conditions.NewSummaryCondition(&object{conditions: conds(condAt("A", F, "Broken", 0, long))},
		"Ready", conditions.ForConditionTypes{"A"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Message); n > 512 || strings.ContainsRune(got.Message, 0x1b) {
		t.Errorf("message of %d bytes %q: want at most 512, escaped", n, got.Message)
	}
}
