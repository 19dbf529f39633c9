package install

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/machinestatus/machinestatus/test/harness"
)

// env is the control plane of the install test; it starts without any CRD (the chart brings it).
var env *harness.Env

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	// envtest logs through controller-runtime's logger; the tests read the manager's own logs.
	ctrllog.SetLogger(logr.Discard())
	var err error
	env, err = harness.Start(harness.Options{AddToScheme: []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	return m.Run()
}
