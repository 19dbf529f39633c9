package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// prometheusOperator is the Prometheus Operator release whose CRDs (its module's
// example/prometheus-operator-crd, through the Go module proxy) the monitoring component is
// checked against; no module of this repository requires it.
const (
	prometheusOperatorModule  = "github.com/prometheus-operator/prometheus-operator"
	prometheusOperatorVersion = "v0.85.0"
	monitoringGroup           = "monitoring.coreos.com"
)

// TestMonitoringComponent renders config/samples/monitoring (config/default with the
// config/prometheus component) and checks what the component adds: a ServiceMonitor of the
// metrics Service scraping HTTPS with Prometheus's token, the metrics-reader ClusterRole bound to
// Prometheus's ServiceAccount, the PrometheusRule holding the rule file's groups with the
// sample's threshold patch applied, the dashboard ConfigMap for Grafana's sidecar. Then it
// installs the Prometheus Operator's CRDs and applies the whole overlay with kubectl
// (server-side, strict field validation), so every object is valid against their schemas.
// config/default and config/clusterapi render no monitoring object: they apply where the
// Operator is absent (TestRenderedManifestsApply).
func TestMonitoringComponent(t *testing.T) {
	for _, dir := range []string{"config/default", "config/clusterapi"} {
		for _, o := range renderDir(t, dir) {
			if o.GroupVersionKind().Group == monitoringGroup {
				t.Errorf("%s renders %s: the Prometheus Operator's CRDs would be needed", dir, describe(o))
			}
		}
	}
	objs := renderDir(t, "config/samples/monitoring")
	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byKind[o.GetKind()+" "+o.GetName()] = o
	}
	for _, o := range render(t) {
		if byKind[o.GetKind()+" "+o.GetName()] == nil {
			t.Errorf("config/samples/monitoring lacks %s of config/default", describe(o))
		}
	}
	get := func(kind, name string) *unstructured.Unstructured {
		t.Helper()
		o := byKind[kind+" "+name]
		if o == nil {
			t.Fatalf("config/samples/monitoring renders no %s %s", kind, name)
		}
		return o
	}

	t.Run("ServiceMonitor", func(t *testing.T) {
		sm := get("ServiceMonitor", "machinestatus-manager")
		svc := get("Service", "machinestatus-manager-metrics")
		if sm.GetNamespace() != svc.GetNamespace() {
			t.Errorf("ServiceMonitor in %s, the metrics Service in %s", sm.GetNamespace(), svc.GetNamespace())
		}
		selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		for k, v := range selector {
			if svc.GetLabels()[k] != v {
				t.Errorf("ServiceMonitor selects %s=%s; the metrics Service's labels are %v", k, v, svc.GetLabels())
			}
		}
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		want := []any{map[string]any{
			"port": "https", "scheme": "https", "path": "/metrics", "honorLabels": true,
			"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
			"tlsConfig":       map[string]any{"insecureSkipVerify": true},
		}}
		if d := cmp.Diff(want, endpoints); d != "" {
			t.Errorf("ServiceMonitor endpoints (-want +got):\n%s", d)
		}
	})

	t.Run("metrics-reader bound to Prometheus", func(t *testing.T) {
		b := &rbacv1.ClusterRoleBinding{}
		fromUnstructured(t, get("ClusterRoleBinding", "machinestatus-metrics-reader-prometheus"), b)
		get("ClusterRole", b.RoleRef.Name)
		want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"}}
		if b.RoleRef.Name != "machinestatus-metrics-reader" || !cmp.Equal(want, b.Subjects) {
			t.Errorf("binding of %s to %v; want machinestatus-metrics-reader to %v", b.RoleRef.Name, b.Subjects, want)
		}
	})

	t.Run("PrometheusRule", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join(root, "config/prometheus/rules/machinestatus.rules.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Groups []any `json:"groups"`
		}
		if err := yaml.Unmarshal(src, &file); err != nil {
			t.Fatal(err)
		}
		// The sample's patch: Create's stuck threshold 3600 s.
		first := file.Groups[0].(map[string]any)["rules"].([]any)[0].(map[string]any)
		if first["record"] != "machinestatus:operation_stuck_threshold_seconds" || first["labels"].(map[string]any)["operation_type"] != "Create" {
			t.Fatalf("the rule file's first rule is %v, not Create's stuck threshold", first)
		}
		first["expr"] = "3600"
		got, _, _ := unstructured.NestedSlice(get("PrometheusRule", "machinestatus").Object, "spec", "groups")
		if d := cmp.Diff(file.Groups, got); d != "" {
			t.Errorf("PrometheusRule groups are not the rule file's with the sample's patch (-want +got):\n%s", d)
		}
	})

	t.Run("dashboard ConfigMap", func(t *testing.T) {
		cm := get("ConfigMap", "machinestatus-dashboard")
		dash, err := os.ReadFile(filepath.Join(root, "config/prometheus/dashboards/machinestatus.json"))
		if err != nil {
			t.Fatal(err)
		}
		data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
		if data["machinestatus.json"] != string(dash) || !json.Valid(dash) {
			t.Errorf("ConfigMap %s does not hold config/prometheus/dashboards/machinestatus.json (keys %v)", cm.GetName(), slices.Collect(maps.Keys(data)))
		}
		if cm.GetLabels()["grafana_dashboard"] != "1" || cm.GetNamespace() != "machinestatus-system" {
			t.Errorf("ConfigMap %s/%s labels %v: want grafana_dashboard=1 in machinestatus-system", cm.GetNamespace(), cm.GetName(), cm.GetLabels())
		}
	})

	t.Run("applied with the Prometheus Operator's CRDs", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		crds := prometheusOperatorCRDs(t, ctx)
		kubectlRun(t, ctx, nil, append([]string{"apply", "--server-side", "--field-manager=" + testFieldOwner}, fileArgs(crds)...)...)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			kubectlRun(t, ctx, nil, append([]string{"delete", "--ignore-not-found", "--wait"}, fileArgs(crds)...)...)
		})
		kubectlRun(t, ctx, nil, "wait", "--for=condition=Established", "--timeout=2m",
			"crd/servicemonitors."+monitoringGroup, "crd/prometheusrules."+monitoringGroup)

		var stream bytes.Buffer
		for _, o := range objs {
			b, err := yaml.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			stream.WriteString("---\n")
			stream.Write(b)
		}
		t.Cleanup(func() { undeployed(t, objs) })
		kubectlRun(t, ctx, stream.Bytes(), "apply", "--server-side", "--field-manager="+testFieldOwner, "--validate=strict", "-f", "-")
		for _, o := range objs {
			if o.GroupVersionKind().Group != monitoringGroup {
				continue
			}
			got, err := live(ctx, o)
			if err != nil || got == nil {
				t.Fatalf("%s not stored (err %v)", describe(o), err)
			}
			if d := contains(o.Object, got.Object, describe(o)); d != "" {
				t.Errorf("stored %s differs from the rendered one: %s", describe(o), d)
			}
		}

		// Strict validation refuses a field the schema lacks, so the apply above proves the
		// objects valid rather than pruned.
		bad := get("ServiceMonitor", "machinestatus-manager").DeepCopy()
		bad.SetName("misspelt")
		_ = unstructured.SetNestedField(bad.Object, true, "spec", "honorLabel")
		b, err := yaml.Marshal(bad.Object)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := kubectlOutput(t, ctx, bytes.NewReader(b), "apply", "--server-side", "--validate=strict", "--dry-run=server", "-f", "-"); err == nil || !strings.Contains(out, "honorLabel") {
			t.Errorf("a ServiceMonitor with spec.honorLabel was not refused by strict validation (err %v): %s", err, out)
		}
	})
}

// prometheusOperatorCRDs returns the paths of the ServiceMonitor and PrometheusRule CRDs of
// prometheusOperatorVersion, downloading its module through the Go module proxy when the module
// cache lacks it.
func prometheusOperatorCRDs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", prometheusOperatorModule+"@"+prometheusOperatorVersion)
	cmd.Dir = root
	out, err := cmd.Output()
	var module struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &module); err != nil || jerr != nil || module.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v %v %s", prometheusOperatorModule, prometheusOperatorVersion, err, jerr, module.Error)
	}
	var paths []string
	for _, kind := range []string{"servicemonitors", "prometheusrules"} {
		paths = append(paths, filepath.Join(module.Dir, "example", "prometheus-operator-crd", monitoringGroup+"_"+kind+".yaml"))
	}
	return paths
}

func fileArgs(paths []string) []string {
	var args []string
	for _, p := range paths {
		args = append(args, "-f", p)
	}
	return args
}

// kubectlOutput runs kubectl against the test API server, reading stdin (may be nil), and
// returns its combined output.
func kubectlOutput(t *testing.T, ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, kubectl, args...)
	cmd.Env = append(environWithout("KUBECONFIG"), "KUBECONFIG="+env.Kubeconfig, "KUBECACHEDIR="+t.TempDir())
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// kubectlRun runs kubectl (stdin may be nil) and fails the test when it fails.
func kubectlRun(t *testing.T, ctx context.Context, stdin []byte, args ...string) {
	t.Helper()
	out, err := kubectlOutput(t, ctx, bytes.NewReader(stdin), args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("kubectl %s:\n%s", strings.Join(args, " "), out)
}
