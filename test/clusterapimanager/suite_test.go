// Package clusterapimanager tests the manager's Cluster API mode: bin/manager as its own process
// with --machine-apis=cluster.x-k8s.io, a --machine-selector shard and leader election, running
// as a user bound only to the ClusterRole of config/clusterapi and the leader election Role of
// config/rbac, against a real kube-apiserver + etcd that serves Cluster API's own Machine CRD.
// Cluster API's controllers do not run: the tests write Machines and their status as Cluster
// API would. The manager starts before the CRD is installed, as on a cluster where Cluster API
// comes later.
package clusterapimanager

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

const (
	// managerUser is the identity the manager runs as; managerNamespace holds its Lease.
	managerUser      = fleet.ManagerUser
	managerNamespace = fleet.ManagerNamespace
	// shardLabel selects the Machines of the manager's shard (--machine-selector=shard=a).
	shardLabel = "shard"
	shardValue = "a"
	// fieldManager is the manager's --field-manager (its default).
	fieldManager = "machinestatus"
)

// env is what every test of the package shares.
var env struct {
	*harness.Env
	manager    *proc.Process
	metricsURL string
	// notServedLog is the manager's log line while Cluster API was not installed, and
	// servedBefore its machinestatus_machine_api_served then (setUp records both).
	notServedLog string
	servedBefore float64
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	err := setUp()
	defer tearDown()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if env.manager != nil {
			fmt.Fprintf(os.Stderr, "last lines of the manager's log:\n%s\n", env.manager.Tail(30))
		}
		return 1
	}
	return m.Run()
}

func setUp() error {
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		return err
	}
	capiCRD, err := clusterapicrd.MachineCRD(root)
	if err != nil {
		return err
	}
	// No CRD at first: Cluster API is installed after the manager started.
	env.Env, err = harness.Start(harness.Options{
		AddToScheme: []func(*runtime.Scheme) error{clusterv1.AddToScheme, apiextensionsv1.AddToScheme},
	})
	if err != nil {
		return err
	}
	roles, err := fleet.ClusterAPIManagerRoles()
	if err != nil {
		return err
	}
	_, kubeconfig, err := env.GrantManager(ctx, roles)
	if err != nil {
		return err
	}
	port, err := host.FreePort()
	if err != nil {
		return err
	}
	env.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	env.manager, err = env.StartManager("manager", kubeconfig,
		"--machine-apis=cluster.x-k8s.io",
		"--machine-selector="+shardLabel+"="+shardValue,
		"--leader-elect",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port), "--metrics-secure=false",
		"--health-probe-bind-address=0",
		"--clusterapi-check-interval=1s",
	)
	if err != nil {
		return err
	}

	// Without Cluster API: the manager says so, reports 0, and keeps running.
	if env.notServedLog, err = waitForLog(ctx, "not reconciling Cluster API Machines yet"); err != nil {
		return err
	}
	if env.servedBefore, err = servedMetric(ctx); err != nil {
		return err
	}
	if err := env.Client.Create(ctx, capiCRD.DeepCopy()); err != nil {
		return fmt.Errorf("cannot install Cluster API's Machine CRD: %w", err)
	}
	if err := waitEstablished(ctx, capiCRD.Name); err != nil {
		return err
	}
	_, err = waitForLog(ctx, "Cluster API Machines are served")
	return err
}

func tearDown() {
	env.manager.Stop(harness.ManagerStopGrace)
	env.Stop()
}

// waitForLog waits (up to two minutes) for a line of the manager's log containing s and
// returns it.
func waitForLog(ctx context.Context, s string) (string, error) {
	var line string
	err := harness.Poll(ctx, 2*time.Minute, func(context.Context) (bool, string) {
		select {
		case <-env.manager.Done():
			return false, fmt.Sprintf("the manager exited: %v", env.manager.ExitError())
		default:
		}
		f, err := os.Open(env.manager.LogPath)
		if err != nil {
			return false, err.Error()
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), s) {
				line = sc.Text()
				return true, ""
			}
		}
		return false, "not in the log yet"
	})
	if err != nil {
		return "", fmt.Errorf("waiting for %q in the manager's log: %w", s, err)
	}
	return line, nil
}

func waitEstablished(ctx context.Context, name string) error {
	return harness.Poll(ctx, time.Minute, func(ctx context.Context) (bool, string) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, err.Error()
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "not Established"
	})
}

// servedMetric returns machinestatus_machine_api_served{api_group="cluster.x-k8s.io"}, waiting
// (up to a minute) until the endpoint answers with that sample: a scrape without it is an error.
func servedMetric(ctx context.Context) (float64, error) {
	var v float64
	err := harness.Poll(ctx, time.Minute, func(ctx context.Context) (bool, string) {
		fams, err := metricstest.Fetch(ctx, nil, env.metricsURL, "")
		if err != nil { // the endpoint may not answer yet
			return false, fmt.Sprintf("scrape: %v", err)
		}
		var found bool
		v, found = fams.Lookup("machinestatus_machine_api_served", map[string]string{"api_group": "cluster.x-k8s.io"})
		return found, "no machinestatus_machine_api_served{api_group=\"cluster.x-k8s.io\"} yet"
	})
	if err != nil {
		return v, fmt.Errorf("waiting for machinestatus_machine_api_served{api_group=\"cluster.x-k8s.io\"}: %w", err)
	}
	return v, nil
}
