package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/test/helm/internal/render"
)

// TestLint runs Helm's linter (what `helm lint --strict` runs) on the chart with its defaults
// and with every optional part on: no warning, no error.
func TestLint(t *testing.T) {
	for _, vals := range []map[string]any{
		nil,
		{"machineAPIs": []any{"machinestatus.io", "cluster.x-k8s.io"}, "machineSelector": "pool=a",
			"monitoring": map[string]any{"serviceMonitor": map[string]any{"enabled": true,
				"prometheusServiceAccount": map[string]any{"name": "prometheus", "namespace": "monitoring"}}}},
	} {
		linter := lint.RunAll(render.ChartDir(root), vals, releaseNamespace)
		if len(linter.Messages) == 0 {
			t.Errorf("helm lint %v: no message at all, not even the chart's INFO: did it lint?", vals)
		}
		for _, m := range linter.Messages {
			if m.Severity > support.InfoSev {
				t.Errorf("helm lint %v: %s", vals, m.Error())
			}
		}
	}
}

// TestDefaultsMatchKustomize: with its defaults the chart renders config/default's objects
// (but the Namespace, which Helm's --namespace is for) as `make build-installer` writes them,
// field for field once the chart's own labels and annotations are set aside; with
// machineAPIs [cluster.x-k8s.io] it renders config/clusterapi's.
func TestDefaultsMatchKustomize(t *testing.T) {
	c := loadChart(t)
	image := render.ImageRepository + ":" + c.Metadata.AppVersion
	for _, tc := range []struct {
		dir  string
		vals map[string]any
	}{
		{"config/default", nil},
		{"config/clusterapi", map[string]any{"machineAPIs": []any{"cluster.x-k8s.io"}}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			rendered, err := render.Template(c, tc.vals, releaseNamespace)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			want := map[string]*unstructured.Unstructured{}
			for _, o := range kustomize(t, tc.dir, image) {
				if o.GetKind() != "Namespace" {
					want[render.Key(o)] = o
				}
			}
			got := render.ByKey(rendered)
			if !reflect.DeepEqual(render.Keys(got), render.Keys(want)) {
				t.Fatalf("helm template renders %q\nkubectl kustomize %s renders %q (without its Namespace)", render.Keys(got), tc.dir, render.Keys(want))
			}
			for k, w := range want {
				g := got[k]
				for _, l := range render.HelmLabels {
					if _, ok := g.GetLabels()[l]; !ok {
						t.Errorf("%s has no label %s", k, l)
					}
				}
				if d := cmp.Diff(w.Object, render.WithoutHelmMetadata(g).Object); d != "" {
					t.Errorf("%s differs from %s's (-kustomize +helm):\n%s", k, tc.dir, d)
				}
			}
		})
	}
}

// TestValues renders the chart with each value set and checks what it changes.
func TestValues(t *testing.T) {
	c := loadChart(t)
	defaultArgs := []string{"--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"}
	for _, tc := range []struct {
		name  string
		vals  map[string]any
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{"defaults: no monitoring objects", nil, func(t *testing.T, objs []*unstructured.Unstructured) {
			for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
				if strings.Contains(render.Kinds(objs), kind+" ") {
					t.Errorf("a %s is rendered by default: %s", kind, render.Kinds(objs))
				}
			}
			if got := managerArgs(t, objs); !reflect.DeepEqual(got, defaultArgs) {
				t.Errorf("args %q, want %q", got, defaultArgs)
			}
		}},
		{"selector, replicas, image, extra args", map[string]any{
			"machineSelector": "pool in (a,b)", "replicas": 3, "extraArgs": []any{"--zap-log-level=debug"},
			"image": map[string]any{"repository": "registry.example.com/ms", "tag": "v9.9.9"},
		}, func(t *testing.T, objs []*unstructured.Unstructured) {
			want := append(append([]string{}, defaultArgs...), "--machine-selector=pool in (a,b)", "--zap-log-level=debug")
			if got := managerArgs(t, objs); !reflect.DeepEqual(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
			d := render.Find(objs, "Deployment", "machinestatus-manager")
			// Decoded as JSON is, a number is a float64.
			if n := d.Object["spec"].(map[string]any)["replicas"]; n != float64(3) {
				t.Errorf("replicas %v, want 3", n)
			}
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			if img := containers[0].(map[string]any)["image"]; img != "registry.example.com/ms:v9.9.9" {
				t.Errorf("image %v, want registry.example.com/ms:v9.9.9", img)
			}
		}},
		{"both Machine APIs", map[string]any{"machineAPIs": []any{"machinestatus.io", "cluster.x-k8s.io"}}, func(t *testing.T, objs []*unstructured.Unstructured) {
			want := append(append([]string{}, defaultArgs...), "--machine-apis=machinestatus.io,cluster.x-k8s.io")
			if got := managerArgs(t, objs); !reflect.DeepEqual(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
			for _, name := range []string{"machinestatus-manager", "machinestatus-manager-clusterapi"} {
				if render.Find(objs, "ClusterRole", name) == nil || render.Find(objs, "ClusterRoleBinding", name) == nil {
					t.Errorf("no ClusterRole and ClusterRoleBinding %s: %s", name, render.Kinds(objs))
				}
			}
			if render.Find(objs, "CustomResourceDefinition", "machines.machinestatus.io") == nil {
				t.Errorf("no CRD: %s", render.Kinds(objs))
			}
		}},
		{"crd.enable false", map[string]any{"crd": map[string]any{"enable": false}}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if render.Find(objs, "CustomResourceDefinition", "machines.machinestatus.io") != nil {
				t.Error("the CRD is rendered with crd.enable false")
			}
		}},
		{"metrics.enable false", map[string]any{"metrics": map[string]any{"enable": false}}, func(t *testing.T, objs []*unstructured.Unstructured) {
			want := []string{"--leader-elect", "--metrics-bind-address=0", "--health-probe-bind-address=:8081"}
			if got := managerArgs(t, objs); !reflect.DeepEqual(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
			if render.Find(objs, "Service", "machinestatus-manager-metrics") != nil {
				t.Error("the metrics Service is rendered with metrics.enable false")
			}
		}},
		{"resources and security contexts", map[string]any{
			"resources":          map[string]any{"limits": map[string]any{"memory": "1Gi"}},
			"securityContext":    map[string]any{"readOnlyRootFilesystem": true},
			"podSecurityContext": map[string]any{"runAsNonRoot": true, "runAsUser": 1000},
		}, func(t *testing.T, objs []*unstructured.Unstructured) {
			d := render.Find(objs, "Deployment", "machinestatus-manager")
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			c := containers[0].(map[string]any)
			// Helm merges values into the defaults: requests and the other fields stay.
			if got := c["resources"]; !reflect.DeepEqual(got, map[string]any{
				"limits":   map[string]any{"cpu": "500m", "memory": "1Gi"},
				"requests": map[string]any{"cpu": "50m", "memory": "64Mi"},
			}) {
				t.Errorf("resources %v", got)
			}
			pod, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "securityContext")
			if pod["runAsUser"] != float64(1000) {
				t.Errorf("pod securityContext %v, want runAsUser 1000", pod)
			}
		}},
		{"ServiceMonitor and Prometheus's access", map[string]any{"monitoring": map[string]any{"serviceMonitor": map[string]any{
			"enabled": true, "interval": "30s", "labels": map[string]any{"release": "prom"},
			"prometheusServiceAccount": map[string]any{"name": "prometheus-k8s", "namespace": "monitoring"},
		}}}, func(t *testing.T, objs []*unstructured.Unstructured) {
			sm := render.Find(objs, "ServiceMonitor", "machinestatus-manager-metrics")
			if sm == nil {
				t.Fatalf("no ServiceMonitor: %s", render.Kinds(objs))
			}
			if sm.GetNamespace() != releaseNamespace || sm.GetLabels()["release"] != "prom" {
				t.Errorf("ServiceMonitor namespace %q labels %v", sm.GetNamespace(), sm.GetLabels())
			}
			svc := render.WithoutHelmMetadata(render.Find(objs, "Service", "machinestatus-manager-metrics"))
			wantSpec := map[string]any{
				"selector": map[string]any{"matchLabels": toAnyMap(svc.GetLabels())},
				"endpoints": []any{map[string]any{
					"port": "https", "scheme": "https", "path": "/metrics", "interval": "30s",
					"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
					"tlsConfig":       map[string]any{"insecureSkipVerify": true},
				}},
			}
			if d := cmp.Diff(wantSpec, sm.Object["spec"]); d != "" {
				t.Errorf("ServiceMonitor spec (-want +got):\n%s", d)
			}
			b := render.Find(objs, "ClusterRoleBinding", "machinestatus-metrics-reader")
			if b == nil {
				t.Fatalf("no ClusterRoleBinding of metrics-reader: %s", render.Kinds(objs))
			}
			wantBinding := map[string]any{
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "machinestatus-metrics-reader"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}},
			}
			if d := cmp.Diff(wantBinding, map[string]any{"roleRef": b.Object["roleRef"], "subjects": b.Object["subjects"]}); d != "" {
				t.Errorf("metrics-reader binding (-want +got):\n%s", d)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := render.Template(c, tc.vals, releaseNamespace)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			tc.check(t, objs)
		})
	}
}

// TestPrometheusRule: the chart's PrometheusRule holds the groups of config/prometheus's rule
// file as they are (alert templates such as {{ $labels.name }} untouched by Helm).
func TestPrometheusRule(t *testing.T) {
	vals := map[string]any{"monitoring": map[string]any{"prometheusRule": map[string]any{"enabled": true}}}
	objs, err := render.Template(loadChart(t), vals, releaseNamespace)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	r := render.Find(objs, "PrometheusRule", "machinestatus")
	if r == nil {
		t.Fatalf("no PrometheusRule: %s", render.Kinds(objs))
	}
	b, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "rules", "machinestatus.rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(file["groups"], r.Object["spec"].(map[string]any)["groups"]); d != "" {
		t.Errorf("PrometheusRule groups (-rule file +chart):\n%s", d)
	}
	if _, err := render.Template(loadChart(t), map[string]any{"metrics": map[string]any{"enable": false},
		"monitoring": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}}, releaseNamespace); err == nil ||
		!strings.Contains(err.Error(), "monitoring.serviceMonitor.enabled needs metrics.enable") {
		t.Errorf("a ServiceMonitor without metrics: got %v, want the chart's failure", err)
	}
}

func toAnyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// releaseNamespace is where the chart is rendered: config/'s namespace, so that the objects
// compare with kustomize's as they are.
const releaseNamespace = "machinestatus-system"

// root is the repository; kubectl its bin/k8s/kubectl.
var root, kubectl string

func TestMain(m *testing.M) {
	var err error
	if root, err = render.Root(); err == nil {
		kubectl, err = render.Kubectl(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// loadChart loads dist/chart.
func loadChart(t *testing.T) *chartv2.Chart {
	t.Helper()
	c, err := render.LoadChart(root)
	if err != nil {
		t.Fatalf("cannot load dist/chart: %v", err)
	}
	return c
}

// kustomize renders config/ dir with image as the manager's.
func kustomize(t *testing.T, dir, image string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := render.Kustomize(root, kubectl, dir, image)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// managerArgs returns the manager's args of the rendered Deployment.
func managerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	args, err := render.ManagerArgs(objs)
	if err != nil {
		t.Fatal(err)
	}
	return args
}
