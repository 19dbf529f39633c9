package clusterapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// clusterAPIModule is the Go module whose controllers and CRDs the suite runs (pinned by go.mod).
const clusterAPIModule = "sigs.k8s.io/cluster-api"

// managerArgs run our manager (bin/manager) in its Cluster API mode, with no metrics or probe
// endpoint (nothing here reads them, and fixed ports would clash with other runs).
var managerArgs = []string{"--machine-apis=cluster.x-k8s.io", "--metrics-bind-address=0", "--health-probe-bind-address=0"}

// harness is everything the suite runs on: the fleet (control plane, kwok, the simulated
// provider, our manager as its own process) and Cluster API's controllers in this process.
type harness struct {
	fleet *fleet.Fleet
	// c reads and writes with Cluster API's, the SimMachine's and the core types, as the suite
	// (user agent suiteAgent).
	c      client.Client
	scheme *runtime.Scheme
	// auditLog is the API server's audit log (auditPolicy).
	auditLog string
	capi     *clusterAPIControllers
}

// startHarness starts the fleet (startFleet), then Cluster API's controllers in this process.
// On error it stops what it started.
func startHarness(ctx context.Context, stateDir string, out io.Writer) (*harness, error) {
	h, err := startFleet(ctx, fleetOptions{stateDir: stateDir, out: out, providerConcurrency: 4, providerQPS: 50})
	if err != nil {
		return nil, err
	}
	// Cluster API's controllers log to the fleet's log file.
	if h.capi, err = startClusterAPIControllers(ctx, h.fleet.CP.Config, ctrl.Log.WithName("cluster-api")); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// fleetOptions configure startFleet.
type fleetOptions struct {
	// stateDir receives the kubeconfigs, the audit log and the logs (relative to the
	// repository root unless absolute).
	stateDir string
	out      io.Writer
	// providerConcurrency and providerQPS are the simulated provider's workers and client QPS
	// (its burst is twice that).
	providerConcurrency int
	providerQPS         float32
}

// startFleet starts the fleet with Cluster API's CRDs, an audit log and our manager in its
// Cluster API mode (bin/manager --machine-apis=cluster.x-k8s.io, as a user bound only to the
// RBAC of config/clusterapi), without Cluster API's controllers. On error it stops what it
// started.
func startFleet(ctx context.Context, o fleetOptions) (*harness, error) {
	crds, err := clusterAPICRDs()
	if err != nil {
		return nil, err
	}
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	stateDir := fleet.InRoot(root, o.stateDir)
	if err := os.MkdirAll(stateDir, 0o750); err != nil {
		return nil, err
	}
	flags, auditLog, err := auditFlags(stateDir)
	if err != nil {
		return nil, err
	}
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir:            stateDir,
		Manager:             "bin/manager",
		ManagerArgs:         managerArgs,
		ClusterAPIManager:   true,
		CRDs:                append(crds, suiteClusterCRD(), simMachineTemplateCRD()),
		APIServerFlags:      flags,
		ProviderConcurrency: o.providerConcurrency,
		QPS:                 o.providerQPS,
		Burst:               int(2 * o.providerQPS),
		Out:                 o.out,
	})
	if err != nil {
		return nil, err
	}
	h := &harness{fleet: f, auditLog: auditLog}
	if h.scheme, err = clusterAPIScheme(); err != nil {
		h.stop()
		return nil, err
	}
	cfg := rest.CopyConfig(f.CP.Config)
	cfg.UserAgent, cfg.QPS, cfg.Burst = suiteAgent, 100, 200
	if h.c, err = client.New(cfg, client.Options{Scheme: h.scheme}); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// clusterAPICRDs are the CRDs of Cluster API's core (core/config/crd/bases of the module go.mod
// pins). They carry no conversion webhook, so v1beta2 works without webhooks or certificates.
func clusterAPICRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	// Asked in this module, which requires it (the command may run from the repository root).
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", clusterAPIModule)
	cmd.Dir = filepath.Join(root, "test", "clusterapi")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cannot locate %s: go list -m: %w", clusterAPIModule, err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "core", "config", "crd", "bases")
	crds, err := embedded.LoadCRDs(os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", dir)
	}
	return crds, nil
}

// stop stops Cluster API's controllers, the ClusterCache and the fleet.
func (h *harness) stop() {
	h.capi.stop()
	h.fleet.Stop()
}
