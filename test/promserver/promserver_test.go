//go:build promserver

package promserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// rulesFile is the rule file config/prometheus ships.
const rulesFile = "config/prometheus/rules/machinestatus.rules.yaml"

// TestPrometheusScrapesManager starts the fleet (control plane, kwok, bin/manager with
// config/default's flags and its default self-signed certificate) and bin/prometheus with a
// scrape config like the ServiceMonitor of config/prometheus (HTTPS, a metrics-reader
// ServiceAccount's token from a file, insecure_skip_verify, honor_labels) and its rule file.
// Through Prometheus's HTTP API it checks that the target is up, that machinestatus_machines
// arrives with the manager's labels, and that every rule group loads and evaluates without
// error, MachinestatusAPINotReconciled inactive while the manager leads. Then it plays the demo's
// Failed Machine (config/samples' worker-0, its Node NotReady until its health check fails it)
// and waits for Prometheus's /api/v1/alerts to list MachineFailed firing for it, with the
// shipped thresholds.
func TestPrometheusScrapesManager(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	prometheusBin, err := repo.Binary(root, "PROMETHEUS_BIN", "bin/prometheus")
	if err != nil {
		t.Fatal(err)
	}
	metricsPort, err := host.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir: t.TempDir(),
		Manager:  "bin/manager",
		ManagerArgs: []string{
			fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort),
			"--health-probe-bind-address=0",
			"--leader-elect", "--leader-election-namespace=machinestatus-system",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	ctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	go f.Watch(ctx, cancelCause)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(f.LogHint())
		}
	})
	if err := f.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "machinestatus-system"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	token, err := f.ScraperToken(ctx, "prometheus-k8s", true)
	if err != nil {
		t.Fatal(err)
	}

	api := startPrometheus(t, prometheusBin, filepath.Join(root, rulesFile), fmt.Sprintf("127.0.0.1:%d", metricsPort), token)

	harness.Wait(t, 3*time.Minute, "Prometheus to scrape the manager", func(ctx context.Context) (bool, string) {
		var targets struct {
			ActiveTargets []struct {
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"activeTargets"`
		}
		if err := api.get(ctx, "/api/v1/targets", nil, &targets); err != nil {
			return false, err.Error()
		}
		if len(targets.ActiveTargets) != 1 || targets.ActiveTargets[0].Health != "up" {
			return false, fmt.Sprintf("targets %+v", targets.ActiveTargets)
		}
		return true, ""
	})
	harness.Wait(t, 2*time.Minute, "machinestatus_machines through Prometheus's API", func(ctx context.Context) (bool, string) {
		var res struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
			} `json:"result"`
		}
		q := `machinestatus_machines{api_group="machinestatus.io", phase="Running", job="machinestatus-manager-metrics", namespace="machinestatus-system"}`
		if err := api.get(ctx, "/api/v1/query", url.Values{"query": {q}}, &res); err != nil {
			return false, err.Error()
		}
		return len(res.Result) == 1, fmt.Sprintf("%s: %+v", q, res.Result)
	})
	harness.Wait(t, 2*time.Minute, "the rule groups to be evaluated", func(ctx context.Context) (bool, string) {
		var res struct {
			Groups []struct {
				Name           string `json:"name"`
				LastEvaluation string `json:"lastEvaluation"`
				Rules          []struct {
					Name      string `json:"name"`
					Type      string `json:"type"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
					State     string `json:"state"`
				} `json:"rules"`
			} `json:"groups"`
		}
		if err := api.get(ctx, "/api/v1/rules", nil, &res); err != nil {
			return false, err.Error()
		}
		if len(res.Groups) != 3 {
			return false, fmt.Sprintf("%d rule groups loaded, want 3", len(res.Groups))
		}
		alerts := 0
		for _, g := range res.Groups {
			for _, r := range g.Rules {
				if r.Health != "ok" {
					return false, fmt.Sprintf("group %s rule %s: health %q %s", g.Name, r.Name, r.Health, r.LastError)
				}
				if r.Type == "alerting" {
					alerts++
				}
				if r.Name == "MachinestatusAPINotReconciled" && r.State != "inactive" {
					return false, fmt.Sprintf("%s is %s while the manager leads", r.Name, r.State)
				}
			}
		}
		return alerts == 5, fmt.Sprintf("%d alerting rules, want 5", alerts)
	})

	// The demo's Failed Machine: worker-0 of config/samples (a 15 s health check) Running, then
	// its Node NotReady with kwok until the health check fails it.
	kubectl := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, f.KubectlBin, append([]string{"--kubeconfig", f.Kubeconfig}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	kubectl("apply", "-f", "config/samples/machinestatus_v1alpha1_machine.yaml")
	kubectl("apply", "-f", "config/samples/infrastructure_v1alpha1_simmachine.yaml")
	f.WaitPhase(t, "default", "worker-0", v1alpha1.MachinePhaseRunning)
	kubectl("label", "node", "worker-0", kwok.NotReadyLabel+"=true")
	f.WaitPhase(t, "default", "worker-0", v1alpha1.MachinePhaseFailed)
	harness.Wait(t, 2*time.Minute, "MachineFailed firing for default/worker-0 through Prometheus's API", func(ctx context.Context) (bool, string) {
		var res struct {
			Alerts []struct {
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
				State       string            `json:"state"`
			} `json:"alerts"`
		}
		if err := api.get(ctx, "/api/v1/alerts", nil, &res); err != nil {
			return false, err.Error()
		}
		want := map[string]string{"alertname": "MachineFailed", "severity": "warning", "api_group": "machinestatus.io",
			"namespace": "default", "name": "worker-0", "phase": "Failed", "operation_type": "HealthCheck", "operation_state": "Failed"}
		for _, a := range res.Alerts {
			if a.State == "firing" && maps.Equal(a.Labels, want) {
				if s := a.Annotations["summary"]; s != "Machine default/worker-0: HealthCheck Failed" {
					t.Errorf("MachineFailed's summary %q, want %q", s, "Machine default/worker-0: HealthCheck Failed")
				}
				return true, ""
			}
		}
		return false, fmt.Sprintf("alerts %+v", res.Alerts)
	})
}

// prometheusAPI is Prometheus's HTTP API.
type prometheusAPI struct{ base string }

// get GETs path with query and decodes the data of a "success" answer into data.
func (a prometheusAPI) get(ctx context.Context, path string, query url.Values, data any) error {
	u := a.base + path
	if query != nil {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var answer struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		return fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	if answer.Status != "success" {
		return fmt.Errorf("GET %s: %s", u, answer.Error)
	}
	return json.Unmarshal(answer.Data, data)
}

// startPrometheus writes a configuration scraping target every second as config/prometheus's
// ServiceMonitor does (the token in a file, as a projected ServiceAccount token is), loading
// rules, and starts bin/prometheus with it; it is stopped when the test ends.
func startPrometheus(t *testing.T, bin, rules, target, token string) prometheusAPI {
	t.Helper()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
- %q
scrape_configs:
- job_name: machinestatus-manager-metrics
  scheme: https
  metrics_path: /metrics
  honor_labels: true
  authorization:
    credentials_file: %q
  tls_config:
    insecure_skip_verify: true
  static_configs:
  - targets: [%q]
    labels:
      namespace: machinestatus-system
      pod: machinestatus-manager
`, rules, tokenFile, target)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := host.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proc.Start(proc.Options{
		Name: "prometheus",
		Args: []string{bin, "--config.file=" + configFile, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port)},
		LogPath: filepath.Join(dir, "prometheus.log"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("last lines of %s:\n%s", p.LogPath, p.Tail(20))
		}
	})
	api := prometheusAPI{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	harness.Wait(t, time.Minute, "Prometheus to be ready", func(ctx context.Context) (bool, string) {
		select {
		case <-p.Done():
			t.Fatalf("prometheus exited: %v\n%s", p.ExitError(), p.Tail(20))
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, api.base+"/-/ready", nil)
		if err != nil {
			return false, err.Error()
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return api
}
