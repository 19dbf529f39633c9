// Package render is what the chart and install tests of test/helm share: the repository and its
// tools, the chart loaded and rendered with Helm's SDK as `helm template` renders it, `kubectl
// kustomize` of config/, and comparisons of the objects. It renders with Helm's engine, not
// its action package, so that the chart tests in make test compile half as much of Helm.
package render

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

const (
	// ReleaseName is the release the tests render and install.
	ReleaseName = "machinestatus"
	// ImageRepository is the chart's default image repository (the Makefile's IMAGE_REPO).
	ImageRepository = "ghcr.io/machinestatus/machinestatus-manager"
	// mainModule is the repository's root module.
	mainModule = "github.com/machinestatus/machinestatus"
)

// HelmLabels are the labels the chart adds to config/'s (templates/_helpers.tpl), and
// HelmAnnotations the annotations (crd.keep).
var (
	HelmLabels      = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}
	HelmAnnotations = []string{"helm.sh/resource-policy"}
)

// Root returns the repository's root: the nearest directory above the working directory whose
// go.mod declares the main module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			s := bufio.NewScanner(f)
			first := ""
			if s.Scan() {
				first = strings.TrimSpace(s.Text())
			}
			_ = f.Close()
			if first == "module "+mainModule {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", mainModule)
		}
		dir = parent
	}
}

// Kubectl returns $KUBECTL_BIN, else root/bin/k8s/kubectl (make runtime-tools builds it).
func Kubectl(root string) (string, error) {
	p := os.Getenv("KUBECTL_BIN")
	if p == "" {
		p = filepath.Join(root, "bin", "k8s", "kubectl")
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("kubectl not found (make runtime-tools): %w", err)
	}
	return p, nil
}

// ChartDir returns dist/chart of the repository at root.
func ChartDir(root string) string { return filepath.Join(root, "dist", "chart") }

// LoadChart loads dist/chart with Helm's loader.
func LoadChart(root string) (*chart.Chart, error) {
	return loader.Load(ChartDir(root))
}

// Template renders c with vals as `helm template` does for release ReleaseName in namespace
// (Helm's default capabilities, schema validation, notes and partials left out, manifests in
// Helm's install order).
func Template(c *chart.Chart, vals map[string]any, namespace string) ([]*unstructured.Unstructured, error) {
	values, err := util.ToRenderValuesWithSchemaValidation(c, vals,
		common.ReleaseOptions{Name: ReleaseName, Namespace: namespace, Revision: 1, IsInstall: true, IsUpgrade: false},
		common.DefaultCapabilities, false)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(c, values)
	if err != nil {
		return nil, err
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	var all bytes.Buffer
	for _, m := range manifests {
		fmt.Fprintf(&all, "---\n%s\n", m.Content)
	}
	return DecodeAll(all.Bytes())
}

// Kustomize returns the objects of `kubectl kustomize dir` (relative to root) with the
// manager's image set to image, as `make build-installer` writes them.
func Kustomize(root, kubectl, dir, image string) ([]*unstructured.Unstructured, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", dir)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kubectl kustomize %s: %w\n%s", dir, err, stderr.String())
	}
	out = bytes.ReplaceAll(out, []byte("image: machinestatus-manager:latest"), []byte("image: "+image))
	objs, err := DecodeAll(out)
	if err == nil && len(objs) == 0 {
		err = fmt.Errorf("kubectl kustomize %s rendered nothing", dir)
	}
	return objs, err
}

// DecodeAll decodes a multi-document YAML stream; empty documents are skipped.
func DecodeAll(b []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("cannot decode object %d: %w", len(objs)+1, err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// ByKey indexes objs by Key.
func ByKey(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	m := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		m[Key(o)] = o
	}
	return m
}

// Key is kind/namespace/name.
func Key(o *unstructured.Unstructured) string {
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

// Keys returns m's keys, sorted.
func Keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WithoutHelmMetadata returns o without the labels and annotations the chart adds.
func WithoutHelmMetadata(o *unstructured.Unstructured) *unstructured.Unstructured {
	o = o.DeepCopy()
	strip := func(m map[string]string, names []string) map[string]string {
		for _, n := range names {
			delete(m, n)
		}
		if len(m) == 0 {
			return nil
		}
		return m
	}
	o.SetLabels(strip(o.GetLabels(), HelmLabels))
	o.SetAnnotations(strip(o.GetAnnotations(), HelmAnnotations))
	return o
}

// Find returns the object of kind and name among objs, or nil.
func Find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// ManagerArgs returns the manager container's args of the Deployment machinestatus-manager
// among objs.
func ManagerArgs(objs []*unstructured.Unstructured) ([]string, error) {
	d := Find(objs, "Deployment", "machinestatus-manager")
	if d == nil {
		return nil, errors.New("no Deployment machinestatus-manager rendered")
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return nil, fmt.Errorf("the Deployment has %d containers", len(containers))
	}
	args, _, err := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	return args, err
}

// Kinds lists objs as "Kind name", for messages.
func Kinds(objs []*unstructured.Unstructured) string {
	var s []string
	for _, o := range objs {
		s = append(s, o.GetKind()+" "+o.GetName())
	}
	return strings.Join(s, ", ")
}
