package helmchart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	kubefake "helm.sh/helm/v4/pkg/kube/fake"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

const (
	// releaseNamespace is where the tests install the chart: config/'s namespace, so that the
	// rendered objects compare with kustomize's as they are.
	releaseNamespace = "machinestatus-system"
	// imageRepository is the chart's default image repository (the Makefile's IMAGE_REPO).
	imageRepository = "ghcr.io/machinestatus/machinestatus-manager"
)

// helmLabels are the labels the chart adds to config/'s (templates/_helpers.tpl), and
// helmAnnotations the annotations (crd.keep).
var (
	helmLabels      = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}
	helmAnnotations = []string{"helm.sh/resource-policy"}
)

// chartDir returns dist/chart of the repository.
func chartDir() string { return filepath.Join(env.Root, "dist", "chart") }

// loadChart loads dist/chart with Helm's loader.
func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir())
	if err != nil {
		t.Fatalf("cannot load %s: %v", chartDir(), err)
	}
	return c
}

// template renders c with vals as `helm template` does (client-side dry run, Helm's default
// capabilities) as release "machinestatus" in releaseNamespace.
func template(c *chart.Chart, vals map[string]any) ([]*unstructured.Unstructured, error) {
	cfg := action.NewConfiguration()
	cfg.KubeClient = &kubefake.PrintingKubeClient{Out: io.Discard}
	cfg.Releases = storage.Init(driver.NewMemory())
	cfg.Capabilities = common.DefaultCapabilities
	install := action.NewInstall(cfg)
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName = "machinestatus"
	install.Namespace = releaseNamespace
	install.Replace = true
	r, err := install.Run(c, vals)
	if err != nil {
		return nil, err
	}
	rel, ok := r.(*releasev1.Release)
	if !ok {
		return nil, fmt.Errorf("helm returned a %T, want a *release.Release", r)
	}
	return decodeAll([]byte(rel.Manifest))
}

// kustomize returns the objects of `kubectl kustomize dir` (relative to the repository root)
// with the manager's image set to image, as `make build-installer` writes them.
func kustomize(t *testing.T, dir, image string) []*unstructured.Unstructured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.KubectlBin, "kustomize", dir)
	cmd.Dir = env.Root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	out = bytes.ReplaceAll(out, []byte("image: machinestatus-manager:latest"), []byte("image: "+image))
	objs, err := decodeAll(out)
	if err != nil || len(objs) == 0 {
		t.Fatalf("kubectl kustomize %s: %d objects, %v", dir, len(objs), err)
	}
	return objs
}

// decodeAll decodes a multi-document YAML stream; empty documents are skipped.
func decodeAll(b []byte) ([]*unstructured.Unstructured, error) {
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

// byKey indexes objs by kind/namespace/name.
func byKey(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	m := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		m[objKey(o)] = o
	}
	return m
}

func objKey(o *unstructured.Unstructured) string {
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

// keys returns m's keys, sorted.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withoutHelmMetadata returns o without the labels and annotations the chart adds.
func withoutHelmMetadata(o *unstructured.Unstructured) *unstructured.Unstructured {
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
	o.SetLabels(strip(o.GetLabels(), helmLabels))
	o.SetAnnotations(strip(o.GetAnnotations(), helmAnnotations))
	return o
}

// findObj returns the object of kind and name among objs, or nil.
func findObj(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// managerArgs returns the manager container's args of the Deployment among objs.
func managerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	d := findObj(objs, "Deployment", "machinestatus-manager")
	if d == nil {
		t.Fatal("no Deployment machinestatus-manager rendered")
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	args, _, err := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// kinds lists objs as "Kind name", for messages.
func kinds(objs []*unstructured.Unstructured) string {
	var s []string
	for _, o := range objs {
		s = append(s, o.GetKind()+" "+o.GetName())
	}
	return strings.Join(s, ", ")
}
