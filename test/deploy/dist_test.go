package deploy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// releaseImage is the image the tests ask the release manifests to name.
const releaseImage = "registry.example.com/team/machinestatus-manager:v9.8.7"

// TestBuildInstaller runs `make build-installer` and applies each release manifest with the
// real kubectl (`kubectl apply --server-side -f`, as docs/install.md says): each is
// config/default's (or config/clusterapi's) rendering with RELEASE_IMG as the manager's image,
// and every object of it is stored.
func TestBuildInstaller(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dist := t.TempDir()
	runMake(t, ctx, "build-installer", "DIST="+dist, "RELEASE_IMG="+releaseImage)
	for file, dir := range map[string]string{"install.yaml": "config/default", "install-clusterapi.yaml": "config/clusterapi"} {
		t.Run(file, func(t *testing.T) {
			objs := readManifest(t, filepath.Join(dist, file))
			checkRendering(t, objs, renderDir(t, dir), releaseImage)
			t.Cleanup(func() { undeployed(t, objs) })
			kubectlRun(t, ctx, nil, "apply", "--server-side", "-f", filepath.Join(dist, file))
			for _, o := range objs {
				got, err := live(ctx, o)
				if err != nil || got == nil {
					t.Fatalf("%s not stored after kubectl apply -f %s (err %v)", describe(o), file, err)
				}
				if d := contains(o.Object, got.Object, describe(o)); d != "" {
					t.Errorf("stored %s differs from %s's: %s", describe(o), file, d)
				}
			}
		})
	}
}

// TestClusterctlRepository runs `make clusterctl` and checks the files against the rules of
// Cluster API's clusterctl provider contract for an add-on provider (test/clusterapi reads them
// with clusterctl's own repository library): the layout
// {basepath}/addon-machinestatus/{version}/, a components file addon-components.yaml with
// every object labeled cluster.x-k8s.io/provider=addon-machinestatus, one Namespace holding
// every namespaced object, config/clusterapi's objects otherwise; and metadata.yaml naming the
// version's release series with the v1beta2 contract. The components apply with kubectl.
func TestClusterctlRepository(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dist := t.TempDir()
	runMake(t, ctx, "clusterctl", "DIST="+dist, "VERSION=v0.1.0", "RELEASE_IMG="+releaseImage)
	dir := filepath.Join(dist, "clusterctl", "addon-machinestatus", "v0.1.0")
	components := filepath.Join(dir, "addon-components.yaml")
	objs := readManifest(t, components)
	var namespaces []string
	for _, o := range objs {
		if o.GetLabels()["cluster.x-k8s.io/provider"] != "addon-machinestatus" {
			t.Errorf("%s lacks the label cluster.x-k8s.io/provider=addon-machinestatus", describe(o))
		}
		if o.GetKind() == "Namespace" {
			namespaces = append(namespaces, o.GetName())
		}
	}
	if !reflect.DeepEqual(namespaces, []string{"machinestatus-system"}) {
		t.Fatalf("the components hold Namespaces %q, want one, machinestatus-system", namespaces)
	}
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && ns != namespaces[0] {
			t.Errorf("%s is outside the components' namespace", describe(o))
		}
	}
	var stripped []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		labels := o.GetLabels()
		delete(labels, "cluster.x-k8s.io/provider")
		o.SetLabels(labels)
		stripped = append(stripped, o)
	}
	checkRendering(t, stripped, renderDir(t, "config/clusterapi"), releaseImage)

	var metadata struct {
		APIVersion    string `json:"apiVersion"`
		Kind          string `json:"kind"`
		ReleaseSeries []struct {
			Major    int    `json:"major"`
			Minor    int    `json:"minor"`
			Contract string `json:"contract"`
		} `json:"releaseSeries"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, &metadata); err != nil {
		t.Fatalf("metadata.yaml: %v", err)
	}
	if metadata.APIVersion != "clusterctl.cluster.x-k8s.io/v1alpha3" || metadata.Kind != "Metadata" ||
		len(metadata.ReleaseSeries) == 0 || metadata.ReleaseSeries[0].Major != 0 || metadata.ReleaseSeries[0].Minor != 1 ||
		metadata.ReleaseSeries[0].Contract != "v1beta2" {
		t.Errorf("metadata.yaml: %+v, want clusterctl.cluster.x-k8s.io/v1alpha3 Metadata with series 0.1 on contract v1beta2", metadata)
	}

	t.Cleanup(func() { undeployed(t, objs) })
	kubectlRun(t, ctx, nil, "apply", "--server-side", "-f", components)
	for _, o := range objs {
		if got, err := live(ctx, o); err != nil || got == nil {
			t.Errorf("%s not stored after kubectl apply (err %v)", describe(o), err)
		}
	}
}

// TestHelmChartUpToDate regenerates the Helm chart from config/ (`make helm-chart` into a
// temporary directory) and fails when dist/chart differs: run make helm-chart and commit.
func TestHelmChartUpToDate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fresh := filepath.Join(t.TempDir(), "chart")
	runMake(t, ctx, "helm-chart", "CHART_DIR="+fresh)
	committed := filepath.Join(root, "dist", "chart")
	want, got := relative(t, fresh), relative(t, committed)
	if len(want) < 10 {
		t.Fatalf("make helm-chart wrote %d files", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("dist/chart is stale: run make helm-chart (-generated +committed):\n%s", d)
	}
}

// TestVersionStamped: `make build` stamps the binaries with `make version` (git describe, else
// the VERSION file) and the commit; bin/manager, bin/machinestatus and the kubectl plugin print it.
func TestVersionStamped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	version := output(t, ctx, "make", "-s", "-C", root, "--no-print-directory", "version")
	if tags := output(t, ctx, "git", "-C", root, "tag", "--list", "v[0-9]*"); tags == "" {
		file, err := os.ReadFile(filepath.Join(root, "VERSION"))
		if err != nil {
			t.Fatal(err)
		}
		if version != strings.TrimSpace(string(file)) {
			t.Errorf("make version = %q without tags, want the VERSION file's %q", version, strings.TrimSpace(string(file)))
		}
	}
	revision := output(t, ctx, "git", "-C", root, "rev-parse", "--short=12", "HEAD")
	bin := filepath.Join(root, "bin")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"manager", []string{filepath.Join(bin, "manager"), "version"}},
		{"machinestatus", []string{filepath.Join(bin, "machinestatus"), "version"}},
		{"kubectl machinestatus", []string{kubectl, "machinestatus", "version"}},
	} {
		cmd := exec.CommandContext(ctx, c.args[0], c.args[1:]...)
		cmd.Env = append(environWithout("PATH"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		prefix := c.name + " " + version + " (revision " + revision + ", go"
		if err != nil || !strings.HasPrefix(string(out), prefix) {
			t.Errorf("%s version: %q (%v), want it to start with %q", c.name, out, err, prefix)
		}
	}
}

// readManifest decodes a multi-document YAML file.
func readManifest(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(b)
	if err != nil || len(objs) == 0 {
		t.Fatalf("%s: %d objects, %v", path, len(objs), err)
	}
	return objs
}

// checkRendering checks that objs are rendered, in order, with the manager's image set to image.
func checkRendering(t *testing.T, objs, rendered []*unstructured.Unstructured, image string) {
	t.Helper()
	if len(objs) != len(rendered) {
		t.Fatalf("%d objects, the rendering has %d", len(objs), len(rendered))
	}
	for i, o := range rendered {
		o = o.DeepCopy()
		if o.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			if got := containers[0].(map[string]any)["image"]; got != defaultImage {
				t.Fatalf("the rendering's image is %v, want %s", got, defaultImage)
			}
			containers[0].(map[string]any)["image"] = image
			_ = unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers")
		}
		if d := cmp.Diff(o.Object, objs[i].Object); d != "" {
			t.Errorf("%s (-rendering +file):\n%s", describe(o), d)
		}
	}
}

// output runs a command and returns its trimmed standard output, failing t when it fails.
func output(t *testing.T, ctx context.Context, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = environWithout("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// relative returns the files under dir by path relative to dir.
func relative(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for path, content := range snapshot(t, dir) {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = content
	}
	return files
}
