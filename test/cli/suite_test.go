// Package cli tests the built CLI, bin/machinestatus, and the kubectl plugin
// bin/kubectl-machinestatus run by the real bin/k8s/kubectl, against a real kube-apiserver +
// etcd serving machinestatus.io Machines and Cluster API's own Machine CRD.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// env is what every test of the package shares: a control plane serving machinestatus's and
// Cluster API's Machine CRDs, and the binaries.
var env struct {
	*harness.Env
	cli    string // bin/machinestatus
	plugin string // bin/kubectl-machinestatus
	home   string // HOME of the runs: kubectl's discovery cache lives there
	// capiCRD is Cluster API's Machine CRD, from the module cache.
	capiCRD *apiextensionsv1.CustomResourceDefinition
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	err := setUp()
	defer env.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func setUp() error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	if env.cli, err = repo.Binary(root, "MACHINESTATUS_BIN", filepath.Join("bin", "machinestatus")); err != nil {
		return err
	}
	if env.plugin, err = repo.Binary(root, "", filepath.Join("bin", "kubectl-machinestatus")); err != nil {
		return err
	}
	if env.capiCRD, err = clusterapicrd.MachineCRD(root); err != nil {
		return err
	}
	// Cluster API's other CRDs, for describe cluster/NAME and the health checks' deadlines.
	others, err := clusterapicrd.CRDs(root, "clusters", "machinedeployments", "machinesets", "machinehealthchecks")
	if err != nil {
		return err
	}
	env.Env, err = harness.Start(harness.Options{
		MachineCRD:  true,
		CRDs:        append([]*apiextensionsv1.CustomResourceDefinition{env.capiCRD.DeepCopy()}, others...),
		AddToScheme: []func(*runtime.Scheme) error{clusterv1.AddToScheme, apiextensionsv1.AddToScheme},
	})
	if err != nil {
		return err
	}
	env.home = filepath.Join(env.Dir, "home")
	return nil
}

// result is one run of a binary.
type result struct {
	stdout, stderr string
	code           int
}

// String says what ran and what it printed, for failure messages.
func (r result) String() string {
	return fmt.Sprintf("exit code %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// runCLI runs bin/machinestatus with args against kubeconfig (the shared control plane's
// when empty).
func runCLI(t *testing.T, kubeconfig string, args ...string) result {
	t.Helper()
	return runBinary(t, kubeconfig, env.cli, args...)
}

// runPlugin runs `kubectl machinestatus args...` with the real kubectl, bin/ first on the PATH.
func runPlugin(t *testing.T, kubeconfig string, args ...string) result {
	t.Helper()
	return runBinary(t, kubeconfig, env.KubectlBin, append([]string{"machinestatus"}, args...)...)
}

// command returns the command running binary with args, KUBECONFIG kubeconfig, a HOME of its
// own and bin/ on the PATH.
func command(ctx context.Context, kubeconfig, binary string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kubeconfig,
		"HOME="+env.home,
		"PATH="+filepath.Dir(env.plugin)+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	return cmd
}

// runBinary runs binary with args, KUBECONFIG, a HOME of its own and bin/ on the PATH, and
// waits up to two minutes (the machine is shared and slow).
func runBinary(t *testing.T, kubeconfig, binary string, args ...string) result {
	t.Helper()
	if kubeconfig == "" {
		kubeconfig = env.Kubeconfig
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := command(ctx, kubeconfig, binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("cannot run %s %s: %v", binary, strings.Join(args, " "), err)
	}
	t.Logf("$ %s %s\n%s", filepath.Base(binary), strings.Join(args, " "), r)
	return r
}
