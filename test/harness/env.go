package harness

import (
	"fmt"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// Options configure Start.
type Options struct {
	// Dir receives the admin kubeconfig (Dir/kubeconfig) and kwok's log. Empty: a temporary
	// directory that Stop removes.
	Dir string
	// MachineCRD, when true, installs machinestatus's CRDs (config/crd).
	MachineCRD bool
	// CRDs are installed too. Every CRD is served when Start returns.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// APIServerFlags are extra kube-apiserver flags (see embedded.Options.APIServerFlags).
	APIServerFlags map[string]string
	// Kwok, when true, starts kwok as the kubelet of every Node annotated
	// kwok.x-k8s.io/node=fake (test/kwok).
	Kwok bool
	// AddToScheme adds types to Env.Scheme besides client-go's and machinestatus's.
	AddToScheme []func(*runtime.Scheme) error
	// QPS and Burst of Env.Config and Env.Client (zero: envtest's, 1000 and 2000; client-go's
	// own defaults, 5 and 10, would throttle the suites that write fast).
	QPS   float32
	Burst int
}

// Env is a running control plane (kube-apiserver + etcd, built by `make tools`), kwok when
// asked, and an admin client.
type Env struct {
	// Root is the repository's directory.
	Root string
	// Dir holds Kubeconfig and logs.
	Dir string
	// Assets is the directory kube-apiserver and etcd run from.
	Assets string
	// CP is the control plane: AddUser, Grant, StopAPIServer and StartAPIServer.
	CP *embedded.ControlPlane
	// Config is an admin REST config (with Options.QPS and Burst).
	Config *rest.Config
	// Kubeconfig is the path of an admin kubeconfig.
	Kubeconfig string
	// KubectlBin is bin/k8s/kubectl, or $KUBECTL_BIN.
	KubectlBin string
	// Scheme has client-go's, machinestatus's and Options.AddToScheme's types.
	Scheme *runtime.Scheme
	// Client is an uncached admin client with Scheme.
	Client client.Client
	// ManagerBin is the manager binary StartManager runs (empty: bin/manager, or $MANAGER_BIN).
	ManagerBin string
	// Kwok is the kwok process (nil unless Options.Kwok).
	Kwok *proc.Process

	removeDir bool
}

// Start starts the control plane with o.CRDs and, when asked, kwok. It finds the binaries from
// the repository root (the nearest go.mod of this module above the working directory):
// kube-apiserver and etcd in $KUBEBUILDER_ASSETS else bin/k8s, kubectl in $KUBECTL_BIN else
// bin/k8s/kubectl, kwok in $KWOK_BIN else bin/kwok. It returns an error naming what is missing
// or could not start, after stopping what it started.
func Start(o Options) (e *Env, err error) {
	e = &Env{Dir: o.Dir}
	defer func() {
		if err != nil {
			e.Stop()
			e = nil
		}
	}()
	if e.Root, err = repo.Root(); err != nil {
		return e, err
	}
	if e.KubectlBin, err = repo.Binary(e.Root, "KUBECTL_BIN", filepath.Join("bin", "k8s", "kubectl")); err != nil {
		return e, err
	}
	if e.Dir == "" {
		if e.Dir, err = os.MkdirTemp("", "machinestatus-test-"); err != nil {
			return e, err
		}
		e.removeDir = true
	} else if err := os.MkdirAll(e.Dir, 0o750); err != nil {
		return e, fmt.Errorf("cannot create %s: %w", e.Dir, err)
	}
	e.Scheme = runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme}, o.AddToScheme...) {
		if err := add(e.Scheme); err != nil {
			return e, fmt.Errorf("cannot build the scheme: %w", err)
		}
	}
	crds := o.CRDs
	if o.MachineCRD {
		ours, err := embedded.LoadCRDs(crd.Bases)
		if err != nil {
			return e, err
		}
		crds = append(ours, crds...)
	}
	if e.Assets = os.Getenv(embedded.AssetsEnv); e.Assets == "" {
		e.Assets = filepath.Join(e.Root, "bin", "k8s")
	}
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig")
	if e.CP, err = embedded.Start(embedded.Options{
		AssetsDir: e.Assets, CRDs: crds, KubeconfigPath: e.Kubeconfig, APIServerFlags: o.APIServerFlags,
	}); err != nil {
		return e, err
	}
	e.Config = rest.CopyConfig(e.CP.Config)
	if o.QPS != 0 {
		e.Config.QPS = o.QPS
	}
	if o.Burst != 0 {
		e.Config.Burst = o.Burst
	}
	if e.Client, err = client.New(e.Config, client.Options{Scheme: e.Scheme}); err != nil {
		return e, fmt.Errorf("cannot create a client: %w", err)
	}
	if o.Kwok {
		if e.Kwok, err = startKwok(e.Root, e.Kubeconfig, filepath.Join(e.Dir, "kwok.log")); err != nil {
			return e, err
		}
	}
	return e, nil
}

func startKwok(root, kubeconfig, logPath string) (*proc.Process, error) {
	bin, err := repo.Binary(root, "KWOK_BIN", filepath.Join("bin", "kwok"))
	if err != nil {
		return nil, err
	}
	stages, err := kwok.StagesDir(root)
	if err != nil {
		return nil, err
	}
	return kwok.Start(kwok.Options{Binary: bin, Kubeconfig: kubeconfig, StagesDir: stages, LogPath: logPath})
}

// Stop stops kwok and the control plane and removes a temporary Dir; errors are printed to
// standard error (there is nothing left to do about them).
func (e *Env) Stop() {
	if e == nil {
		return
	}
	e.Kwok.Stop(kwok.StopGrace)
	if e.CP != nil {
		if err := e.CP.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "cannot stop the control plane cleanly: %v\n", err)
		}
	}
	if e.removeDir {
		_ = os.RemoveAll(e.Dir)
	}
}
