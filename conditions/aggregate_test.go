package conditions_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// named builds a Machine called name in namespace "default" with the given conditions.
func named(name string, c ...metav1.Condition) *v1alpha1.Machine {
	m := machine(1, c...)
	m.Name = name
	return m
}

func readyCond(s metav1.ConditionStatus, reason string, msg ...string) metav1.Condition {
	return condAt("Ready", s, reason, 0, msg...)
}

func aggregated(t string, s metav1.ConditionStatus, reason, message string) *metav1.Condition {
	return &metav1.Condition{Type: t, Status: s, Reason: reason, Message: message}
}

var machinesKind = conditions.ObjectKind{"Machine", "Machines"}

func TestNewAggregateCondition(t *testing.T) {
	ok := readyCond(T, "NoIssuesReported")
	tests := []struct {
		name          string
		from          []*v1alpha1.Machine
		conditionType string
		opts          []conditions.AggregateOption
		want          *metav1.Condition
	}{
		{
			name: "all True: True, no message",
			from: []*v1alpha1.Machine{named("m1", ok), named("m2", ok)},
			want: aggregated("Ready", T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "one False: IssueReported, counted and named",
			from: []*v1alpha1.Machine{named("m1", ok), named("m2", readyCond(F, "NodeNotReady", "kubelet stopped posting node status")), named("m3", ok)},
			want: aggregated("Ready", F, conditions.IssueReportedReason,
				"Ready is not True on 1 of 3 Machines: 1 False\n"+
					"* NodeNotReady: 1 Machine (m2): kubelet stopped posting node status"),
		},
		{
			name: "another writer's message escaped line by line, its lines kept",
			from: []*v1alpha1.Machine{named("m1", readyCond(F, "NodeNotReady", "\x1b[2Jcleared\n\u202eevil"))},
			want: aggregated("Ready", F, conditions.IssueReportedReason,
				"Ready is not True on 1 of 1 Machine: 1 False\n"+
					"* NodeNotReady: 1 Machine (m1): \\x1b[2Jcleared\n  \\u202eevil"),
		},
		{
			name: "False beats Unknown and missing; issues first, then the largest group, then by reason",
			from: []*v1alpha1.Machine{
				named("m1", ok),
				named("m2", readyCond(U, "NodeReadyUnknown")),
				named("m3", readyCond(F, "NodeNotReady", "kubelet stopped posting node status")),
				named("m4"),
				named("m5", readyCond(F, "InfrastructureFailed", "quota exceeded")),
				named("m6", readyCond(F, "NodeNotReady", "kubelet stopped posting node status")),
				named("m7", readyCond(U, "NodeReadyUnknown")),
			},
			want: aggregated("Ready", F, conditions.MultipleIssuesReportedReason,
				"Ready is not True on 6 of 7 Machines: 3 False, 2 Unknown, 1 not yet reported\n"+
					"* NodeNotReady: 2 Machines (m3, m6): kubelet stopped posting node status\n"+
					"* InfrastructureFailed: 1 Machine (m5): quota exceeded\n"+
					"* NodeReadyUnknown: 2 Machines (m2, m7)\n"+
					"and 1 more Machine"),
		},
		{
			name: "one missing: NotYetReported, never True",
			from: []*v1alpha1.Machine{named("m1", ok), named("m2"), named("m3", ok)},
			want: aggregated("Ready", U, conditions.NotYetReportedReason,
				"Ready is not True on 1 of 3 Machines: 1 not yet reported\n"+
					"* not yet reported: 1 Machine (m2)"),
		},
		{
			name: "one Unknown: UnknownReported",
			from: []*v1alpha1.Machine{named("m1", ok), named("m2", readyCond(U, "NodeReadyUnknown", "Kubelet stopped posting node status."))},
			want: aggregated("Ready", U, conditions.UnknownReportedReason,
				"Ready is not True on 1 of 2 Machines: 1 Unknown\n"+
					"* NodeReadyUnknown: 1 Machine (m2): Kubelet stopped posting node status."),
		},
		{
			name: "missing and Unknown: MultipleUnknownReported; an invalid status counts as Unknown",
			from: []*v1alpha1.Machine{named("m1"), named("m2", readyCond("", "")), named("m3", ok)},
			want: aggregated("Ready", U, conditions.MultipleUnknownReportedReason,
				"Ready is not True on 2 of 3 Machines: 1 Unknown, 1 not yet reported\n"+
					"* no status: 1 Machine (m2)\n"+
					"* not yet reported: 1 Machine (m1)"),
		},
		{
			name: "no objects: Unknown NoConditionsReported, never True",
			from: nil,
			want: aggregated("Ready", U, conditions.NoConditionsReportedReason, "Ready is not reported: there are no Machines"),
		},
		{
			name:          "the catalog's negative polarity, passed explicitly: True is the issue",
			conditionType: deleting,
			opts:          []conditions.AggregateOption{machinesKind, conditions.NegativePolarityConditionTypes(negativeTypes())},
			from: []*v1alpha1.Machine{
				named("m1", condAt(deleting, F, v1alpha1.MachineNotDeletingReason, 0)),
				named("m2", condAt(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0, "draining Node m2")),
			},
			want: aggregated(deleting, F, conditions.IssueReportedReason,
				"Deleting is not False on 1 of 2 Machines: 1 True\n"+
					"* DrainingNode: 1 Machine (m2): draining Node m2"),
		},
		{
			name:          "no registry: without NegativePolarityConditionTypes even Deleting is positive",
			conditionType: deleting,
			from: []*v1alpha1.Machine{
				named("m1", condAt(deleting, F, v1alpha1.MachineNotDeletingReason, 0)),
				named("m2", condAt(deleting, T, v1alpha1.MachineDeletingDrainingNodeReason, 0, "draining Node m2")),
			},
			want: aggregated(deleting, F, conditions.IssueReportedReason,
				"Deleting is not True on 1 of 2 Machines: 1 False\n"+
					"* NotDeleting: 1 Machine (m1)"),
		},
		{
			name:          "NegativePolarityConditionTypes naming other types only: the type aggregated stays positive",
			conditionType: "example.com/Degraded",
			opts:          []conditions.AggregateOption{machinesKind, conditions.NegativePolarityConditionTypes{"example.com/Other", deleting}},
			from: []*v1alpha1.Machine{
				named("m1", condAt("example.com/Degraded", T, "Degraded", 0)),
			},
			want: aggregated("example.com/Degraded", T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name:          "NegativePolarityConditionTypes naming the type aggregated; TargetConditionType names the result",
			conditionType: "example.com/Degraded",
			opts:          []conditions.AggregateOption{conditions.NegativePolarityConditionTypes{"example.com/Degraded"}, conditions.TargetConditionType("example.com/MachinesDegraded")},
			from: []*v1alpha1.Machine{
				named("m1", condAt("example.com/Degraded", F, "Fine", 0)),
				named("m2", condAt("example.com/Degraded", F, "Fine", 0)),
			},
			want: aggregated("example.com/MachinesDegraded", T, conditions.NoIssuesReportedReason, ""),
		},
		{
			name: "a group per reason and message, the largest first",
			from: []*v1alpha1.Machine{
				named("m2", readyCond(F, "IssueReported", "* NodeReady: kubelet stopped posting node status")),
				named("m1", readyCond(F, "IssueReported", "* InfrastructureReady: quota exceeded")),
				named("m3", readyCond(F, "IssueReported", "* NodeReady: kubelet stopped posting node status")),
				named("m4", readyCond(F, "IssueReported", "* InfrastructureReady: disk full")),
			},
			want: aggregated("Ready", F, conditions.MultipleIssuesReportedReason,
				"Ready is not True on 4 of 4 Machines: 4 False\n"+
					"* IssueReported: 2 Machines (m2, m3): * NodeReady: kubelet stopped posting node status\n"+
					"* IssueReported: 1 Machine (m4): * InfrastructureReady: disk full\n"+
					"* IssueReported: 1 Machine (m1): * InfrastructureReady: quota exceeded"),
		},
		{
			name: "a multi-line message is indented under its group",
			from: []*v1alpha1.Machine{named("m1", readyCond(F, "MultipleIssuesReported", "* NodeReady: not ready\n* NodeHealthy: DiskPressure"))},
			want: aggregated("Ready", F, conditions.IssueReportedReason,
				"Ready is not True on 1 of 1 Machine: 1 False\n"+
					"* MultipleIssuesReported: 1 Machine (m1): * NodeReady: not ready\n  * NodeHealthy: DiskPressure"),
		},
		{
			name: "at most five names per group",
			from: func() []*v1alpha1.Machine {
				var out []*v1alpha1.Machine
				for i := range 7 {
					out = append(out, named(fmt.Sprintf("m%d", 7-i), readyCond(F, "NodeNotReady")))
				}
				return out
			}(),
			want: aggregated("Ready", F, conditions.MultipleIssuesReportedReason,
				"Ready is not True on 7 of 7 Machines: 7 False\n"+
					"* NodeNotReady: 7 Machines (m1, m2, m3, m4, m5, …)"),
		},
		{
			name: "five names are all listed",
			from: func() []*v1alpha1.Machine {
				var out []*v1alpha1.Machine
				for i := range 5 {
					out = append(out, named(fmt.Sprintf("m%d", 5-i), readyCond(F, "NodeNotReady")))
				}
				return out
			}(),
			want: aggregated("Ready", F, conditions.MultipleIssuesReportedReason,
				"Ready is not True on 5 of 5 Machines: 5 False\n"+
					"* NodeNotReady: 5 Machines (m1, m2, m3, m4, m5)"),
		},
		{
			name: "at most three groups, then the number of Machines left",
			from: []*v1alpha1.Machine{
				named("a", readyCond(F, "A")), named("b1", readyCond(F, "B")), named("b2", readyCond(F, "B")),
				named("c", readyCond(F, "C")), named("d1", readyCond(F, "D")), named("d2", readyCond(F, "D")),
				named("e"),
			},
			want: aggregated("Ready", F, conditions.MultipleIssuesReportedReason,
				"Ready is not True on 7 of 7 Machines: 6 False, 1 not yet reported\n"+
					"* B: 2 Machines (b1, b2)\n"+
					"* D: 2 Machines (d1, d2)\n"+
					"* A: 1 Machine (a)\n"+
					"and 2 more Machines"),
		},
		{
			name: "WithObjectName names the objects; default kind is objects",
			opts: []conditions.AggregateOption{conditions.WithObjectName(func(m *v1alpha1.Machine) string { return m.Namespace + "/" + m.Name })},
			from: []*v1alpha1.Machine{named("m1", readyCond(F, "Broken")), named("m2", ok)},
			want: aggregated("Ready", F, conditions.IssueReportedReason,
				"Ready is not True on 1 of 2 objects: 1 False\n"+
					"* Broken: 1 object (default/m1)"),
		},
		{
			name: "WithObjectName may take an interface the objects implement; options accumulate, nil ones are skipped",
			opts: []conditions.AggregateOption{
				conditions.TargetConditionType("Ignored"), nil, conditions.WithObjectName[func(*v1alpha1.Machine) string](nil),
				conditions.WithObjectName(func(g conditions.Getter) string { return fmt.Sprint(len(g.GetConditions())) }),
				conditions.TargetConditionType("MachinesReady"), machinesKind,
			},
			from: []*v1alpha1.Machine{named("m1", readyCond(F, "Broken"))},
			want: aggregated("MachinesReady", F, conditions.IssueReportedReason,
				"Ready is not True on 1 of 1 Machine: 1 False\n"+
					"* Broken: 1 Machine (1)"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conditionType := tt.conditionType
			if conditionType == "" {
				conditionType = "Ready"
			}
			opts := tt.opts
			if opts == nil {
				opts = []conditions.AggregateOption{machinesKind}
			}
			var before []*v1alpha1.Machine
			for _, m := range tt.from {
				before = append(before, m.DeepCopy())
			}
			got, err := conditions.NewAggregateCondition(tt.from, conditionType, opts...)
			if err != nil {
				t.Fatalf("NewAggregateCondition() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewAggregateCondition() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.from); diff != "" {
				t.Errorf("NewAggregateCondition() modified its input (-before +after):\n%s", diff)
			}
			if !slices.Contains(summaryReasons, got.Reason) {
				t.Errorf("reason %q is not one of the fixed reasons", got.Reason)
			}
		})
	}
}

func TestNewAggregateConditionIsDeterministic(t *testing.T) {
	from := []*v1alpha1.Machine{
		named("m1", readyCond(F, "NodeNotReady", "a")),
		named("m1", readyCond(F, "NodeNotReady", "b")), // the same name in another namespace
		named("m2", readyCond(F, "NodeNotReady", "c")),
		named("m3", readyCond(U, "NodeReadyUnknown")),
		named("m4", readyCond(F, "Other")),
		named("m5", readyCond(F, "Other")),
		named("m6"),
		named("m7", readyCond(T, "NoIssuesReported")),
		named("m8", readyCond(F, "Third")),
	}
	from[1].Namespace = "other"
	want, err := conditions.NewAggregateCondition(from, "Ready", machinesKind)
	if err != nil {
		t.Fatal(err)
	}
	for i := range from {
		rotated := append(slices.Clone(from[i:]), from[:i]...)
		reversed := slices.Clone(rotated)
		slices.Reverse(reversed)
		for _, list := range [][]*v1alpha1.Machine{rotated, reversed} {
			got, err := conditions.NewAggregateCondition(list, "Ready", machinesKind)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rotation %d: aggregate differs (-want +got):\n%s", i, diff)
			}
		}
	}
}

// TestNewAggregateConditionLookalikeGroups: an Unknown condition whose reason reads "not yet
// reported" (GetConditions may return conditions nobody validated) and a missing condition make
// two groups of the same size and label; the present one is listed first, on every call (the
// groups are gathered in a map, whose order changes from call to call).
func TestNewAggregateConditionLookalikeGroups(t *testing.T) {
	from := []*v1alpha1.Machine{named("m1"), named("m2", readyCond(U, "not yet reported"))}
	want := aggregated("Ready", U, conditions.MultipleUnknownReportedReason,
		"Ready is not True on 2 of 2 Machines: 1 Unknown, 1 not yet reported\n"+
			"* not yet reported: 1 Machine (m2)\n"+
			"* not yet reported: 1 Machine (m1)")
	for range 32 {
		got, err := conditions.NewAggregateCondition(from, "Ready", machinesKind)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("NewAggregateCondition() (-want +got):\n%s", diff)
		}
	}
}

func TestNewAggregateConditionMessageIsBounded(t *testing.T) {
	huge := strings.Repeat("日本", 40*1024/6) // about 40 KB of three-byte runes
	var from []*v1alpha1.Machine
	for i := range 10000 {
		name := fmt.Sprintf("%s-%05d", strings.Repeat("n", 240), i)
		status := F
		if i%3 == 0 {
			status = U
		}
		// Every Machine its own reason, so there are 10,000 groups.
		from = append(from, named(name, readyCond(status, fmt.Sprintf("Reason%05d", i), huge)))
	}
	got, err := conditions.NewAggregateCondition(from, "Ready", conditions.ObjectKind{strings.Repeat("Machine", 100), strings.Repeat("Machines", 100)})
	if err != nil {
		t.Fatalf("NewAggregateCondition() error = %v", err)
	}
	if n := len(got.Message); n > conditions.MaxMessageBytes || n > 8192 {
		t.Errorf("message is %d bytes, want at most 8192", n)
	}
	if !utf8.ValidString(got.Message) {
		t.Errorf("message is not valid UTF-8")
	}
	if lines := strings.Split(got.Message, "\n"); len(lines) != 5 || !strings.HasPrefix(lines[4], "and 9997 more ") {
		t.Errorf("want a header, three groups and the rest; got %d lines, last %.40q", len(lines), lines[len(lines)-1])
	}
	if got.Status != F || got.Reason != conditions.MultipleIssuesReportedReason {
		t.Errorf("got %s/%s, want False/MultipleIssuesReported", got.Status, got.Reason)
	}
	got.LastTransitionTime = minute(1)
	if err := conditions.Validate(*got); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestNewAggregateConditionMisconfiguration(t *testing.T) {
	ok := []*v1alpha1.Machine{named("m1", readyCond(T, "NoIssuesReported"))}
	long := strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63) // a qualified name, but longer than 316
	tests := []struct {
		name string
		call func() (*metav1.Condition, error)
		want string
	}{
		{
			name: "empty condition type",
			call: func() (*metav1.Condition, error) { return conditions.NewAggregateCondition(ok, "") },
		},
		{
			name: "invalid condition type",
			call: func() (*metav1.Condition, error) { return conditions.NewAggregateCondition(ok, "not a type!") },
		},
		{
			name: "condition type longer than 316 characters",
			call: func() (*metav1.Condition, error) { return conditions.NewAggregateCondition(ok, long) },
		},
		{
			name: "invalid target type",
			call: func() (*metav1.Condition, error) {
				return conditions.NewAggregateCondition(ok, "Ready", conditions.TargetConditionType("Machines Ready"))
			},
		},
		{
			name: "nil Machine",
			call: func() (*metav1.Condition, error) {
				return conditions.NewAggregateCondition(append(ok, nil), "Ready")
			},
			want: `cannot aggregate condition "Ready" into "Ready": from[1] is nil`,
		},
		{
			name: "nil Getter",
			call: func() (*metav1.Condition, error) {
				return conditions.NewAggregateCondition([]conditions.Getter{nil}, "Ready")
			},
			want: `cannot aggregate condition "Ready" into "Ready": from[0] is nil`,
		},
		{
			name: "objects without names",
			call: func() (*metav1.Condition, error) {
				return conditions.NewAggregateCondition([]*object{{}}, "Ready")
			},
			want: `cannot aggregate condition "Ready" into "Ready": cannot name from[0]: *conditions_test.object has no GetName method (use WithObjectName)`,
		},
		{
			name: "WithObjectName for another type",
			call: func() (*metav1.Condition, error) {
				return conditions.NewAggregateCondition(ok, "Ready", conditions.WithObjectName(func(_ *object) string { return "x" }))
			},
			want: `cannot aggregate condition "Ready" into "Ready": cannot name from[0]: the ObjectName option does not take a *v1alpha1.Machine`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call()
			var cfgErr *conditions.AggregateConfigError
			if !errors.As(err, &cfgErr) {
				t.Fatalf("NewAggregateCondition() error = %v, want an *AggregateConfigError", err)
			}
			if got != nil {
				t.Errorf("NewAggregateCondition() = %v, want nil", got)
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.want)
			}
		})
	}
}

// Objects without names aggregate fine when WithObjectName names them.
func TestNewAggregateConditionOfUnnamedObjects(t *testing.T) {
	from := []*object{
		{conditions: conds(condAt("Available", F, "Down", 0, "connection refused"))},
		{conditions: conds(condAt("Available", T, "Up", 0))},
	}
	index := map[*object]string{from[0]: "backend-0", from[1]: "backend-1"}
	got, err := conditions.NewAggregateCondition(from, "Available",
		conditions.WithObjectName(func(o *object) string { return index[o] }), conditions.ObjectKind{"backend", "backends"})
	if err != nil {
		t.Fatal(err)
	}
	want := aggregated("Available", F, conditions.IssueReportedReason,
		"Available is not True on 1 of 2 backends: 1 False\n* Down: 1 backend (backend-0): connection refused")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewAggregateCondition() mismatch (-want +got):\n%s", diff)
	}
}

func ExampleNewAggregateCondition() {
	machine := func(name string, ready metav1.Condition) *v1alpha1.Machine {
		return &v1alpha1.Machine{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "pool-a"},
			Status:     v1alpha1.MachineStatus{Conditions: []metav1.Condition{ready}},
		}
	}
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NoIssuesReported"}
	notReady := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "IssueReported",
		Message: "* NodeReady: kubelet stopped posting node status"}
	failed := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "IssueReported",
		Message: "* InfrastructureReady: quota exceeded"}
	pool := []*v1alpha1.Machine{
		machine("worker-0", ready), machine("worker-1", notReady), machine("worker-2", ready),
		machine("worker-3", failed), machine("worker-4", notReady), machine("worker-5", metav1.Condition{}),
	}
	pool[5].Status.Conditions = nil // a new Machine, not summarized yet

	machinesReady, err := conditions.NewAggregateCondition(pool, "Ready",
		conditions.TargetConditionType("MachinesReady"),
		conditions.ObjectKind{"Machine", "Machines"},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(machinesReady.Type, machinesReady.Status, machinesReady.Reason)
	fmt.Println(machinesReady.Message)

	// Output:
	// MachinesReady False MultipleIssuesReported
	// Ready is not True on 4 of 6 Machines: 3 False, 1 not yet reported
	// * IssueReported: 2 Machines (worker-1, worker-4): * NodeReady: kubelet stopped posting node status
	// * IssueReported: 1 Machine (worker-3): * InfrastructureReady: quota exceeded
	// * not yet reported: 1 Machine (worker-5)
}

func BenchmarkNewAggregateCondition(b *testing.B) {
	reasons := []string{"NodeNotReady", "NodeReadyUnknown", "InfrastructureFailed"}
	statuses := []metav1.ConditionStatus{F, U, F}
	var pool []*v1alpha1.Machine
	for i := range 1000 {
		c := readyCond(T, "NoIssuesReported")
		if i%10 == 0 {
			c = readyCond(statuses[i%3], reasons[i%3], fmt.Sprintf("Node worker-%04d is not ready", i))
		}
		pool = append(pool, named(fmt.Sprintf("worker-%04d", i), c))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conditions.NewAggregateCondition(pool, "Ready", machinesKind); err != nil {
			b.Fatal(err)
		}
	}
}

// backends is an aggregate option of one's own: any type with an ApplyToAggregate method.
type backends struct{}

func (backends) ApplyToAggregate(o *conditions.AggregateOptions) {
	o.TargetConditionType, o.Kind, o.KindPlural = "BackendsAvailable", "backend", "backends"
}

// TestAggregateOptionOfOnesOwn: an option of one's own is applied in order with this package's
// (a later one wins for a single value), and a nil one does nothing.
func TestAggregateOptionOfOnesOwn(t *testing.T) {
	from := []*v1alpha1.Machine{named("db-0", condAt("Available", T, "Up", 0))}
	got, err := conditions.NewAggregateCondition(from, "Available",
		conditions.TargetConditionType("Ignored"), backends{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != "BackendsAvailable" {
		t.Errorf("type %q, want BackendsAvailable (the option of one's own comes last)", got.Type)
	}
	got, err = conditions.NewAggregateCondition(from, "Available", backends{}, conditions.TargetConditionType("DatabasesAvailable"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != "DatabasesAvailable" {
		t.Errorf("type %q, want DatabasesAvailable (TargetConditionType comes last)", got.Type)
	}
}
