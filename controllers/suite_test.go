package controllers_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/test/harness"
)

// The manager runs as harness.ManagerUser, bound only to the RBAC of config/rbac: the generated
// ClusterRoles and the leader election Role in harness.ManagerNamespace. The tests' own client
// is admin.
const leaderElectionID = "machinestatus.machinestatus.io"

var (
	env           *harness.Env
	scheme        *runtime.Scheme
	k8s           client.Client // uncached admin client for the tests' own reads and writes
	managerConfig *rest.Config  // authenticates as harness.ManagerUser
	mgr           ctrl.Manager
	reconciler    *controllers.MachineReconciler
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.Level(zapLevel()))))
	// The Machines of a test running its own manager are that manager's (discovery_lag_test.go).
	notOwnManager, err := labels.NewRequirement(ownManagerLabel, selection.DoesNotExist, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env, err = harness.Start(harness.Options{MachineCRD: true, CRDs: []*apiextensionsv1.CustomResourceDefinition{harness.FakeMachineCRD()}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	scheme, k8s = env.Scheme, env.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if managerConfig, err = restrictedManager(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mgr, err = ctrl.NewManager(managerConfig, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Cache:                   controllers.CacheOptions(labels.NewSelector().Add(*notOwnManager), true),
		LeaderElection:          true,
		LeaderElectionNamespace: harness.ManagerNamespace,
		LeaderElectionID:        leaderElectionID,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	reconciler = &controllers.MachineReconciler{
		Client:     mgr.GetClient(),
		Cache:      mgr.GetCache(),
		RESTMapper: mgr.GetRESTMapper(),
		Recorder:   mgr.GetEventRecorder("machinestatus"),
		// Short, so that a test sees a Machine notice a CRD installed after it (bad_refs_test.go).
		KindRetryInterval: 2 * time.Second,
	}
	if err := reconciler.SetupWithManager(ctx, mgr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
	}
	return code
}

// restrictedManager provisions harness.ManagerUser with the roles of config/rbac and returns
// its REST config, which records its requests (managerRequests).
func restrictedManager(ctx context.Context) (*rest.Config, error) {
	roles, err := harness.ManagerRoles()
	if err != nil {
		return nil, err
	}
	u, _, err := env.GrantManager(ctx, roles)
	if err != nil {
		return nil, err
	}
	u.Config.Wrap(managerRequests.wrap)
	return u.Config, nil
}

func zapLevel() int8 {
	if os.Getenv("TEST_VERBOSE") != "" {
		return -1
	}
	return 4 // errors only
}
