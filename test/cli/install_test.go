package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/machinestatus/machinestatus/internal/describe"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestDescribeWithoutCRDs runs describe against a control plane of its own that serves no
// Machine API at first, then only Cluster API's, then none again while kubectl's discovery
// cache still lists it.
func TestDescribeWithoutCRDs(t *testing.T) {
	bare, err := harness.Start(harness.Options{Dir: t.TempDir(), AddToScheme: []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bare.Stop)
	kubeconfig := bare.Kubeconfig

	expectError := func(t *testing.T, want string, args ...string) {
		t.Helper()
		r := runCLI(t, kubeconfig, args...)
		if r.code != describe.ExitError || !strings.Contains(r.stderr, "error: "+want) || r.stdout != "" {
			t.Errorf("want exit code %d and %q: %s", describe.ExitError, want, r)
		}
	}

	// No Machine API at all.
	expectError(t, "the server does not serve machines.machinestatus.io or machines.cluster.x-k8s.io: "+
		"install the machinestatus CRD (make install), or install Cluster API v1.11 or later", "describe")
	expectError(t, "the server does not serve machines.cluster.x-k8s.io: install Cluster API v1.11 or later",
		"describe", "ma/worker-0")
	expectError(t, "the server does not serve machines.machinestatus.io: install the machinestatus CRD (make install)",
		"describe", "machines.machinestatus.io", "worker-0")

	// Cluster API only: plain `machine` reads it; machinestatus Machines are still missing.
	crd := env.capiCRD.DeepCopy()
	if _, err := envtest.InstallCRDs(bare.Config, envtest.CRDInstallOptions{
		CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}, MaxTime: 2 * time.Minute,
	}); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, kubeconfig, "describe", "machine", "-o", "json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "{\n    \"items\": []\n}" {
		t.Errorf("describe machine with Cluster API only: want no items: %s", r)
	}
	expectError(t, "the server does not serve machines.machinestatus.io", "describe", "msm")

	// The CRD goes while the discovery cache (in HOME) still lists it: the 404 of the resource
	// itself says so.
	k8s := bare.Client
	ctx := context.Background()
	if err := k8s.Delete(ctx, crd); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, 2*time.Minute, "the CRD to be deleted", func(ctx context.Context) (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(crd), &apiextensionsv1.CustomResourceDefinition{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	for _, typ := range []string{"ma", "machine"} {
		expectError(t, "the server does not serve machines.cluster.x-k8s.io: install Cluster API v1.11 or later", "describe", typ)
	}
	// A qualified name is looked up again when discovery does not know it at first (as kubectl
	// does), so the cache is refreshed.
	expectError(t, "the server does not serve machines.cluster.x-k8s.io: install Cluster API v1.11 or later",
		"describe", "machines.cluster.x-k8s.io")
}
