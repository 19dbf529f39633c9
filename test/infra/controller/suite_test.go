package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/config/samples/infra"
	"github.com/machinestatus/machinestatus/internal/embedded"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/infra/controller"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// k8sClient talks to the suite's API server, where the SimMachine reconciler and kwok run.
var k8sClient client.Client

// TestMain starts kube-apiserver + etcd with the SimMachine CRD, kwok and the reconciler.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	log.SetLogger(logr.Discard())
	root, err := repo.Root()
	if err != nil {
		return fail(err)
	}
	crds, err := embedded.LoadCRDs(infra.CRDs)
	if err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp("", "simmachine-test-")
	if err != nil {
		return fail(err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	cp, err := embedded.Start(embedded.Options{
		AssetsDir: filepath.Join(root, "bin", "k8s"), CRDs: crds, KubeconfigPath: kubeconfig,
	})
	if err != nil {
		return fail(err)
	}
	defer func() { _ = cp.Stop() }()

	kwokBin, err := repo.Binary(root, "KWOK_BIN", "bin/kwok")
	if err != nil {
		return fail(err)
	}
	stages, err := kwok.StagesDir(root)
	if err != nil {
		return fail(err)
	}
	kw, err := kwok.Start(kwok.Options{
		Binary: kwokBin, Kubeconfig: kubeconfig, LogPath: filepath.Join(tmp, "kwok.log"), StagesDir: stages,
	})
	if err != nil {
		return fail(err)
	}
	defer kw.Stop(kwok.StopGrace)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fail(err)
	}
	if err := infrav1.AddToScheme(scheme); err != nil {
		return fail(err)
	}
	mgr, err := ctrl.NewManager(cp.Config, ctrl.Options{
		Scheme:                 scheme,
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

	if k8sClient, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return fail(err)
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "last lines of kwok's log:\n%s\n", kw.Tail(20))
	}
	return code
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "cannot set up the SimMachine test suite:", err)
	return 1
}
