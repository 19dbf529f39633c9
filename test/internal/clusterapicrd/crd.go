// Package clusterapicrd gives the tests Cluster API's own CRDs, from Cluster API's root module
// in the Go module cache (never required by the main module).
package clusterapicrd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/machinestatus/machinestatus/test/embedded"
)

// clusterAPIModule is Cluster API's root module, which holds its CRDs. The main module
// requires only its API module (clusterAPIAPIModule); the root module is read from the module
// cache at the API module's version, as Cluster API providers do in their envtest suites.
// `make test` fetches it first (make clusterapi-module); a plain `go test` fetches it through
// the module proxy when the cache does not have it.
const (
	clusterAPIModule    = "sigs.k8s.io/cluster-api"
	clusterAPIAPIModule = "sigs.k8s.io/cluster-api/api"
	// clusterAPICRDDir is where the core CRDs live in the root module (v1.14).
	clusterAPICRDDir = "core/config/crd/bases"
)

// MachineCRD returns Cluster API's Machine CRD; see CRDs.
func MachineCRD(root string) (*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := CRDs(root, "machines")
	if err != nil {
		return nil, err
	}
	return crds[0], nil
}

// CRDs returns Cluster API's CRDs of the given cluster.x-k8s.io resources (e.g. "machines",
// "clusters", "machinedeployments"), in that order, as MachineCRD finds them.
func CRDs(root string, resources ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := crdDir(root)
	if err != nil {
		return nil, err
	}
	crds, err := embedded.LoadCRDs(os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(resources))
	for _, r := range resources {
		name := r + ".cluster.x-k8s.io"
		i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no CRD %s in %s", name, dir)
		}
		out = append(out, crds[i])
	}
	return out, nil
}

// crdDir returns the directory of Cluster API's CRDs (machines.cluster.x-k8s.io) at the
// version of clusterAPIAPIModule that root's go.mod requires, downloading the root module
// through the Go module proxy when the module cache does not have it yet.
func crdDir(root string) (string, error) {
	version, err := goCommand(root, "list", "-m", "-f", "{{.Version}}", clusterAPIAPIModule)
	if err != nil {
		return "", err
	}
	out, err := goCommand(root, "mod", "download", "-json", clusterAPIModule+"@"+version)
	if err != nil {
		return "", err
	}
	var module struct {
		Dir   string
		Error string
	}
	if err := json.Unmarshal([]byte(out), &module); err != nil {
		return "", fmt.Errorf("cannot read `go mod download -json %s@%s`: %w", clusterAPIModule, version, err)
	}
	if module.Error != "" || module.Dir == "" {
		return "", fmt.Errorf("cannot download %s@%s: %s", clusterAPIModule, version, module.Error)
	}
	return filepath.Join(module.Dir, filepath.FromSlash(clusterAPICRDDir)), nil
}

// goCommand runs `go args...` in dir and returns its standard output, trimmed.
func goCommand(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			// go mod download -json reports its error in the JSON on standard output.
			return "", fmt.Errorf("go %s: %w: %s%s", strings.Join(args, " "), err, exit.Stderr, out)
		}
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
