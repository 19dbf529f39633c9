// Package embedded starts a local control plane (kube-apiserver + etcd built by `make tools`)
// for `make run-embedded` (hack/run-embedded), `make demo` and tests; cmd/manager never imports it
// (TestManagerLinksNoTestHarness). It wraps controller-runtime's envtest, which
// runs the real binaries; nothing is downloaded.
package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// AssetsEnv names the environment variable that points at kube-apiserver and etcd
// (envtest's convention); the Makefile sets it to bin/k8s.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// Options configure Start.
type Options struct {
	// AssetsDir holds kube-apiserver and etcd. Empty means $KUBEBUILDER_ASSETS, else bin/k8s.
	AssetsDir string
	// CRDs are installed before Start returns (and are served when it returns).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// KubeconfigPath, when set, receives an admin kubeconfig for the control plane.
	KubeconfigPath string
	// AttachOutput copies the control plane's output to this process's stdout and stderr.
	AttachOutput bool
	// APIServerFlags are extra kube-apiserver flags, named without the leading "--" (e.g.
	// "audit-log-path"); each replaces envtest's value of the same flag.
	APIServerFlags map[string]string
}

// ControlPlane is a running kube-apiserver + etcd.
type ControlPlane struct {
	// Config is an admin REST config for the API server.
	Config *rest.Config
	// Kubeconfig is an admin kubeconfig for the API server.
	Kubeconfig []byte
	// KubeconfigPath is where Kubeconfig was written, if anywhere.
	KubeconfigPath string

	env *envtest.Environment
	// certDir keeps kube-apiserver's serving certificates across StopAPIServer/StartAPIServer.
	certDir string
}

// ErrAssetsMissing is returned by Start when kube-apiserver or etcd is not in the assets directory.
var ErrAssetsMissing = errors.New("kube-apiserver or etcd not found: run `make tools` first")

// Start starts kube-apiserver and etcd, installs opts.CRDs and, when asked, writes a kubeconfig.
// It returns ErrAssetsMissing (wrapped) when the binaries are absent, or the envtest error.
func Start(opts Options) (*ControlPlane, error) {
	dir, err := assetsDir(opts.AssetsDir)
	if err != nil {
		return nil, err
	}
	// A certificate directory of our own (envtest deletes its temporary one on every stop) lets
	// the API server restart with the certificates its clients already trust.
	certDir, err := os.MkdirTemp("", "machinestatus-apiserver-")
	if err != nil {
		return nil, fmt.Errorf("cannot create the API server's certificate directory: %w", err)
	}
	api := &envtest.APIServer{CertDir: certDir}
	for name, value := range opts.APIServerFlags {
		api.Configure().Set(name, value)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDs:                     opts.CRDs,
		ErrorIfCRDPathMissing:    true,
		AttachControlPlaneOutput: opts.AttachOutput,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
		ControlPlane:             envtest.ControlPlane{APIServer: api},
	}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("cannot start kube-apiserver and etcd from %s: %w", dir, err)
	}
	cp := &ControlPlane{Config: cfg, Kubeconfig: env.KubeConfig, env: env, certDir: certDir}
	if opts.KubeconfigPath != "" {
		if err := os.MkdirAll(filepath.Dir(opts.KubeconfigPath), 0o750); err != nil {
			_ = cp.Stop()
			return nil, fmt.Errorf("cannot create kubeconfig directory: %w", err)
		}
		if err := os.WriteFile(opts.KubeconfigPath, env.KubeConfig, 0o600); err != nil {
			_ = cp.Stop()
			return nil, fmt.Errorf("cannot write kubeconfig: %w", err)
		}
		cp.KubeconfigPath = opts.KubeconfigPath
	}
	return cp, nil
}

// Stop stops the API server and etcd and removes their data.
func (c *ControlPlane) Stop() error {
	if c == nil || c.env == nil {
		return nil
	}
	err := c.env.Stop()
	if c.certDir != "" {
		_ = os.RemoveAll(c.certDir)
	}
	return err
}

// StopAPIServer stops the kube-apiserver process (SIGTERM, SIGKILL after a minute) and leaves
// etcd running, to simulate an API server outage. It returns envtest's error when the process
// cannot be stopped.
func (c *ControlPlane) StopAPIServer() error {
	if err := c.env.ControlPlane.APIServer.Stop(); err != nil {
		return fmt.Errorf("cannot stop kube-apiserver: %w", err)
	}
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer: same address, certificates,
// flags and etcd, so Config and Kubeconfig stay valid. It returns once the API server reports
// healthy, or envtest's error (after at most a minute).
func (c *ControlPlane) StartAPIServer() error {
	if err := c.env.ControlPlane.APIServer.Start(); err != nil {
		return fmt.Errorf("cannot start kube-apiserver again: %w", err)
	}
	return nil
}

func assetsDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(AssetsEnv)
	}
	if dir == "" {
		dir = filepath.Join("bin", "k8s")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cannot resolve assets directory %q: %w", dir, err)
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(abs, name)); err != nil {
			return "", fmt.Errorf("%w (looked in %s)", ErrAssetsMissing, abs)
		}
	}
	return abs, nil
}

// LoadCRDs decodes every *.yaml file of fsys (e.g. crd.Bases) into CRDs.
func LoadCRDs(fsys fs.FS) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(fsys, "*/*.yaml")
	if err != nil {
		return nil, err
	}
	more, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range append(files, more...) {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", f, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(b, crd); err != nil {
			return nil, fmt.Errorf("cannot decode CRD %s: %w", f, err)
		}
		out = append(out, crd)
	}
	return out, nil
}
