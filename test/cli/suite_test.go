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
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/internal/embedded"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// env is what every test of the package shares.
var env struct {
	root    string // the repository
	cli     string // bin/machinestatus
	plugin  string // bin/kubectl-machinestatus
	kubectl string // bin/k8s/kubectl
	dir     string // a temporary directory for the kubeconfig and HOME, removed at the end
	home    string // HOME of the runs: kubectl's discovery cache lives there
	// capiCRD is Cluster API's Machine CRD, from the module cache.
	capiCRD *apiextensionsv1.CustomResourceDefinition
	// cp serves both CRDs; kubeconfig is its admin kubeconfig.
	cp         *embedded.ControlPlane
	kubeconfig string
	k8s        client.Client
}

var scheme = runtime.NewScheme()

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	err := setUp()
	defer func() {
		_ = env.cp.Stop()
		if env.dir != "" {
			_ = os.RemoveAll(env.dir)
		}
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func setUp() error {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	utilruntime.Must(clusterv1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))

	var err error
	if env.root, err = repo.Root(); err != nil {
		return err
	}
	if env.cli, err = repo.Binary(env.root, "MACHINESTATUS_BIN", filepath.Join("bin", "machinestatus")); err != nil {
		return err
	}
	if env.plugin, err = repo.Binary(env.root, "", filepath.Join("bin", "kubectl-machinestatus")); err != nil {
		return err
	}
	if env.kubectl, err = repo.Binary(env.root, "KUBECTL_BIN", filepath.Join("bin", "k8s", "kubectl")); err != nil {
		return err
	}
	if env.capiCRD, err = clusterapicrd.MachineCRD(env.root); err != nil {
		return err
	}
	ours, err := embedded.LoadCRDs(crd.Bases)
	if err != nil {
		return err
	}
	if env.dir, err = os.MkdirTemp("", "machinestatus-cli-"); err != nil {
		return err
	}
	env.home = filepath.Join(env.dir, "home")
	env.kubeconfig = filepath.Join(env.dir, "kubeconfig")
	env.cp, err = embedded.Start(embedded.Options{
		AssetsDir:      assetsDir(),
		CRDs:           append(ours, env.capiCRD.DeepCopy()),
		KubeconfigPath: env.kubeconfig,
	})
	if err != nil {
		return err
	}
	env.k8s, err = client.New(env.cp.Config, client.Options{Scheme: scheme})
	return err
}

// assetsDir is $KUBEBUILDER_ASSETS, else the repository's bin/k8s.
func assetsDir() string {
	if dir := os.Getenv(embedded.AssetsEnv); dir != "" {
		return dir
	}
	return filepath.Join(env.root, "bin", "k8s")
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
	return runBinary(t, kubeconfig, env.kubectl, append([]string{"machinestatus"}, args...)...)
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
		kubeconfig = env.kubeconfig
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
