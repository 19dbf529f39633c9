// Package e2e holds tests of the libraries against a real kube-apiserver + etcd (no manager):
// the API server's verdicts on conditions and several writers sharing one Machine.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/internal/embedded"
)

var (
	scheme = runtime.NewScheme()
	cp     *embedded.ControlPlane
	k8s    client.Client
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	crds, err := embedded.LoadCRDs(crd.Bases)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	assets := os.Getenv(embedded.AssetsEnv)
	if assets == "" {
		assets = filepath.Join("..", "..", "bin", "k8s")
	}
	if cp, err = embedded.Start(embedded.Options{AssetsDir: assets, CRDs: crds}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = cp.Stop() }()
	if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// newMachine creates a Machine with no status in ns, after applying mutate.
func newMachine(t *testing.T, ns, name string, mutate ...func(*v1alpha1.Machine)) *v1alpha1.Machine {
	t.Helper()
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.MachineSpec{InfrastructureRef: v1alpha1.ContractVersionedObjectReference{
			APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "FakeMachine", Name: name,
		}},
	}
	for _, f := range mutate {
		f(m)
	}
	if err := k8s.Create(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}
