// Package api tests the Machine API as its users meet it, against a real kube-apiserver + etcd
// with the manager binary (bin/manager) running as its own process, as harness.ManagerUser bound
// only to config/rbac: the CRD's validation and list types, kubectl get/describe/wait/explain,
// kstatus' reading, and what config/rbac grants. The reconciler's own tests are in controllers.
package api

import (
	"context"
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/proc"
)

// leaderElectionID is the manager's Lease (its default --leader-election-id).
const leaderElectionID = "machinestatus.machinestatus.io"

var (
	env *harness.Env
	k8s client.Client // admin
	// managerConfig authenticates as harness.ManagerUser, as the manager does.
	managerConfig *rest.Config
	manager       *proc.Process
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	err := setUp()
	defer func() {
		manager.Stop(harness.ManagerStopGrace)
		env.Stop()
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "last lines of the manager's log:\n%s\n", manager.Tail(30))
	}
	return code
}

func setUp() error {
	var err error
	env, err = harness.Start(harness.Options{
		MachineCRD: true, CRDs: []*apiextensionsv1.CustomResourceDefinition{harness.FakeMachineCRD()},
		AddToScheme: []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme},
	})
	if err != nil {
		return err
	}
	k8s = env.Client
	roles, err := harness.ManagerRoles()
	if err != nil {
		return err
	}
	u, kubeconfig, err := env.GrantManager(context.Background(), roles)
	if err != nil {
		return err
	}
	managerConfig = u.Config
	manager, err = env.StartManager("manager", kubeconfig,
		"--leader-elect", "--metrics-bind-address=0", "--health-probe-bind-address=0")
	return err
}
