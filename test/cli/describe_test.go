package cli

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/internal/describe"
)

// conditionRow matches a condition's row in the text output's tree: its type, status, reason.
var conditionRow = regexp.MustCompile(`^  [│ ]  [├└]─ (\S+) +(True|False|Unknown) +(\S+) +\S+$`)

// rows returns the types of the condition rows of text, in order, and the line numbers of the
// Problems and Good branches (-1 when absent).
func rows(text string) (types []string, problemsAt, goodAt int) {
	problemsAt, goodAt = -1, -1
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasSuffix(line, "─ Problems"):
			problemsAt = i
		case strings.HasSuffix(line, "─ Good"):
			goodAt = i
		}
		if m := conditionRow.FindStringSubmatch(line); m != nil {
			types = append(types, m[1])
		}
	}
	return types, problemsAt, goodAt
}

// TestDescribeClusterAPIMachineText describes an unhealthy Cluster API Machine as people read
// it: machinestatus's phase next to Cluster API's, the lastOperation derived with the
// annotation's history, and the conditions as a tree, problems first, messages indented.
func TestDescribeClusterAPIMachineText(t *testing.T) {
	// The fixture's own namespace; docs/cli.md shows this output.
	ns := "fleet"
	if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err) // it exists on a second run (go test -count=2): namespaces are never deleted here
	}
	m := createCAPIMachine(t, unhealthyCAPIMachine(t, ns, "prod-eu-md-0-x7k2p-4mfzt"))
	t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), m); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})

	r := runPlugin(t, "", "describe", "machines.cluster.x-k8s.io/"+m.Name, "-n", ns)
	if r.code != 0 {
		t.Fatalf("describe failed: %s", r)
	}
	for _, want := range []string{
		"Name:           prod-eu-md-0-x7k2p-4mfzt\n",
		"Namespace:      " + ns + "\n",
		"API:            cluster.x-k8s.io/v1beta2 Machine\n",
		"Cluster:        prod-eu\n",
		"Node:           ip-10-0-12-34.eu-west-1.compute.internal\n",
		"Phase:          Failed (Cluster API says Running)\n",
		"Last Operation: HealthCheck Failed, ",
		"(derived from the conditions, with the history kept in annotation machinestatus.io/last-operation)\n",
		"Conditions:     6 problems, 5 good\n",
		// A multi-line message, every line indented below its condition.
		"  │  ├─ HealthCheckSucceeded  False    UnhealthyNode",
		"  │  │    Health check failed:\n  │  │      * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	types, problemsAt, goodAt := rows(r.stdout)
	want := []string{
		// Problems: Ready first, then by type.
		"Ready", "Available", "HealthCheckSucceeded", "NodeHealthy", "NodeReady", "OwnerRemediated",
		// Good, including the negative-polarity types that are False.
		"BootstrapConfigReady", "Deleting", "InfrastructureReady", "Paused", "UpToDate",
	}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("condition rows (-want +got):\n%s", diff)
	}
	if problemsAt < 0 || goodAt < problemsAt {
		t.Errorf("the Problems branch (line %d) must come before the Good branch (line %d)", problemsAt, goodAt)
	}
}

// TestDescribeNamespaceJSONAndYAML describes every Machine of a namespace holding both APIs'
// Machines in several states, and checks what --output json and yaml carry.
func TestDescribeNamespaceJSONAndYAML(t *testing.T) {
	ns := newNamespace(t, "mixed")
	msRunning := createMachinestatusMachine(t, ns, "ms-running", nil, runningConditions()...)
	msFailed := createMachinestatusMachine(t, ns, "ms-failed", nil, failedConditions()...)
	createCAPIMachine(t, runningCAPIMachine(t, ns, "capi-running"))
	createCAPIMachine(t, provisioningCAPIMachine(t, ns, "capi-provisioning"))
	createCAPIMachine(t, unhealthyCAPIMachine(t, ns, "capi-unhealthy"))
	deleting := createCAPIMachine(t, deletingCAPIMachine(t, ns, "capi-deleting"))
	deleteObject(t, deleting)

	r := runCLI(t, "", "describe", "-n", ns, "-o", "json")
	if r.code != 0 {
		t.Fatalf("describe failed: %s", r)
	}
	var got describe.DescriptionList
	decodeJSON(t, r, &got)

	type summary struct {
		APIVersion, Name string
		Phase            v1alpha1.MachinePhase
		ClusterAPIPhase  string
		Operation        string
		Source           describe.LastOperationSource
		Problems         int
	}
	var summaries []summary
	for _, d := range got.Items {
		s := summary{APIVersion: d.Machine.APIVersion, Name: d.Machine.Name, Phase: d.Phase,
			ClusterAPIPhase: d.ClusterAPIPhase, Source: d.LastOperationSource, Problems: d.Problems}
		if d.LastOperation != nil {
			s.Operation = string(d.LastOperation.Type) + " " + string(d.LastOperation.State)
		}
		summaries = append(summaries, s)
		if d.Machine.Namespace != ns || d.Machine.Kind != "Machine" {
			t.Errorf("%s: machine %+v, want a Machine of namespace %s", d.Machine.Name, d.Machine, ns)
		}
		checkProblemsFirst(t, d)
	}
	const ms, capi = "machinestatus.io/v1alpha1", "cluster.x-k8s.io/v1beta2"
	want := []summary{
		// machinestatus Machines first, as their controller wrote their status.
		// Problems: Ready, HealthCheckSucceeded, NodeReady, and Stalled (negative polarity, True).
		{ms, "ms-failed", msFailed.Status.Phase, "", opString(msFailed.Status.LastOperation), describe.LastOperationFromStatus, 4},
		{ms, "ms-running", msRunning.Status.Phase, "", opString(msRunning.Status.LastOperation), describe.LastOperationFromStatus, 0},
		// Then Cluster API Machines, by name.
		{capi, "capi-deleting", v1alpha1.MachinePhaseDeleting, "Deleting", "Delete Processing", describe.LastOperationFromConditions, 2},
		{capi, "capi-provisioning", v1alpha1.MachinePhaseProvisioning, "Provisioning", "Create Processing", describe.LastOperationWhileCreating, 5},
		{capi, "capi-running", v1alpha1.MachinePhaseRunning, "Running", "Create Successful", describe.LastOperationFromConditions, 0},
		{capi, "capi-unhealthy", v1alpha1.MachinePhaseFailed, "Running", "HealthCheck Failed", describe.LastOperationFromAnnotation, 6},
	}
	if diff := cmp.Diff(want, summaries); diff != "" {
		t.Errorf("descriptions (-want +got):\n%s", diff)
	}
	// The stored statuses are what the controller would write.
	if msRunning.Status.Phase != v1alpha1.MachinePhaseRunning || msFailed.Status.Phase != v1alpha1.MachinePhaseFailed {
		t.Errorf("phases written: %s and %s, want Running and Failed", msRunning.Status.Phase, msFailed.Status.Phase)
	}
	// A negative-polarity condition that is True is a problem.
	if d := find(got, "capi-deleting"); d != nil {
		if c := d.Conditions[1]; c.Type != "Deleting" || c.Status != "True" || c.Polarity != v1alpha1.NegativeConditionPolarity || !c.Problem {
			t.Errorf("capi-deleting's second condition: %+v, want the problem Deleting=True (negative polarity)", c)
		}
		if d.DeletionTimestamp == nil {
			t.Error("capi-deleting: no deletionTimestamp")
		}
	}

	// YAML carries the same document.
	y := runCLI(t, "", "describe", "-n", ns, "--output=yaml")
	if y.code != 0 {
		t.Fatalf("describe -o yaml failed: %s", y)
	}
	var fromYAML describe.DescriptionList
	if err := yaml.UnmarshalStrict([]byte(y.stdout), &fromYAML); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, y)
	}
	if diff := cmp.Diff(got, fromYAML); diff != "" {
		t.Errorf("YAML and JSON differ (-json +yaml):\n%s", diff)
	}
}

// TestDescribeKubectlPlugin runs describe as `kubectl machinestatus describe` through the
// real kubectl, with a kubectl user's resource spellings.
func TestDescribeKubectlPlugin(t *testing.T) {
	ns := newNamespace(t, "plugin")
	createMachinestatusMachine(t, ns, "twin", nil, runningConditions()...)
	createCAPIMachine(t, runningCAPIMachine(t, ns, "twin"))

	// machine/NAME looks in both APIs, and finds both.
	r := runPlugin(t, "", "describe", "machine/twin", "-n", ns, "-o", "json")
	if r.code != 0 {
		t.Fatalf("kubectl machinestatus describe failed: %s", r)
	}
	var got describe.DescriptionList
	decodeJSON(t, r, &got)
	var apis []string
	for _, d := range got.Items {
		apis = append(apis, d.Machine.APIVersion+" "+d.Machine.Name)
	}
	if diff := cmp.Diff([]string{"machinestatus.io/v1alpha1 twin", "cluster.x-k8s.io/v1beta2 twin"}, apis); diff != "" {
		t.Errorf("machine/twin (-want +got):\n%s", diff)
	}

	// Each API by its qualified name or short name, in both argument forms.
	for args, want := range map[string]string{
		"ma twin":                                "API:            cluster.x-k8s.io/v1beta2 Machine\n",
		"machines.v1beta2.cluster.x-k8s.io/twin": "API:            cluster.x-k8s.io/v1beta2 Machine\n",
		"machines.machinestatus.io twin":         "API:            machinestatus.io/v1alpha1 Machine\n",
		"Machine.machinestatus.io/twin":          "API:            machinestatus.io/v1alpha1 Machine\n",
		"msm/twin":                               "API:            machinestatus.io/v1alpha1 Machine\n",
		"machine.v1alpha1.machinestatus.io/twin": "API:            machinestatus.io/v1alpha1 Machine\n",
	} {
		r := runPlugin(t, "", append(strings.Fields("describe "+args), "-n", ns)...)
		if r.code != 0 {
			t.Errorf("describe %s failed: %s", args, r)
			continue
		}
		if !strings.Contains(r.stdout, want) || strings.Count(r.stdout, "API:") != 1 {
			t.Errorf("describe %s: want exactly one Machine, %q:\n%s", args, want, r.stdout)
		}
		if !strings.Contains(r.stdout, "Phase:          Running") {
			t.Errorf("describe %s: want phase Running:\n%s", args, r.stdout)
		}
	}

	// kubectl passes the plugin's failure on.
	r = runPlugin(t, "", "describe", "machine/nope", "-n", ns)
	if r.code != describe.ExitError || !strings.Contains(r.stderr, `machine "nope" not found in namespace "`+ns+`"`) {
		t.Errorf("describe machine/nope: want exit %d and not found: %s", describe.ExitError, r)
	}
	r = runPlugin(t, "", "describe", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl machinestatus describe machine/worker-0") {
		t.Errorf("describe --help: want the plugin's name in the examples: %s", r)
	}
}

// TestDescribeNamespacesAndSelectors checks -A, -l and the namespace of the kubeconfig's
// context.
func TestDescribeNamespacesAndSelectors(t *testing.T) {
	a, b := newNamespace(t, "pool-a"), newNamespace(t, "pool-b")
	selector := "selectors-" + a // unique to this run: Machines of an earlier run stay
	pool := map[string]string{"pool": selector}
	createMachinestatusMachine(t, a, "worker-a", pool, runningConditions()...)
	createMachinestatusMachine(t, b, "worker-b", pool, failedConditions()...)
	createMachinestatusMachine(t, b, "other", nil, runningConditions()...)
	capi := runningCAPIMachine(t, b, "capi-b")
	capi.Labels["pool"] = selector
	createCAPIMachine(t, capi)

	r := runCLI(t, "", "describe", "-A", "-l", "pool="+selector, "-o", "json")
	if r.code != 0 {
		t.Fatalf("describe -A -l failed: %s", r)
	}
	var got describe.DescriptionList
	decodeJSON(t, r, &got)
	var names []string
	for _, d := range got.Items {
		names = append(names, d.Machine.Namespace+"/"+d.Machine.Name)
	}
	if diff := cmp.Diff([]string{a + "/worker-a", b + "/worker-b", b + "/capi-b"}, names); diff != "" {
		t.Errorf("describe -A -l (-want +got):\n%s", diff)
	}

	// The namespace of the current context, as kubectl sets it.
	kubeconfig := t.TempDir() + "/kubeconfig"
	copyFile(t, env.Kubeconfig, kubeconfig)
	if r := runBinary(t, kubeconfig, env.KubectlBin, "config", "set-context", "--current", "--namespace="+b); r.code != 0 {
		t.Fatalf("kubectl config set-context failed: %s", r)
	}
	r = runCLI(t, kubeconfig, "describe", "msm")
	if r.code != 0 {
		t.Fatalf("describe failed: %s", r)
	}
	if !strings.Contains(r.stdout, "Name:           other\n") || !strings.Contains(r.stdout, "Name:           worker-b\n") ||
		strings.Count(r.stdout, "Namespace:      "+b+"\n") != 2 {
		t.Errorf("describe msm in the context's namespace %s: want other and worker-b:\n%s", b, r.stdout)
	}
}

// TestDescribeErrors checks the exit codes and messages of a Machine not found, a request
// the API server forbids, a wrong command line and an empty namespace.
func TestDescribeErrors(t *testing.T) {
	ns := newNamespace(t, "errors")
	createCAPIMachine(t, runningCAPIMachine(t, ns, "worker-0"))

	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"not found in any API", []string{"describe", "machine/nope", "-n", ns}, describe.ExitError,
			`machine "nope" not found in namespace "` + ns + `" (looked in machines.machinestatus.io and machines.cluster.x-k8s.io)`},
		{"not found in the API named", []string{"describe", "machines.machinestatus.io", "worker-0", "-n", ns}, describe.ExitError,
			`machine "worker-0" not found in namespace "` + ns + `" (looked in machines.machinestatus.io)`},
		{"forbidden list", []string{"describe", "-n", ns, "--as=jane"}, describe.ExitError,
			`User "jane" cannot list resource "machines" in API group "machinestatus.io" in the namespace "` + ns + `"`},
		{"forbidden get", []string{"describe", "ma/worker-0", "-n", ns, "--as=jane"}, describe.ExitError,
			`machines.cluster.x-k8s.io "worker-0" is forbidden: User "jane" cannot get resource "machines"`},
		{"not a Machine", []string{"describe", "pods"}, describe.ExitUsage, `"pods" is pods, not a Machine`},
		{"unknown type", []string{"describe", "worker-0"}, describe.ExitUsage, `unknown resource type "worker-0"`},
		{"version describe does not read", []string{"describe", "machines.v1beta1.cluster.x-k8s.io/worker-0", "-n", ns}, describe.ExitUsage,
			"describe reads machines.cluster.x-k8s.io at v1beta2 only, not v1beta1"},
		{"name with -A", []string{"describe", "machine/worker-0", "-A"}, describe.ExitUsage, "across all namespaces"},
		{"name with -l", []string{"describe", "machine", "worker-0", "-l", "a=b"}, describe.ExitUsage, "both by name and by --selector"},
		{"unknown output", []string{"describe", "-o", "xml"}, describe.ExitUsage, `unknown output format "xml"`},
		{"unknown flag", []string{"describe", "--frobnicate"}, describe.ExitUsage, "unknown flag: --frobnicate"},
		{"unknown command", []string{"explain"}, describe.ExitUsage, `unknown command "explain"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, "error: ") || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("want exit code %d and %q in stderr: %s", tt.code, tt.want, r)
			}
			if r.stdout != "" {
				t.Errorf("want nothing on stdout: %s", r)
			}
		})
	}

	empty := newNamespace(t, "empty")
	r := runCLI(t, "", "describe", "-n", empty)
	if r.code != 0 || r.stdout != "" || r.stderr != "No Machines found in namespace "+empty+".\n" {
		t.Errorf("an empty namespace: want exit 0 and a note on stderr: %s", r)
	}
	r = runCLI(t, "", "describe", "-n", empty, "-o", "json")
	var got describe.DescriptionList
	decodeJSON(t, r, &got)
	if r.code != 0 || got.Items == nil || len(got.Items) != 0 || !strings.Contains(r.stdout, `"items": []`) {
		t.Errorf("an empty namespace as JSON: want exit 0 and no items: %s", r)
	}
}

// checkProblemsFirst checks that d's conditions are problems first, that Problems counts
// them, and that each one's problem flag follows its polarity.
func checkProblemsFirst(t *testing.T, d describe.Description) {
	t.Helper()
	problems := 0
	for i, c := range d.Conditions {
		good := "True"
		if c.Polarity == v1alpha1.NegativeConditionPolarity {
			good = "False"
		}
		if c.Problem != (string(c.Status) != good) {
			t.Errorf("%s: %s=%s (%s) has problem=%v", d.Machine.Name, c.Type, c.Status, c.Polarity, c.Problem)
		}
		if c.Problem {
			problems++
			if i > 0 && !d.Conditions[i-1].Problem {
				t.Errorf("%s: problem %s after a good condition", d.Machine.Name, c.Type)
			}
		}
	}
	if problems != d.Problems {
		t.Errorf("%s: problems = %d, want %d", d.Machine.Name, d.Problems, problems)
	}
}

// find returns the description of the Machine named name, or nil.
func find(l describe.DescriptionList, name string) *describe.Description {
	i := slices.IndexFunc(l.Items, func(d describe.Description) bool { return d.Machine.Name == name })
	if i < 0 {
		return nil
	}
	return &l.Items[i]
}

// opString returns "Type State" of op, or "" for nil.
func opString(op *v1alpha1.LastOperation) string {
	if op == nil {
		return ""
	}
	return string(op.Type) + " " + string(op.State)
}
