package api

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestKubectlDescribeReadsCleanly runs the real kubectl describe on a Machine whose Ready
// summary lists several conditions and whose infrastructure quotes a Cluster API v1beta2
// multi-line summary. kubectl's describer prints a string value as it is, so every line of a
// multi-line message after the first would start at column 0 and read as the next field:
// every message we write is on one line, so below "Status:" only indented lines appear until
// "Events:".
func TestKubectlDescribeReadsCleanly(t *testing.T) {
	ns := env.Namespace(t)
	env.Create(t, harness.NewMachine(ns, "d1"))
	env.CreateInfra(t, ns, "d1", map[string]any{}, map[string]any{
		"initialization": map[string]any{"provisioned": false},
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "NotReady",
			"message":            "* VMProvisioned: waiting for the instance\n* NetworkReady:\n  * Subnet: subnet-1 is full",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	})
	m := env.WaitPhase(t, ns, "d1", v1alpha1.MachinePhaseProvisioning)
	t.Logf("status: %s", harness.Describe(m))

	var out string
	const provider = `is not provisioned yet: VMProvisioned: waiting for the instance, NetworkReady: Subnet: subnet-1 is full`
	patterns := []string{
		// Ready: several items on one line, in catalog order, separated by "; ".
		`^\s+Message:\s+InfrastructureReady: .*` + provider + `; NodeHealthy: .+; NodeReady: .+$`,
		// InfrastructureReady: the provider's multi-line summary, on one line.
		`^\s+Message:\s+\S+ .*` + provider + `$`,
	}
	harness.Wait(t, harness.MachineTimeout, "kubectl describe", func(context.Context) (bool, string) {
		var err error
		if out, err = kubectl(t, "-n", ns, "describe", "machine", "d1"); err != nil {
			return false, err.Error() + ": " + out
		}
		if missing := missingLines(out, patterns...); missing != nil {
			return false, "no line matches " + strings.Join(missing, ", ") + " in:\n" + out
		}
		return true, ""
	})
	t.Logf("kubectl describe machine d1:\n%s", out)

	status := false
	for i, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Status:"):
			status = true
		case strings.HasPrefix(l, "Events:"):
			status = false
		case status && l != "" && !regexp.MustCompile(`^\s`).MatchString(l):
			t.Errorf("line %d of kubectl describe starts at column 0 inside Status (a message bled out of its field): %q", i+1, l)
		}
	}
}
