// Package deploy tests what `make deploy` installs (config/default) against a real
// kube-apiserver + etcd: the rendered objects are accepted and stored, the manager's Pod passes
// the namespace's Pod Security level, and `make deploy` / `make undeploy` work through a
// kubeconfig like on any cluster. It has its own control plane because undeploy deletes the
// Machine CRD.
package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/internal/embedded"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

var (
	scheme = runtime.NewScheme()
	// cp is the control plane; it starts without any CRD (config/default brings its own).
	cp *embedded.ControlPlane
	// k8s and clientset are admin clients of cp.
	k8s       client.Client
	clientset kubernetes.Interface
	// root is the repository root; kubectl the kubectl binary (bin/k8s/kubectl or $KUBECTL_BIN).
	root, kubectl string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	var err error
	if root, err = repo.Root(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if kubectl, err = repo.Binary(root, "KUBECTL_BIN", "bin/k8s/kubectl"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "machinestatus-deploy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	assets := os.Getenv(embedded.AssetsEnv)
	if assets == "" {
		assets = filepath.Join(root, "bin", "k8s")
	}
	cp, err = embedded.Start(embedded.Options{AssetsDir: assets, KubeconfigPath: filepath.Join(dir, "kubeconfig")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = cp.Stop() }()
	if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if clientset, err = kubernetes.NewForConfig(cp.Config); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
