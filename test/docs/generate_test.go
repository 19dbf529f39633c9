package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/status"
	"github.com/machinestatus/machinestatus/test/internal/docblock"
)

// writeVar is the environment variable that makes the tests write the generated blocks.
const writeVar = "DOCS_WRITE"

// sync writes or checks block name of docs/page (or the README).
func sync(t *testing.T, page, name, content string) {
	t.Helper()
	docblock.Sync(t, pagePath(t, page), name, content, writeVar, nil)
}

// pagePath is the path of a page: "README.md" or a file of docs/.
func pagePath(t *testing.T, page string) string {
	t.Helper()
	if page == "README.md" {
		return filepath.Join(root(t), page)
	}
	return filepath.Join(root(t), "docs", page)
}

// identifiers backticks the condition types and reasons of the catalog in text (Ready aside: a
// word of prose too).
func identifiers(text string) string {
	var words []string
	for _, c := range v1alpha1.Catalog() {
		if c.Type != v1alpha1.MachineReadyCondition {
			words = append(words, c.Type)
		}
		words = append(words, c.Reasons...)
	}
	re := regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
	return re.ReplaceAllString(text, "`$1`")
}

// when says in words when a catalog rule applies.
func when(w v1alpha1.When) string {
	switch w {
	case v1alpha1.Always:
		return "yes"
	case v1alpha1.WithBootstrap:
		return "when `spec.bootstrap` is set"
	case v1alpha1.WithVersion:
		return "when `spec.version` is set"
	}
	return "no"
}

// TestCatalogTable: docs/rules.md's catalog is v1alpha1.Catalog().
func TestCatalogTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| type | polarity | in Ready | written by the controller | priority | reasons |\n|---|---|---|---|---|---|\n")
	for _, c := range v1alpha1.Catalog() {
		reasons := "the summary's ([Ready](#ready))"
		if c.Type != v1alpha1.MachineReadyCondition {
			var rs []string
			for _, r := range c.Reasons {
				if v1alpha1.IsTerminalReason(r) {
					r += "` (terminal)"
				} else {
					r += "`"
				}
				rs = append(rs, "`"+r)
			}
			reasons = strings.Join(rs, ", ")
		}
		inReady := when(c.InReady)
		if c.Type == v1alpha1.MachineReadyCondition {
			inReady = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d | %s |\n", c.Type, strings.ToLower(string(c.Polarity)), inReady, when(c.Owned), c.Priority, reasons)
	}
	sync(t, "rules.md", "catalog", b.String())
}

// TestPhaseTable: docs/rules.md's phase table is aggregate.PhaseRows().
func TestPhaseTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| # | phase | when |\n|---|---|---|\n")
	for i, r := range aggregate.PhaseRows() {
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", i+1, r.Phase, identifiers(r.When))
	}
	sync(t, "rules.md", "phases", b.String())
}

// The times of the examples: the Machine is created at t0, the previous lastOperation was
// recorded at prevAt, the conditions change at the minutes given, and the reconcile runs at now.
var (
	t0     = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	prevAt = t0.Add(30 * time.Minute)
	now    = t0.Add(60 * time.Minute)
)

// example is a Machine for the tables of Ready and lastOperation.
type example struct {
	name string
	m    *v1alpha1.Machine
	// clockless: LastOperation is called without an instant (a library caller's zero time).
	clockless bool
}

// cond is a condition that changed status at minute min.
func cond(typ string, s metav1.ConditionStatus, reason, message string, minute int) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(t0.Add(time.Duration(minute) * time.Minute))}
}

// machine is a Machine created at t0 with the given previous lastOperation (type and state, or
// "" for none) and conditions.
func machine(prev string, conds ...metav1.Condition) *v1alpha1.Machine {
	m := &v1alpha1.Machine{}
	m.Name = "m"
	m.Generation = 1
	m.CreationTimestamp = metav1.NewTime(t0)
	m.Status.Conditions = conds
	if prev != "" {
		typ, state, _ := strings.Cut(prev, " ")
		m.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationType(typ),
			State: v1alpha1.MachineOperationState(state), Description: "(previous)", LastUpdated: metav1.NewTime(prevAt)}
	}
	return m
}

// deleting marks m, whose Node registered, for deletion at minute 40.
func deleting(m *v1alpha1.Machine) *v1alpha1.Machine {
	ts := metav1.NewTime(t0.Add(40 * time.Minute))
	m.DeletionTimestamp = &ts
	return registered(m)
}

// registered records m's Node, as the controller does once it registered.
func registered(m *v1alpha1.Machine) *v1alpha1.Machine {
	m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "m"}
	return m
}

const (
	T = metav1.ConditionTrue
	F = metav1.ConditionFalse
	U = metav1.ConditionUnknown
)

// Short names of the catalog's types.
const (
	infra     = v1alpha1.MachineInfrastructureReadyCondition
	nodeReady = v1alpha1.MachineNodeReadyCondition
	healthy   = v1alpha1.MachineNodeHealthyCondition
	hc        = v1alpha1.MachineHealthCheckSucceededCondition
	updating  = v1alpha1.MachineUpdatingCondition
	draining  = v1alpha1.MachineDrainingCondition
	deletingC = v1alpha1.MachineDeletingCondition
)

// running are the conditions of a Running Machine, each changed at minute 5.
func running() []metav1.Condition {
	return []metav1.Condition{
		cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 5),
		cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, "", 5),
		cond(healthy, T, v1alpha1.MachineNodeHealthyReason, "", 5),
		cond(hc, T, v1alpha1.MachineHealthCheckSucceededReason, "", 5),
	}
}

// with returns the conditions of a Running Machine with cs replacing or added to them.
func with(cs ...metav1.Condition) []metav1.Condition {
	list := running()
	for _, c := range cs {
		if i := slices.IndexFunc(list, func(l metav1.Condition) bool { return l.Type == c.Type }); i >= 0 {
			list[i] = c
		} else {
			list = append(list, c)
		}
	}
	return list
}

// lastOperationExamples are one Machine per rule and failure shape of aggregate.LastOperation.
func lastOperationExamples() []example {
	return []example{
		{name: "new Machine, infrastructure being provisioned", m: machine("",
			cond(infra, F, v1alpha1.MachineInfrastructureNotProvisionedReason, "VM is booting", 1))},
		{name: "the Node is Ready for the first time", m: machine("Create Processing",
			cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 3),
			cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, "", 35))},
		{name: "the provider gives up before the Node was Ready", m: machine("Create Processing",
			cond(infra, F, v1alpha1.MachineInfrastructureFailedReason, "InsufficientInstanceCapacity", 1))},
		{name: "no Node registers within nodeStartupTimeoutSeconds", m: machine("Create Processing",
			cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 3),
			cond(hc, F, v1alpha1.MachineHealthCheckNodeStartupTimeoutReason, "no Node after 600s", 45))},
		{name: "no history (installed on a running fleet): the Node registered, is NotReady", m: registered(machine("",
			cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 3),
			cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting", 50)))},
		{name: "the kubelet is not at spec.version", m: machine("Create Successful",
			with(cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, "v1.35.1 → v1.36.0", 40))...)},
		{name: "an updater reports UpdateFailed (Updating stays True)", m: machine("Update Processing",
			with(cond(updating, T, v1alpha1.MachineUpdateFailedReason, "image pull failed", 20))...)},
		{name: "the kubelet reached spec.version", m: machine("Update Processing",
			with(cond(updating, F, v1alpha1.MachineNotUpdatingReason, "", 50))...)},
		{name: "the Node is cordoned", m: machine("Create Successful",
			with(cond(draining, T, v1alpha1.MachineNodeCordonedReason, "", 40))...)},
		{name: "a drainer reports DrainingFailed", m: machine("DrainNode Processing",
			with(cond(draining, T, v1alpha1.MachineDrainingFailedReason, "PodDisruptionBudget refuses evictions", 20))...)},
		{name: "the Node is NotReady", m: machine("Create Successful",
			with(cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting", 40))...)},
		{name: "the Node stayed NotReady past its timeout", m: machine("HealthCheck Processing",
			with(cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting", 20),
				cond(hc, F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, "Ready=False for 300s", 45))...)},
		{name: "the Node is Ready again", m: machine("HealthCheck Processing",
			with(cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, "", 50))...)},
		{name: "the instance is terminated after creation", m: machine("Create Successful",
			with(cond(infra, F, v1alpha1.MachineInfrastructureFailedReason, "instance terminated", 40))...)},
		{name: "deletion: the Node is being drained", m: deleting(machine("Create Successful",
			with(cond(deletingC, T, v1alpha1.MachineDeletingDrainingNodeReason, "", 41))...))},
		{name: "deletion: the provider cannot delete the instance", m: deleting(machine("Delete Processing",
			with(cond(deletingC, T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, "", 41),
				cond(infra, F, v1alpha1.MachineInfrastructureFailedReason, "AuthFailure", 42))...))},
		{name: "deletion: the Node and the infrastructure are gone", m: deleting(machine("Delete Processing",
			with(cond(deletingC, T, v1alpha1.MachineDeletingDeletionCompletedReason, "", 41))...))},
		{name: "a condition dated before the previous lastUpdated (another clock)", m: machine("Create Successful",
			with(cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, "v1.35.1 → v1.36.0", 20))...)},
		{name: "the same, without an instant (a library caller passing a zero time)", clockless: true, m: machine("Create Successful",
			with(cond(updating, T, v1alpha1.MachineUpdatingKubeletVersionReason, "v1.35.1 → v1.36.0", 20))...)},
	}
}

// datedBy names what gave op its lastUpdated on m.
func datedBy(m *v1alpha1.Machine, op *v1alpha1.LastOperation, at time.Time) string {
	prev := m.Status.LastOperation
	u := op.LastUpdated.Time
	var from []string
	switch {
	case prev != nil && prev.Type == op.Type && prev.State == op.State && u.Equal(prev.LastUpdated.Time):
		return "unchanged"
	case !at.IsZero() && u.Equal(at):
		from = append(from, "now (the reconcile's instant)")
	case prev != nil && u.Equal(prev.LastUpdated.Add(time.Second)):
		from = append(from, "the previous lastUpdated + 1 s")
	}
	for _, c := range m.Status.Conditions {
		if u.Equal(c.LastTransitionTime.Time) {
			from = append(from, "`"+c.Type+"`'s lastTransitionTime")
		}
	}
	if m.DeletionTimestamp != nil && u.Equal(m.DeletionTimestamp.Time) {
		from = append(from, "deletionTimestamp")
	}
	if u.Equal(m.CreationTimestamp.Time) {
		from = append(from, "creationTimestamp")
	}
	if len(from) == 0 {
		return u.Format(time.RFC3339)
	}
	return strings.Join(from, " = ")
}

// TestLastOperationTable: docs/rules.md's lastOperation examples are aggregate.LastOperation's
// results.
func TestLastOperationTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| situation | previous | → type | state | description | lastUpdated from |\n|---|---|---|---|---|---|\n")
	for _, e := range lastOperationExamples() {
		at := now
		if e.clockless {
			at = time.Time{}
		}
		op := aggregate.LastOperation(e.m, at)
		prev := "none"
		if p := e.m.Status.LastOperation; p != nil {
			prev = fmt.Sprintf("%s %s", p.Type, p.State)
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | `%s` | %s | %s |\n", identifiers(e.name), prev, op.Type, op.State,
			cell(op.Description), datedBy(e.m, op, at))
	}
	sync(t, "rules.md", "lastoperation", b.String())
}

// cell escapes text for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestReadyTable: docs/rules.md's Ready examples are aggregate.Summarize's results.
func TestReadyTable(t *testing.T) {
	gated := machine("Create Successful", with(metav1.Condition{Type: "example.com/NetworkReady", Status: T, Reason: "Attached",
		ObservedGeneration: 2, LastTransitionTime: metav1.NewTime(t0)})...)
	gated.Generation = 3
	gated.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: "example.com/NetworkReady"}}
	examples := []example{
		{name: "every condition in scope fine", m: machine("Create Successful", running()...)},
		{name: "the Node is NotReady", m: machine("Create Successful",
			with(cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting", 40))...)},
		{name: "the Node is NotReady and under disk pressure", m: machine("Create Successful",
			with(cond(nodeReady, F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped posting", 40),
				cond(healthy, F, v1alpha1.MachineNodeUnhealthyReason, "DiskPressure", 40))...)},
		{name: "one condition Unknown", m: machine("Create Successful",
			with(cond(healthy, U, v1alpha1.MachineNodeHealthUnknownReason, "MemoryPressure is Unknown", 40))...)},
		{name: "one condition in scope missing", m: machine("Create Processing",
			cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 3),
			cond(nodeReady, T, v1alpha1.MachineNodeReadyReason, "", 5),
			cond(healthy, T, v1alpha1.MachineNodeHealthyReason, "", 5))},
		{name: "no Node yet", m: machine("Create Processing",
			cond(infra, T, v1alpha1.MachineInfrastructureProvisionedReason, "", 3),
			cond(nodeReady, U, v1alpha1.MachineNodeDoesNotExistReason, "no Node has registered yet", 3),
			cond(healthy, U, v1alpha1.MachineNodeHealthUnknownReason, "no Node", 3),
			cond(hc, T, v1alpha1.MachineHealthCheckSucceededReason, "", 3))},
		{name: "being deleted (Deleting, negative, True)", m: deleting(machine("Create Successful",
			with(cond(deletingC, T, v1alpha1.MachineDeletingDrainingNodeReason, "draining the Node", 41))...))},
		{name: "a readiness gate True for an older generation", m: gated},
	}
	var b strings.Builder
	b.WriteString("| situation | Ready | reason | message |\n|---|---|---|---|\n")
	for _, e := range examples {
		m := e.m.DeepCopy()
		aggregate.Summarize(m, now)
		var ready metav1.Condition
		for _, c := range m.Status.Conditions {
			if c.Type == v1alpha1.MachineReadyCondition {
				ready = c
			}
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", identifiers(e.name), ready.Status, ready.Reason, cell(ready.Message))
	}
	sync(t, "rules.md", "ready", b.String())
}

// TestKubeletVersionTable: docs/rules.md's kubelet versions, compared by status.SameRelease.
func TestKubeletVersionTable(t *testing.T) {
	rows := []struct{ want, kubelet, source string }{
		{"v1.30.1", "v1.30.1+k3s1", "k3s"},
		{"v1.30.2", "v1.30.1+k3s1", "k3s"},
		{"1.30.0", "v1.30.0-eks-036c24b", "EKS"},
		{"v1.30.1", "v1.30.1-gke.1329003", "GKE"},
		{"v1.30.4", "v1.30.4+4fd8e9a", "OpenShift"},
		{"v1.28.2", "v1.28.2+rke2r1", "RKE2"},
		{"v1.33.1+k0s.0", "v1.33.1+k0s", "k0s"},
		{"v1.31.0", "v1.31.0-rc.1", "a release candidate"},
		{"v1.30.0", "v1.30-eks-036c24b", "not a semantic version"},
	}
	var b strings.Builder
	b.WriteString("| `spec.version` | kubelet | `Updating` |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | `%s` (%s) | %s |\n", r.want, r.kubelet, r.source, map[bool]string{true: "False", false: "True"}[status.SameRelease(r.kubelet, r.want)])
	}
	sync(t, "rules.md", "kubelet-versions", b.String())
}

// TestRBACTable: docs/operating.md's table of the manager's roles is config/rbac's, as
// config/default names them.
func TestRBACTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| role | API group | resources | verbs |\n|---|---|---|---|\n")
	for _, f := range []string{"role.yaml", "leader_election_role.yaml", "metrics_auth_role.yaml", "metrics_reader_role.yaml"} {
		data, err := os.ReadFile(filepath.Join(root(t), "config", "rbac", f))
		if err != nil {
			t.Fatal(err)
		}
		var role rbacv1.ClusterRole // a Role has the same fields
		if err := yaml.UnmarshalStrict(data, &role); err != nil {
			t.Fatalf("config/rbac/%s: %v", f, err)
		}
		name := role.Kind + " `machinestatus-" + role.Name + "`"
		for _, r := range role.Rules {
			groups := slices.Clone(r.APIGroups)
			for i, g := range groups {
				if g == "" {
					groups[i] = "core"
				}
			}
			resources := r.Resources
			if len(r.NonResourceURLs) > 0 {
				groups, resources = []string{"—"}, r.NonResourceURLs
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, strings.Join(groups, ", "),
				strings.Join(resources, ", "), strings.Join(r.Verbs, ", "))
		}
	}
	sync(t, "operating.md", "rbac", b.String())
}
