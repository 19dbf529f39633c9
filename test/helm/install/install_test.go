package install

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/kube"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/helm/internal/render"
)

// installNamespace is the release's namespace in the install test (not config/'s: the chart
// must not depend on it).
const installNamespace = "machinestatus"

// TestInstallUpgradeRun installs the chart with Helm's SDK into the control plane, runs
// bin/manager as the chart's ServiceAccount with the chart's arguments (the control plane has no
// scheduler, so the Deployment never makes a Pod) and sees it reconcile a Machine and serve its
// metrics to the ServiceAccount the chart lets read them; then upgrades the release with a
// changed CRD and values, checks that both reached the cluster (the CRD updated in place), runs
// the upgraded arguments (a selector) and uninstalls, which keeps the CRD.
func TestInstallUpgradeRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cfg := actionConfig(t)
	vals := map[string]any{"monitoring": map[string]any{"serviceMonitor": map[string]any{
		"prometheusServiceAccount": map[string]any{"name": "prometheus", "namespace": installNamespace}}}}

	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = "machinestatus", installNamespace, true
	install.WaitStrategy, install.Timeout = kube.HookOnlyStrategy, 2*time.Minute
	rel := release(t)(install.RunWithContext(ctx, loadChart(t), vals))
	if rel.Info.Status != "deployed" || rel.Version != 1 {
		t.Fatalf("helm install: release %s revision %d, want deployed revision 1", rel.Info.Status, rel.Version)
	}
	crd := waitEstablished(t, ctx)

	// The chart's Deployment, ServiceAccount and RBAC run the manager.
	args := liveArgs(t, ctx, env, installNamespace)
	kubeconfig := serviceAccountKubeconfig(t, ctx, env, installNamespace, "machinestatus-manager")
	metricsPort := freePort(t)
	mgr := startManager(t, env, "manager-install", kubeconfig, installNamespace, args, metricsPort)
	ns := env.Namespace(t)
	env.Create(t, harness.NewMachine(ns, "worker-0"))
	m := waitStatus(t, env, ns, "worker-0")
	if m.Status.Phase != v1alpha1.MachinePhasePending {
		t.Errorf("Machine worker-0: %s, want phase Pending", harness.Describe(m))
	}
	checkMetrics(t, ctx, cs, metricsPort)
	mgr.Stop(harness.ManagerStopGrace)

	// Upgrade: a new chart version whose CRD has one more category, and new values.
	upgraded := loadChart(t)
	upgraded.Metadata.Version = "0.1.1"
	if !editTemplate(upgraded, "templates/crd/", "    - machinestatus\n", "    - machinestatus\n    - machinestatus-upgraded\n") {
		t.Fatal("cannot find the CRD's categories in the chart's CRD template")
	}
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace, upgrade.WaitStrategy, upgrade.Timeout = installNamespace, kube.HookOnlyStrategy, 2*time.Minute
	vals["replicas"], vals["machineSelector"] = 1, "pool=a"
	rel = release(t)(upgrade.RunWithContext(ctx, "machinestatus", upgraded, vals))
	if rel.Info.Status != "deployed" || rel.Version != 2 {
		t.Fatalf("helm upgrade: release %s revision %d, want deployed revision 2", rel.Info.Status, rel.Version)
	}
	after := &apiextensionsv1.CustomResourceDefinition{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), after); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(after.Spec.Names.Categories, "machinestatus-upgraded") || after.UID != crd.UID {
		t.Errorf("after helm upgrade the CRD's categories are %q (uid %s, was %s): want machinestatus-upgraded added in place",
			after.Spec.Names.Categories, after.UID, crd.UID)
	}
	d := &appsv1.Deployment{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: "machinestatus-manager"}, d); err != nil {
		t.Fatal(err)
	}
	args = d.Spec.Template.Spec.Containers[0].Args
	if *d.Spec.Replicas != 1 || !slices.Contains(args, "--machine-selector=pool=a") {
		t.Errorf("after helm upgrade the Deployment has %d replicas and args %q: want 1 and --machine-selector=pool=a", *d.Spec.Replicas, args)
	}

	// The upgraded arguments: only Machines labeled pool=a are reconciled.
	mgr = startManager(t, env, "manager-upgrade", kubeconfig, installNamespace, args, freePort(t))
	other := harness.NewMachine(ns, "worker-other")
	env.Create(t, other)
	pooled := harness.NewMachine(ns, "worker-a")
	pooled.Labels = map[string]string{"pool": "a"}
	env.Create(t, pooled)
	waitStatus(t, env, ns, "worker-a")
	if m := env.GetMachine(t, ns, "worker-other"); m.Status.Phase != "" {
		t.Errorf("Machine worker-other (no pool=a label) was reconciled: %s", harness.Describe(m))
	}
	mgr.Stop(harness.ManagerStopGrace)

	// Uninstall removes the release's objects but keeps the CRD (crd.keep), and so the Machines.
	uninstall := action.NewUninstall(cfg)
	uninstall.WaitStrategy, uninstall.Timeout = kube.HookOnlyStrategy, 2*time.Minute
	if _, err := uninstall.Run("machinestatus"); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(d), &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("after helm uninstall, the Deployment: %v, want NotFound", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), &apiextensionsv1.CustomResourceDefinition{}); err != nil {
		t.Errorf("after helm uninstall, the CRD: %v, want it kept", err)
	}
	env.GetMachine(t, ns, "worker-0")
}

// actionConfig returns Helm's action configuration for the control plane (admin kubeconfig,
// releases stored as Secrets in installNamespace, as the helm command does).
func actionConfig(t *testing.T) *action.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = ptr.To(env.Kubeconfig), ptr.To(installNamespace)
	cfg := action.NewConfiguration()
	if err := cfg.Init(flags, installNamespace, "secret"); err != nil {
		t.Fatalf("cannot initialize Helm: %v", err)
	}
	return cfg
}

// release returns a function that fails t on err and returns the release as a *release.Release.
func release(t *testing.T) func(r any, err error) *releasev1.Release {
	return func(r any, err error) *releasev1.Release {
		t.Helper()
		if err != nil {
			t.Fatalf("helm: %v", err)
		}
		rel, ok := r.(*releasev1.Release)
		if !ok {
			t.Fatalf("helm returned a %T", r)
		}
		return rel
	}
}

// editTemplate replaces old by repl in the template under dir; it reports whether it did.
func editTemplate(c *chart.Chart, dir, old, repl string) bool {
	for _, f := range c.Templates {
		if strings.HasPrefix(f.Name, dir) && strings.Contains(string(f.Data), old) {
			f.Data = []byte(strings.Replace(string(f.Data), old, repl, 1))
			return true
		}
	}
	return false
}

// waitEstablished waits until the Machine CRD is served and returns it.
func waitEstablished(t *testing.T, ctx context.Context) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	harness.Wait(t, 2*time.Minute, "the Machine CRD to be established", func(context.Context) (bool, string) {
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "machines.machinestatus.io"}, crd); err != nil {
			return false, err.Error()
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "not Established"
	})
	return crd
}

// liveArgs returns the manager container's arguments of the Deployment machinestatus-manager of
// namespace ns in e, checking they are config/'s defaults.
func liveArgs(t *testing.T, ctx context.Context, e *harness.Env, ns string) []string {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "machinestatus-manager"}, d); err != nil {
		t.Fatalf("the release's Deployment: %v", err)
	}
	want := []string{"--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"}
	if args := d.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args, want) {
		t.Fatalf("the release's Deployment runs the manager with %q, want %q", args, want)
	}
	return d.Spec.Template.Spec.Containers[0].Args
}

// serviceAccountKubeconfig writes a kubeconfig for e that authenticates as ServiceAccount ns/name
// with a token from the TokenRequest API, as a Pod's projected token does.
func serviceAccountKubeconfig(t *testing.T, ctx context.Context, e *harness.Env, ns, name string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cannot get a token of ServiceAccount %s: %v", name, err)
	}
	c := clientcmdapi.NewConfig()
	c.Clusters["test"] = &clientcmdapi.Cluster{Server: e.Config.Host, CertificateAuthorityData: e.Config.CAData}
	c.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	c.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	c.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*c, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startManager runs bin/manager against e with the Deployment's args, then the flags a process
// outside the cluster needs (later flags win): the Lease in the Deployment's namespace ns, which
// in a Pod is the default, and free local ports for metrics and probes.
func startManager(t *testing.T, e *harness.Env, name, kubeconfig, ns string, args []string, metricsPort int) interface{ Stop(time.Duration) } {
	t.Helper()
	args = append(slices.Clone(args),
		"--leader-election-namespace="+ns,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", freePort(t)))
	p, err := e.StartManager(name, kubeconfig, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(harness.ManagerStopGrace)
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(e.Dir, name+".log")); err == nil {
				t.Logf("%s's log:\n%s", name, b)
			}
		}
	})
	return p
}

// waitStatus waits until Machine ns/name of e has a phase and returns it.
func waitStatus(t *testing.T, e *harness.Env, ns, name string) *v1alpha1.Machine {
	t.Helper()
	var m *v1alpha1.Machine
	harness.Wait(t, harness.MachineTimeout, "Machine "+name+" to get a phase", func(ctx context.Context) (bool, string) {
		m = &v1alpha1.Machine{}
		if err := e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return false, err.Error()
		}
		return m.Status.Phase != "", harness.Describe(m)
	})
	return m
}

// checkMetrics scrapes the manager's metrics as ServiceAccount prometheus, which the chart
// binds to the metrics-reader ClusterRole, and finds the build-info gauge stamped with
// bin/manager's version; a token of another ServiceAccount is refused.
func checkMetrics(t *testing.T, ctx context.Context, cs kubernetes.Interface, port int) {
	t.Helper()
	for _, sa := range []string{"prometheus", "someone-else"} {
		if _, err := cs.CoreV1().ServiceAccounts(installNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(env.Root, "bin", "manager"), "version").Output()
	if err != nil {
		t.Fatalf("bin/manager version: %v", err)
	}
	version := strings.Fields(string(out))[1]
	want := regexp.MustCompile(`(?m)^machinestatus_build_info\{goversion="go[^"]+",revision="[^"]+",version="` + regexp.QuoteMeta(version) + `"\} 1$`)
	for sa, status := range map[string]int{"prometheus": http.StatusOK, "someone-else": http.StatusForbidden} {
		tok, err := cs.CoreV1().ServiceAccounts(installNamespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var body string
		harness.Wait(t, time.Minute, "the metrics endpoint to answer "+sa, func(ctx context.Context) (bool, string) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
			req.Header.Set("Authorization", "Bearer "+tok.Status.Token)
			c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			resp, err := c.Do(req)
			if err != nil {
				return false, err.Error()
			}
			defer func() { _ = resp.Body.Close() }()
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
			return resp.StatusCode == status, fmt.Sprintf("status %d, want %d", resp.StatusCode, status)
		})
		if sa == "prometheus" && !want.MatchString(body) {
			t.Errorf("the metrics of bin/manager %s have no line matching %s", version, want)
		}
	}
}

// freePort returns a TCP port free on 127.0.0.1 now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// loadChart loads dist/chart.
func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := render.LoadChart(env.Root)
	if err != nil {
		t.Fatalf("cannot load dist/chart: %v", err)
	}
	return c
}
