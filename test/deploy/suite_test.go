// Package deploy tests what `make deploy` installs (config/default) against a real
// kube-apiserver + etcd: the rendered objects are accepted and stored, the manager's Pod passes
// the namespace's Pod Security level, and `make deploy` / `make undeploy` work through a
// kubeconfig like on any cluster. It has its own control plane because undeploy deletes the
// Machine CRD.
package deploy

import (
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

var (
	// env is the control plane; it starts without any CRD (config/default brings its own).
	env *harness.Env
	// k8s and clientset are admin clients of env.
	k8s       client.Client
	clientset kubernetes.Interface
	// root is the repository root; kubectl the kubectl binary (bin/k8s/kubectl or $KUBECTL_BIN).
	root, kubectl string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	env, err = harness.Start(harness.Options{AddToScheme: []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	k8s, root, kubectl = env.Client, env.Root, env.KubectlBin
	if clientset, err = kubernetes.NewForConfig(env.Config); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
