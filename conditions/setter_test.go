package conditions_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// strictTime makes cmp tell times apart by location as well as by instant, as reflect.DeepEqual
// does. (cmp alone compares time.Time with its Equal method, which ignores the location.)
var strictTime = cmp.Comparer(func(a, b time.Time) bool {
	return a.Equal(b) && a.Location() == b.Location()
})

func TestSet(t *testing.T) {
	tOld := t0.Add(-time.Hour) // when the stored conditions last changed
	withTime := func(c metav1.Condition, ltt time.Time) metav1.Condition {
		c.LastTransitionTime = metav1.NewTime(ltt)
		return c
	}
	withGeneration := func(c metav1.Condition, gen int64) metav1.Condition {
		c.ObservedGeneration = gen
		return c
	}
	explicit := t0.Add(-10*time.Minute + 250*time.Millisecond) // an explicit time, not whole seconds

	tests := []struct {
		name        string
		m           *v1alpha1.Machine
		in          metav1.Condition
		now         time.Time
		wantChanged bool
		want        []metav1.Condition
	}{
		{
			name:        "new condition gets the clock's time truncated to seconds",
			m:           machine(3),
			in:          in("NodeReady", F, "NodeDoesNotExist", "no Node yet"),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", F, "NodeDoesNotExist", t0, 3, "no Node yet")},
		},
		{
			name:        "unchanged: clock moved on by seconds",
			m:           machine(3, cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")),
			in:          in("NodeReady", F, "NodeDoesNotExist", "no Node yet"),
			now:         tOld.Add(7*time.Second + 300*time.Millisecond),
			wantChanged: false,
			want:        []metav1.Condition{cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")},
		},
		{
			name:        "unchanged: clock moved on by minutes",
			m:           machine(3, cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")),
			in:          in("NodeReady", F, "NodeDoesNotExist", "no Node yet"),
			now:         tOld.Add(42 * time.Minute),
			wantChanged: false,
			want:        []metav1.Condition{cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")},
		},
		{
			name:        "status change moves lastTransitionTime",
			m:           machine(3, cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")),
			in:          in("NodeReady", T, "NodeReady"),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", t0, 3)},
		},
		{
			name:        "reason-only change is a change but keeps lastTransitionTime",
			m:           machine(3, cond("NodeReady", F, "NodeDoesNotExist", tOld, 3, "no Node yet")),
			in:          in("NodeReady", F, "NodeNotReady", "no Node yet"),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", F, "NodeNotReady", tOld, 3, "no Node yet")},
		},
		{
			name:        "message-only change is a change but keeps lastTransitionTime",
			m:           machine(3, cond("NodeReady", F, "NodeNotReady", tOld, 3, "kubelet stopped posting")),
			in:          in("NodeReady", F, "NodeNotReady", "container runtime is down"),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", F, "NodeNotReady", tOld, 3, "container runtime is down")},
		},
		{
			name:        "observedGeneration-only change (generation bumped) is a change but keeps lastTransitionTime",
			m:           machine(4, cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          in("NodeReady", T, "NodeReady"),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", tOld, 4)},
		},
		{
			name:        "observedGeneration comes from metadata.generation, not from the input",
			m:           machine(3),
			in:          withGeneration(in("NodeReady", T, "NodeReady"), 99),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", t0, 3)},
		},
		{
			name:        "an input observedGeneration never makes an unchanged condition a change",
			m:           machine(3, cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          withGeneration(in("NodeReady", T, "NodeReady"), 1),
			now:         t0,
			wantChanged: false,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", tOld, 3)},
		},
		{
			name:        "explicit lastTransitionTime is used, truncated, on a status change",
			m:           machine(3, cond("NodeReady", F, "NodeNotReady", tOld, 3)),
			in:          withTime(in("NodeReady", T, "NodeReady"), explicit),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", explicit, 3)},
		},
		{
			name:        "explicit lastTransitionTime is used, truncated, on a new condition",
			m:           machine(3),
			in:          withTime(in("NodeReady", T, "NodeReady"), explicit),
			now:         t0,
			wantChanged: true,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", explicit, 3)},
		},
		{
			name:        "explicit lastTransitionTime is ignored when the status is unchanged",
			m:           machine(3, cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          withTime(in("NodeReady", T, "NodeReady"), explicit),
			now:         t0,
			wantChanged: false,
			want:        []metav1.Condition{cond("NodeReady", T, "NodeReady", tOld, 3)},
		},
		{
			name: "Ready is inserted first",
			m: machine(3,
				cond("Deleting", F, "NotDeleting", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          in("Ready", T, "NoIssuesReported"),
			now:         t0,
			wantChanged: true,
			want: []metav1.Condition{
				cond("Ready", T, "NoIssuesReported", t0, 3),
				cond("Deleting", F, "NotDeleting", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3),
			},
		},
		{
			name: "other types are inserted alphabetically after Ready",
			m: machine(3,
				cond("Ready", T, "NoIssuesReported", tOld, 3),
				cond("Deleting", F, "NotDeleting", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          in("InfrastructureReady", T, "InfrastructureProvisioned"),
			now:         t0,
			wantChanged: true,
			want: []metav1.Condition{
				cond("Ready", T, "NoIssuesReported", tOld, 3),
				cond("Deleting", F, "NotDeleting", tOld, 3),
				cond("InfrastructureReady", T, "InfrastructureProvisioned", t0, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3),
			},
		},
		{
			name: "prefixed types sort by bytes too",
			m: machine(3,
				cond("Ready", T, "NoIssuesReported", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3)),
			in:          in("example.com/Backup", T, "Done"),
			now:         t0,
			wantChanged: true,
			want: []metav1.Condition{
				cond("Ready", T, "NoIssuesReported", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3),
				cond("example.com/Backup", T, "Done", t0, 3),
			},
		},
		{
			name: "re-sorting an unsorted list counts as a change",
			m: machine(3,
				cond("NodeReady", T, "NodeReady", tOld, 3),
				cond("Ready", T, "NoIssuesReported", tOld, 3)),
			in:          in("NodeReady", T, "NodeReady"),
			now:         t0,
			wantChanged: true,
			want: []metav1.Condition{
				cond("Ready", T, "NoIssuesReported", tOld, 3),
				cond("NodeReady", T, "NodeReady", tOld, 3),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed, err := conditions.Set(tt.m, tt.in, clockAt(tt.now))
			if err != nil {
				t.Fatalf("Set() error = %v", err)
			}
			if changed != tt.wantChanged {
				t.Errorf("Set() changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, tt.m.Status.Conditions, strictTime); diff != "" {
				t.Errorf("conditions after Set (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetSequence walks one condition through a life with a clock that keeps moving.
func TestSetSequence(t *testing.T) {
	clock := clocktesting.NewFakeClock(t0)
	opt := conditions.WithClock{Clock: clock}
	m := machine(1)
	start := t0

	steps := []struct {
		name        string
		step        time.Duration
		mark        func(conditions.Setter, string, string, string, ...conditions.SetOption) (bool, error)
		reason, msg string
		wantChanged bool
		want        metav1.Condition
	}{
		{"first report", 0, conditions.MarkFalse, "NodeDoesNotExist", "", true, cond("NodeReady", F, "NodeDoesNotExist", start, 1)},
		{"same, a second later", time.Second, conditions.MarkFalse, "NodeDoesNotExist", "", false, cond("NodeReady", F, "NodeDoesNotExist", start, 1)},
		{"same, half an hour later", 30 * time.Minute, conditions.MarkFalse, "NodeDoesNotExist", "", false, cond("NodeReady", F, "NodeDoesNotExist", start, 1)},
		{"Node registered", 400 * time.Millisecond, conditions.MarkTrue, "NodeReady", "", true, cond("NodeReady", T, "NodeReady", start.Add(30*time.Minute+1400*time.Millisecond), 1)},
		{"message added", time.Minute, conditions.MarkTrue, "NodeReady", "kubelet is posting ready status", true, cond("NodeReady", T, "NodeReady", start.Add(30*time.Minute+1400*time.Millisecond), 1, "kubelet is posting ready status")},
		{"lost contact", 5 * time.Minute, conditions.MarkUnknown, "NodeReadyUnknown", "", true, cond("NodeReady", U, "NodeReadyUnknown", start.Add(36*time.Minute+1400*time.Millisecond), 1)},
	}
	for _, s := range steps {
		clock.Step(s.step)
		changed, err := s.mark(m, "NodeReady", s.reason, s.msg, opt)
		if err != nil {
			t.Fatalf("%s: error = %v", s.name, err)
		}
		if changed != s.wantChanged {
			t.Errorf("%s: changed = %v, want %v", s.name, changed, s.wantChanged)
		}
		if diff := cmp.Diff([]metav1.Condition{s.want}, m.Status.Conditions, strictTime); diff != "" {
			t.Errorf("%s: conditions (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestSetWithoutGeneration checks a Setter that is not a Kubernetes object: the input's
// observedGeneration is kept as given.
func TestSetWithoutGeneration(t *testing.T) {
	p := &plainSetter{}
	c := in("Synced", T, "Synced")
	c.ObservedGeneration = 7
	if _, err := conditions.Set(p, c, clockAt(t0)); err != nil {
		t.Fatalf("Set() error = %v", err)
	}
	want := []metav1.Condition{cond("Synced", T, "Synced", t0, 7)}
	if diff := cmp.Diff(want, p.conds, strictTime); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

func TestSetRejectsInvalid(t *testing.T) {
	tOld := t0.Add(-time.Hour)
	// stored is deliberately unsorted: a rejected Set must not even re-sort it.
	stored := func() []metav1.Condition {
		return []metav1.Condition{
			cond("NodeReady", T, "NodeReady", tOld, 3),
			cond("Ready", T, "NoIssuesReported", tOld, 3),
		}
	}
	tests := []struct {
		name       string
		generation int64
		in         metav1.Condition
		wantFields []string
	}{
		{"type with a space", 3, in("Node Ready", T, "NodeReady"), []string{"status.conditions[Node Ready].type"}},
		{"empty type", 3, in("", T, "NodeReady"), []string{"status.conditions[].type", "status.conditions[].type"}}, // empty, and not matching the pattern
		{"type longer than 316 characters", 3, in(strings.Repeat("a", 253)+"/"+strings.Repeat("b", 63), T, "NodeReady"), []string{"status.conditions[" + strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63) + "].type"}},
		{"bad status", 3, in("Ready", "Maybe", "NoIssuesReported"), []string{"status.conditions[Ready].status"}},
		{"empty status", 3, in("Ready", "", "NoIssuesReported"), []string{"status.conditions[Ready].status"}},
		{"lower-case status", 3, in("Ready", "true", "NoIssuesReported"), []string{"status.conditions[Ready].status"}},
		{"reason is a sentence", 3, in("Ready", F, "Node is not ready"), []string{"status.conditions[Ready].reason"}},
		{"reason starts with a digit", 3, in("Ready", F, "1Reason"), []string{"status.conditions[Ready].reason"}},
		{"reason ends with a colon", 3, in("Ready", F, "Reason:"), []string{"status.conditions[Ready].reason"}},
		{"empty reason", 3, in("Ready", F, ""), []string{"status.conditions[Ready].reason"}},
		{"several violations at once", 3, in("bad type", "", ""), []string{"status.conditions[bad type].type", "status.conditions[bad type].status", "status.conditions[bad type].reason"}},
		{"negative generation on the object", -1, in("Ready", F, "NotReady"), []string{"status.conditions[Ready].observedGeneration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := machine(tt.generation, stored()...)
			changed, err := conditions.Set(m, tt.in, clockAt(t0))
			if changed {
				t.Errorf("Set() changed = true, want false")
			}
			var verr *conditions.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Set() error = %v (%T), want a *conditions.ValidationError", err, err)
			}
			if verr.Type != tt.in.Type {
				t.Errorf("ValidationError.Type = %q, want %q", verr.Type, tt.in.Type)
			}
			var gotFields []string
			for _, e := range verr.Errs {
				gotFields = append(gotFields, e.Field)
			}
			if diff := cmp.Diff(tt.wantFields, gotFields); diff != "" {
				t.Errorf("ValidationError fields (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(err.Error(), "invalid condition ") {
				t.Errorf("Error() = %q, want it to start with %q", err.Error(), "invalid condition ")
			}
			if diff := cmp.Diff(stored(), m.Status.Conditions, strictTime); diff != "" {
				t.Errorf("a rejected Set changed the conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetDoesNotAlias checks that Set writes a new slice and never the caller's previous one.
func TestSetDoesNotAlias(t *testing.T) {
	tOld := t0.Add(-time.Hour)
	tests := []struct {
		name   string
		before func() []metav1.Condition
		in     metav1.Condition
	}{
		{
			name:   "update in place",
			before: func() []metav1.Condition { return []metav1.Condition{cond("Ready", T, "NoIssuesReported", tOld, 1)} },
			in:     in("Ready", F, "NodeNotReady", "NodeReady is False"),
		},
		{
			name: "append with spare capacity",
			before: func() []metav1.Condition {
				s := make([]metav1.Condition, 1, 4)
				s[0] = cond("Ready", T, "NoIssuesReported", tOld, 1)
				return s
			},
			in: in("NodeReady", T, "NodeReady"),
		},
		{
			name: "insert before existing conditions",
			before: func() []metav1.Condition {
				return []metav1.Condition{cond("Deleting", F, "NotDeleting", tOld, 1), cond("NodeReady", T, "NodeReady", tOld, 1)}
			},
			in: in("Ready", T, "NoIssuesReported"),
		},
		{
			name: "re-sort",
			before: func() []metav1.Condition {
				return []metav1.Condition{cond("NodeReady", T, "NodeReady", tOld, 1), cond("Ready", T, "NoIssuesReported", tOld, 1)}
			},
			in: in("NodeReady", T, "NodeReady"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := tt.before()
			full := prev[:cap(prev)] // includes the spare capacity an append could write into
			want := append([]metav1.Condition(nil), full...)
			m := machine(1)
			m.Status.Conditions = prev

			changed, err := conditions.Set(m, tt.in, clockAt(t0))
			if err != nil || !changed {
				t.Fatalf("Set() = %v, %v; want true, nil", changed, err)
			}
			if diff := cmp.Diff(want, full, strictTime); diff != "" {
				t.Errorf("Set wrote into the caller's previous slice (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMark(t *testing.T) {
	type markFunc func(conditions.Setter, string, string, string, ...conditions.SetOption) (bool, error)
	tests := []struct {
		name string
		mark markFunc
		want metav1.Condition
	}{
		{"MarkTrue", conditions.MarkTrue, cond("InfrastructureReady", T, "SomeReason", t0, 2, "some message")},
		{"MarkFalse", conditions.MarkFalse, cond("InfrastructureReady", F, "SomeReason", t0, 2, "some message")},
		{"MarkUnknown", conditions.MarkUnknown, cond("InfrastructureReady", U, "SomeReason", t0, 2, "some message")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := machine(2)
			changed, err := tt.mark(m, "InfrastructureReady", "SomeReason", "some message", clockAt(t0))
			if err != nil || !changed {
				t.Fatalf("%s() = %v, %v; want true, nil", tt.name, changed, err)
			}
			if diff := cmp.Diff([]metav1.Condition{tt.want}, m.Status.Conditions, strictTime); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}

			changed, err = tt.mark(m, "InfrastructureReady", "SomeReason", "some message", clockAt(t0.Add(time.Hour)))
			if err != nil || changed {
				t.Errorf("second %s() = %v, %v; want false, nil", tt.name, changed, err)
			}

			changed, err = tt.mark(m, "InfrastructureReady", "Not a reason", "", clockAt(t0))
			var verr *conditions.ValidationError
			if changed || !errors.As(err, &verr) {
				t.Errorf("%s() with an invalid reason = %v, %v; want false, *ValidationError", tt.name, changed, err)
			}
		})
	}
}

// TestNilSetter checks that Set, the Mark functions and Delete do nothing on a nil Setter.
func TestNilSetter(t *testing.T) {
	setters := []struct {
		name string
		to   conditions.Setter
	}{
		{"nil Setter", nil},
		{"typed-nil Machine", (*v1alpha1.Machine)(nil)},
	}
	for _, s := range setters {
		t.Run(s.name, func(t *testing.T) {
			type result struct {
				Changed bool
				Err     error
			}
			got := map[string]result{}
			changed, err := conditions.Set(s.to, in("Ready", T, "NoIssuesReported"), clockAt(t0))
			got["Set"] = result{changed, err}
			changed, err = conditions.MarkTrue(s.to, "Ready", "NoIssuesReported", "", clockAt(t0))
			got["MarkTrue"] = result{changed, err}
			changed, err = conditions.MarkFalse(s.to, "Ready", "NotReady", "", clockAt(t0))
			got["MarkFalse"] = result{changed, err}
			changed, err = conditions.MarkUnknown(s.to, "Ready", "NotReady", "", clockAt(t0))
			got["MarkUnknown"] = result{changed, err}
			got["Delete"] = result{Changed: conditions.Delete(s.to, "Ready")}

			want := map[string]result{"Set": {}, "MarkTrue": {}, "MarkFalse": {}, "MarkUnknown": {}, "Delete": {}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	tOld := t0.Add(-time.Hour)
	ready := cond("Ready", T, "NoIssuesReported", tOld, 1)
	deleting := cond("Deleting", F, "NotDeleting", tOld, 1)
	nodeReady := cond("NodeReady", T, "NodeReady", tOld, 1)

	tests := []struct {
		name        string
		before      []metav1.Condition
		typ         string
		wantDeleted bool
		want        []metav1.Condition
	}{
		{"present, in the middle", []metav1.Condition{ready, deleting, nodeReady}, "Deleting", true, []metav1.Condition{ready, nodeReady}},
		{"present, first", []metav1.Condition{ready, deleting, nodeReady}, "Ready", true, []metav1.Condition{deleting, nodeReady}},
		{"present, the only one", []metav1.Condition{ready}, "Ready", true, []metav1.Condition{}},
		{"absent", []metav1.Condition{ready, nodeReady}, "Deleting", false, []metav1.Condition{ready, nodeReady}},
		{"no conditions", nil, "Ready", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := append([]metav1.Condition(nil), tt.before...)
			m := machine(1)
			m.Status.Conditions = prev

			if got := conditions.Delete(m, tt.typ); got != tt.wantDeleted {
				t.Errorf("Delete() = %v, want %v", got, tt.wantDeleted)
			}
			if diff := cmp.Diff(tt.want, m.Status.Conditions, strictTime); diff != "" {
				t.Errorf("conditions after Delete (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.before, prev, strictTime); diff != "" {
				t.Errorf("Delete wrote into the caller's previous slice (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetRepairsMissingTransitionTime: a condition stored without lastTransitionTime (written
// outside Set) can still be set with the same status; it gets the clock's time.
func TestSetRepairsMissingTransitionTime(t *testing.T) {
	m := &v1alpha1.Machine{Status: v1alpha1.MachineStatus{Conditions: []metav1.Condition{
		{Type: "NodeReady", Status: metav1.ConditionTrue, Reason: "NodeReady"},
	}}}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	changed, err := conditions.Set(m, metav1.Condition{Type: "NodeReady", Status: metav1.ConditionTrue, Reason: "NodeReady"},
		conditions.WithClock{Clock: clocktesting.NewFakePassiveClock(now)})
	if err != nil || !changed {
		t.Fatalf("Set = %v, %v; want true, nil", changed, err)
	}
	if got := conditions.GetLastTransitionTime(m, "NodeReady"); got == nil || !got.Time.Equal(now) {
		t.Fatalf("lastTransitionTime %v, want %v", got, now)
	}
}
