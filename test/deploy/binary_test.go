package deploy

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// testHarness are the import paths (and their subpackages) that must not be linked into the
// manager binary: controller-runtime's envtest and its process runner, and the repository's
// embedded control plane and test packages. hack/run-embedded is where the local control plane lives.
var testHarness = []string{
	"sigs.k8s.io/controller-runtime/pkg/envtest",
	"sigs.k8s.io/controller-runtime/pkg/internal/testing",
	"github.com/machinestatus/machinestatus/test/embedded",
	"github.com/machinestatus/machinestatus/test",
	"github.com/machinestatus/machinestatus/hack",
}

// TestManagerLinksNoTestHarness checks with `go list -deps ./cmd/manager` that the shipped
// binary is built from no test harness package (testHarness). It fails naming each one found.
func TestManagerLinksNoTestHarness(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "./cmd/manager")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/manager: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || !slices.Contains(deps, "sigs.k8s.io/controller-runtime") {
		t.Fatalf("go list -deps ./cmd/manager listed %d packages without controller-runtime: not the manager's dependencies", len(deps))
	}
	for _, p := range deps {
		for _, h := range testHarness {
			if p == h || strings.HasPrefix(p, h+"/") {
				t.Errorf("./cmd/manager is built from %s (test harness %s)", p, h)
			}
		}
	}
}
