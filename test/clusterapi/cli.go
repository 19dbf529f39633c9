package clusterapi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// The CLI scenario: Cluster cliCluster with two pools in trouble at once, a rollout in one and
// a remediation in the other, each held by a pre-drain hook on the Machines being deleted; the
// two commands docs/clusterapi.md gives must name each pool and its reason.
const (
	cliRolloutPool     = "cli-rollout"
	cliRemediationPool = "cli-remediation"
)

// cliCommands are the commands docs/clusterapi.md gives, as kubectl's arguments.
var cliCommands = [][]string{
	{"machinestatus", "get", "-A", "--group-by=pool"},
	{"machinestatus", "describe", "cluster/" + cliCluster, "-n", namespace},
}

// cliOutput is what a command printed.
type cliOutput struct {
	command string
	stdout  string
}

// runCLIScenario drives both pools into trouble, runs the commands and releases the pools; it
// returns each command's output, and the lines that should name a pool and its reason but
// do not.
func (h *harness) runCLIScenario(ctx context.Context) ([]cliOutput, []string, error) {
	for _, p := range []poolSpec{{name: cliRolloutPool, cluster: cliCluster, replicas: 2}, {name: cliRemediationPool, cluster: cliCluster, replicas: 2}} {
		if err := h.createPool(ctx, p); err != nil {
			return nil, nil, err
		}
	}
	if err := h.c.Create(ctx, poolHealthCheck(poolSpec{name: cliRemediationPool, cluster: cliCluster}, remediationTimeout, 600)); err != nil {
		return nil, nil, err
	}
	rollout := &poolWatch{h: h, pool: cliRolloutPool, seen: map[string]bool{}, ended: map[string]bool{}}
	remediation := &poolWatch{h: h, pool: cliRemediationPool, seen: map[string]bool{}, ended: map[string]bool{}}
	for _, w := range []struct {
		p *poolWatch
		s flowStep
	}{
		{rollout, flowStep{expect: []group{{n: 2, state: running(false)}}}},
		{remediation, flowStep{expect: []group{{n: 2, state: running(true)}}}},
	} {
		if _, err := w.p.settle(ctx, w.s); err != nil {
			return nil, nil, fmt.Errorf("pool %s: %w", w.p.pool, err)
		}
	}

	// The trouble: every Machine there is now held by a pre-drain hook once deleted; a new
	// version for one pool, a Node NotReady in the other.
	for _, pool := range []string{cliRolloutPool, cliRemediationPool} {
		if err := h.editPool(ctx, pool, everyMachine, setAnnotation(preDrainHook)); err != nil {
			return nil, nil, err
		}
	}
	if err := h.rollOut(ctx, cliRolloutPool); err != nil {
		return nil, nil, err
	}
	if _, err := h.nodeNotReady(ctx, cliRemediationPool); err != nil {
		return nil, nil, err
	}
	held := deletingAt(clusterv1.MachineDeletingWaitingForPreDrainHookReason)
	for _, w := range []struct {
		p *poolWatch
		s flowStep
	}{
		// A rollout waits for each old Machine to go before it surges again.
		{rollout, flowStep{expect: []group{{n: 1, state: upToDate(false, true)}, {n: 1, state: upToDate(false, false)}, {n: 1, state: held}}}},
		// The MachineSet replaces a remediated Machine once it is gone.
		{remediation, flowStep{expect: []group{{n: 1, state: running(true)}, {n: 1, state: held}}}},
	} {
		if _, err := w.p.settle(ctx, w.s); err != nil {
			return nil, nil, fmt.Errorf("pool %s in trouble: %w", w.p.pool, err)
		}
	}

	var outs []cliOutput
	for _, args := range cliCommands {
		out, err := h.kubectl(ctx, args...)
		if err != nil {
			return outs, nil, err
		}
		outs = append(outs, cliOutput{command: "kubectl " + strings.Join(args, " "), stdout: out})
	}
	var missing []string
	for _, o := range outs {
		for pool, reason := range map[string]string{cliRolloutPool: "(rollout)", cliRemediationPool: "(remediation)"} {
			if !linesName(o.stdout, "/"+pool, reason) {
				missing = append(missing, fmt.Sprintf("%s: no line names pool %s with %s:\n%s", o.command, pool, reason, o.stdout))
			}
		}
	}

	// Released: the held Machines go.
	for _, pool := range []string{cliRolloutPool, cliRemediationPool} {
		if err := h.editPool(ctx, pool, everyMachine, dropAnnotation(preDrainHook)); err != nil {
			return outs, missing, err
		}
	}
	for _, w := range []struct {
		p *poolWatch
		s flowStep
	}{
		{rollout, flowStep{expect: []group{{n: 2, state: upToDate(false, true)}}, gone: 2}},
		{remediation, flowStep{expect: []group{{n: 2, state: running(true)}}, gone: 1}},
	} {
		if _, err := w.p.settle(ctx, w.s); err != nil {
			return outs, missing, fmt.Errorf("pool %s released: %w", w.p.pool, err)
		}
	}
	return outs, missing, nil
}

// linesName reports whether a line of out names pool (ending a word) and says reason.
func linesName(out, pool, reason string) bool {
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, pool); i >= 0 && strings.Contains(line, reason) {
			rest := line[i+len(pool):]
			if rest == "" || rest[0] == ' ' {
				return true
			}
		}
	}
	return false
}

// kubectl runs bin/k8s/kubectl with the admin kubeconfig and bin/ first on the PATH (where
// kubectl finds the plugin bin/kubectl-machinestatus), and returns its standard output.
func (h *harness) kubectl(ctx context.Context, args ...string) (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, h.fleet.KubectlBin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+h.fleet.Kubeconfig, "PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
