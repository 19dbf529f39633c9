package controller_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/config/samples/infra"
	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/infra/controller"
)

// k8sClient talks to the suite's API server, where the SimMachine reconciler and kwok run.
var k8sClient client.Client

// TestMain starts kube-apiserver + etcd with the SimMachine CRD, kwok and the reconciler.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	log.SetLogger(logr.Discard())
	crds, err := embedded.LoadCRDs(infra.CRDs)
	if err != nil {
		return fail(err)
	}
	env, err := harness.Start(harness.Options{CRDs: crds, Kwok: true, AddToScheme: []func(*runtime.Scheme) error{infrav1.AddToScheme}})
	if err != nil {
		return fail(err)
	}
	defer env.Stop()

	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fail(err)
	}
	if err := (&controller.SimMachineReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-mgrDone; err != nil {
			fmt.Fprintln(os.Stderr, "the SimMachine test suite's manager failed:", err)
		}
	}()

	k8sClient = env.Client
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "last lines of kwok's log:\n%s\n", env.Kwok.Tail(20))
	}
	return code
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "cannot set up the SimMachine test suite:", err)
	return 1
}
