package api

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// kubectl runs the real kubectl built by `make tools` against the test API server, as the admin.
func kubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(env.KubectlBin, append([]string{"--kubeconfig", env.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestKubectl checks what an operator sees with kubectl get, describe and wait.
func TestKubectl(t *testing.T) {
	ns := env.Namespace(t)
	pid := "fake://" + ns + "/k1"
	node := ns + "-k1"

	// wait --for=condition=Ready starts before the Machine is ready and returns when it is.
	m := harness.NewMachine(ns, "k1")
	m.Spec.Version = "v1.36.3"
	env.Create(t, m)
	env.WaitPhase(t, ns, "k1", v1alpha1.MachinePhasePending)
	wait := make(chan string, 1)
	go func() {
		out, err := kubectl(t, "-n", ns, "wait", "--for=condition=Ready", "machine/k1", "--timeout=60s")
		if err != nil {
			out += " (" + err.Error() + ")"
		}
		wait <- out
	}()
	time.Sleep(time.Second) // let kubectl wait observe the not-ready Machine first
	env.CreateInfra(t, ns, "k1", map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, node, pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	if out := <-wait; !strings.Contains(out, "machine.machinestatus.io/k1 condition met") {
		t.Fatalf("kubectl wait --for=condition=Ready: %s", out)
	}
	out, err := kubectl(t, "-n", ns, "wait", "--for=jsonpath={.status.phase}=Running", "machine/k1", "--timeout=30s")
	if err != nil || !strings.Contains(out, "condition met") {
		t.Fatalf("kubectl wait --for=jsonpath: %v: %s", err, out)
	}

	out, err = kubectl(t, "-n", ns, "get", "machines")
	if err != nil {
		t.Fatalf("kubectl get machines: %v: %s", err, out)
	}
	wantLines(t, "kubectl get machines", out,
		`^NAME\s+PHASE\s+READY\s+REASON\s+LAST-OP\s+OP-STATE\s+NODE\s+AGE$`,
		`^k1\s+Running\s+True\s+NoIssuesReported\s+Create\s+Successful\s+`+regexp.QuoteMeta(node)+`\s+\d+s$`)

	out, err = kubectl(t, "-n", ns, "get", "machines", "-o", "wide")
	if err != nil {
		t.Fatalf("kubectl get machines -o wide: %v: %s", err, out)
	}
	wantLines(t, "kubectl get machines -o wide", out,
		`^NAME\s+PHASE\s+READY\s+REASON\s+LAST-OP\s+OP-STATE\s+NODE\s+AGE\s+VERSION\s+PROVIDERID$`,
		`^k1\s+Running\s+True\s+NoIssuesReported\s+Create\s+Successful\s+\S+\s+\d+s\s+v1\.36\.3\s+`+regexp.QuoteMeta(pid)+`$`)

	// Events are recorded asynchronously: describe until they are all there (bounded).
	describePatterns := []string{
		`^\s+Phase:\s+Running$`,
		`^\s+Last Operation:$`,
		`^\s+Type:\s+Create$`,
		`^\s+State:\s+Successful$`,
		`^\s+Conditions:$`,
		`^\s+Type:\s+NodeReady$`,
		`^\s+Type:\s+InfrastructureReady$`,
		`^Events:$`,
		`^\s+Normal\s+MachinePending\s+.*Phase changed to Pending$`,
		`^\s+Normal\s+MachineRunning\s+.*Phase changed to Running$`,
		`^\s+Normal\s+CreateSucceeded\s+.*Create succeeded$`,
	}
	harness.Wait(t, harness.MachineTimeout, "kubectl describe machine to show the events", func(context.Context) (bool, string) {
		out, err = kubectl(t, "-n", ns, "describe", "machine", "k1")
		if err != nil {
			return false, fmt.Sprintf("%v: %s", err, out)
		}
		if missing := missingLines(out, describePatterns...); missing != nil {
			return false, fmt.Sprintf("no line matches %q in\n%s", missing, out)
		}
		return true, ""
	})
}

// wantLines fails unless every pattern matches some line of out.
func wantLines(t *testing.T, what, out string, patterns ...string) {
	t.Helper()
	for _, p := range missingLines(out, patterns...) {
		t.Errorf("%s: no line matches %q in:\n%s", what, p, out)
	}
}

// missingLines returns the patterns that match no line of out.
func missingLines(out string, patterns ...string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var missing []string
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		found := false
		for _, l := range lines {
			if re.MatchString(strings.TrimRight(l, " ")) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, p)
		}
	}
	return missing
}
