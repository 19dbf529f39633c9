// Package e2e holds tests of the libraries against a real kube-apiserver + etcd (no manager):
// the API server's verdicts on conditions and several writers sharing one Machine.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

var (
	env *harness.Env
	k8s client.Client // admin
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	if env, err = harness.Start(harness.Options{MachineCRD: true}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	k8s = env.Client
	return m.Run()
}

// newMachine creates a Machine with no status in ns, after applying mutate.
func newMachine(t *testing.T, ns, name string, mutate ...func(*v1alpha1.Machine)) *v1alpha1.Machine {
	t.Helper()
	m := harness.NewMachine(ns, name)
	for _, f := range mutate {
		f(m)
	}
	env.Create(t, m)
	return m
}
