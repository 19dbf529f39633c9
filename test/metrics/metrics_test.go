package metrics

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/docblock"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

const (
	machinesMetric    = "machinestatus_machines"
	transitionsMetric = "machinestatus_machine_phase_transitions_total"
	resultsMetric     = "machinestatus_machine_operation_results_total"
	// leaseNamespace holds the manager's leader election Lease.
	leaseNamespace = "machinestatus-system"
	// leaseName is the manager's default leader election ID.
	leaseName = "machinestatus.machinestatus.io"
)

// TestMetricsEndpoint runs bin/manager with config/default's flags (leader election, metrics
// over HTTPS with authentication, the default) and a mounted serving certificate, as the user
// config/rbac's roles bind. It checks who may scrape (checkAccess: granted 200, no token 401, no
// grant 403), then walks Machines through phases (Pending on a missing infrastructure object,
// then Running once it exists; Running; Standby; one deleted), scrapes /metrics with a
// metrics-reader ServiceAccount's token, verifying the certificate, and checks:
//   - machinestatus_machines{phase} equals, for every phase, the Machines in that phase on the
//     API server (a deleted Machine leaves the gauge);
//   - machinestatus_machine_phase_transitions_total counts one first status per Machine and,
//     per phase, entries minus exits equal the gauge (plus the deleted Machine's last phase);
//   - machinestatus_machine_operation_results_total{type,state} equals the Machines whose
//     lastOperation is that result;
//   - each has HELP text, its type and only its labels; controller-runtime's reconcile, workqueue
//     and leader election metrics for the machine controller are there;
//   - every metric docs/operating.md lists is served.
//
// It also checks the health port answers /healthz and /readyz, which the Deployment probes.
func TestMetricsEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, kwok and the manager")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	metricsPort, err := host.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	probePort, err := host.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	certDir, roots := servingCert(t)
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir: t.TempDir(),
		Manager:  "bin/manager",
		// The flags of config/default's Deployment (the metrics endpoint secure by default), on
		// local ports, with a mounted certificate; the manager runs as config/rbac's roles allow.
		ManagerArgs: []string{
			fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort),
			"--metrics-cert-path=" + certDir,
			fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probePort),
			"--leader-elect", "--leader-election-namespace=" + leaseNamespace,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	ctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	go f.Watch(ctx, cancelCause)
	c := f.Client
	// The manager retries until it can hold its Lease here.
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(f.LogHint())
		}
	})
	token, err := f.ScraperToken(ctx, "prometheus", true)
	if err != nil {
		t.Fatal(err)
	}
	metricsURL := &endpoint{
		url:    fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort),
		client: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}},
		token:  token,
	}

	for _, path := range []string{"/healthz", "/readyz"} {
		url := fmt.Sprintf("http://127.0.0.1:%d%s", probePort, path)
		harness.Wait(t, 2*time.Minute, "the manager's "+path, func(context.Context) (bool, string) {
			_, err := get(ctx, url)
			return err == nil, fmt.Sprint(err)
		})
	}
	harness.Wait(t, 2*time.Minute, "the manager to lead", func(context.Context) (bool, string) {
		fams, err := scrape(ctx, metricsURL)
		if err != nil {
			return false, err.Error()
		}
		v := fams.Sum("leader_election_master_status", map[string]string{"name": leaseName})
		return v == 1, fmt.Sprintf("leader_election_master_status{name=%q} = %v", leaseName, v)
	})
	checkAccess(t, ctx, f, metricsURL)
	fams, err := scrape(ctx, metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v1alpha1.MachinePhases() {
		if got := fams.Sum(machinesMetric, map[string]string{"phase": string(p)}); got != 0 || !hasSample(fams, machinesMetric, "phase", string(p)) {
			t.Errorf("before any Machine: %s{phase=%q} = %v (present %v), want a 0 sample", machinesMetric, p, got, hasSample(fams, machinesMetric, "phase", string(p)))
		}
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	machines := newMachines(c, ns.Name)

	// Two Machines whose infrastructure object does not exist yet: Pending.
	machines.create(t, ctx, "pending", false, false)
	machines.create(t, ctx, "late", false, false)
	waitConsistent(t, ctx, machines, metricsURL, map[string]v1alpha1.MachinePhase{
		"pending": v1alpha1.MachinePhasePending, "late": v1alpha1.MachinePhasePending,
	})

	// One of them gets its infrastructure object; three more Machines start with theirs.
	machines.createSim(t, ctx, "late")
	machines.create(t, ctx, "running", true, false)
	machines.create(t, ctx, "doomed", true, false)
	machines.create(t, ctx, "parked", true, true)
	waitConsistent(t, ctx, machines, metricsURL, map[string]v1alpha1.MachinePhase{
		"pending": v1alpha1.MachinePhasePending, "late": v1alpha1.MachinePhaseRunning,
		"running": v1alpha1.MachinePhaseRunning, "doomed": v1alpha1.MachinePhaseRunning,
		"parked": v1alpha1.MachinePhaseStandby,
	})

	// A deleted Machine leaves the gauge; its counts stay.
	doomed := machines.get(t, ctx, "doomed")
	if err := c.Delete(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	waitConsistent(t, ctx, machines, metricsURL, map[string]v1alpha1.MachinePhase{
		"pending": v1alpha1.MachinePhasePending, "late": v1alpha1.MachinePhaseRunning,
		"running": v1alpha1.MachinePhaseRunning, "parked": v1alpha1.MachinePhaseStandby,
	})

	fams, err = scrape(ctx, metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	live := machines.list(t, ctx)
	t.Logf("scraped:\n%s", ours(fams))
	checkFamilies(t, fams)

	// Transitions: one first status per Machine ever created; per phase, what entered minus
	// what left is what is there now, plus the deleted Machine in its last phase.
	created := float64(len(machines.names))
	if got := fams.Sum(transitionsMetric, map[string]string{"from": "none"}); got != created {
		t.Errorf("%s{from=\"none\"} sums to %v, want %v (one first status per Machine)", transitionsMetric, got, created)
	}
	if got := fams.Sum(transitionsMetric, map[string]string{"from": "none", "to": "Pending"}); got < 2 {
		t.Errorf("%s{from=\"none\",to=\"Pending\"} = %v, want at least 2 (pending, late)", transitionsMetric, got)
	}
	if got := fams.Sum(transitionsMetric, map[string]string{"from": "Pending"}); got < 1 {
		t.Errorf("%s{from=\"Pending\"} sums to %v, want at least 1 (late)", transitionsMetric, got)
	}
	if got := fams.Sum(transitionsMetric, map[string]string{"to": "Running"}); got < 3 {
		t.Errorf("%s{to=\"Running\"} sums to %v, want at least 3 (late, running, doomed)", transitionsMetric, got)
	}
	for _, p := range v1alpha1.MachinePhases() {
		in := fams.Sum(transitionsMetric, map[string]string{"to": string(p)})
		out := fams.Sum(transitionsMetric, map[string]string{"from": string(p)})
		want := float64(countPhase(live, p))
		if p == doomed.Status.Phase {
			want++
		}
		if in-out != want {
			t.Errorf("phase %s: %v transitions in, %v out, want a difference of %v (Machines there now, or the deleted one's last phase)", p, in, out, want)
		}
	}

	// Operation results: each Machine's results so far are its current lastOperation; the
	// deleted one's stays counted, and its deletion ended Successful when it was gone.
	results := map[[2]string]float64{{"Delete", "Successful"}: 1}
	for _, m := range append(live, *doomed) {
		if op := m.Status.LastOperation; op != nil && op.State != v1alpha1.MachineOperationStateProcessing {
			results[[2]string{string(op.Type), string(op.State)}]++
		}
	}
	if results[[2]string{"Create", "Successful"}] < 3 {
		t.Errorf("only %v Machines with lastOperation Create Successful, want at least 3: %v", results[[2]string{"Create", "Successful"}], results)
	}
	for _, typ := range v1alpha1.MachineOperationTypes() {
		for _, state := range []v1alpha1.MachineOperationState{v1alpha1.MachineOperationStateSuccessful, v1alpha1.MachineOperationStateFailed} {
			got := fams.Sum(resultsMetric, map[string]string{"type": string(typ), "state": string(state)})
			if want := results[[2]string{string(typ), string(state)}]; got != want {
				t.Errorf("%s{type=%q,state=%q} = %v, want %v", resultsMetric, typ, state, got, want)
			}
		}
	}

	// controller-runtime's metrics of the machine controller.
	if got := fams.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "machine", "result": "success"}); got < created {
		t.Errorf("controller_runtime_reconcile_total{controller=\"machine\",result=\"success\"} = %v, want at least %v", got, created)
	}
	if h := histogram(fams, "controller_runtime_reconcile_time_seconds", "machine"); h == nil || h.GetSampleCount() == 0 {
		t.Errorf("controller_runtime_reconcile_time_seconds{controller=\"machine\"} has no observation: %v", h)
	}
	if got := fams.Sum("workqueue_adds_total", map[string]string{"name": "machine"}); got < created {
		t.Errorf("workqueue_adds_total{name=\"machine\"} = %v, want at least %v", got, created)
	}

	// docs/operating.md's table of our metrics is this scrape's; it lists only metrics the
	// endpoint serves.
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	docblock.Sync(t, filepath.Join(root, "docs", "operating.md"), "metrics", metricsTable(fams), "METRICS_WRITE_DOCS", nil)
	documented, err := documentedMetrics()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range documented {
		if _, ok := fams[name]; !ok {
			t.Errorf("docs/operating.md lists %s, which the manager does not serve", name)
		}
	}
	for name := range fams {
		if strings.HasPrefix(name, "machinestatus_") && !slices.Contains(documented, name) {
			t.Errorf("the manager serves %s, which docs/operating.md does not list", name)
		}
	}
	if t.Failed() {
		t.Logf("machines: %v\n%s", phases(live), f.LogHint())
	}
}

// checkFamilies checks our three families: HELP text, type, label names and label values.
func checkFamilies(t *testing.T, fams metricstest.Families) {
	t.Helper()
	phases := []string{}
	for _, p := range v1alpha1.MachinePhases() {
		phases = append(phases, string(p))
	}
	apiGroup := []string{v1alpha1.GroupVersion.Group}
	types := []string{}
	for _, op := range v1alpha1.MachineOperationTypes() {
		types = append(types, string(op))
	}
	for _, want := range []struct {
		name   string
		typ    dto.MetricType
		labels map[string][]string // label name → allowed values
	}{
		// This manager serves machinestatus.io only (the default --machine-apis).
		{machinesMetric, dto.MetricType_GAUGE, map[string][]string{"api_group": apiGroup, "phase": phases}},
		{transitionsMetric, dto.MetricType_COUNTER, map[string][]string{"api_group": apiGroup, "from": append([]string{"none"}, phases...), "to": phases}},
		{resultsMetric, dto.MetricType_COUNTER, map[string][]string{"api_group": apiGroup, "type": types, "state": {"Successful", "Failed"}}},
	} {
		fam, ok := fams[want.name]
		if !ok {
			t.Errorf("%s is not served", want.name)
			continue
		}
		if strings.TrimSpace(fam.GetHelp()) == "" {
			t.Errorf("%s has no HELP text", want.name)
		}
		if fam.GetType() != want.typ {
			t.Errorf("%s has type %v, want %v", want.name, fam.GetType(), want.typ)
		}
		if counter := want.typ == dto.MetricType_COUNTER; counter != strings.HasSuffix(want.name, "_total") {
			t.Errorf("%s: a counter's name, and only a counter's, ends in _total", want.name)
		}
		names := slices.Sorted(maps.Keys(want.labels))
		for _, m := range fam.GetMetric() {
			if got := labelNames(m); !slices.Equal(got, names) {
				t.Errorf("%s sample has labels %v, want %v", want.name, got, names)
				continue
			}
			for k, v := range metricstest.Labels(m) {
				if !slices.Contains(want.labels[k], v) {
					t.Errorf("%s sample has %s=%q, not one of %v", want.name, k, v, want.labels[k])
				}
			}
		}
	}
}

// ours formats the samples of our families, one per line, for the log.
func ours(fams metricstest.Families) string {
	var b strings.Builder
	for _, name := range []string{machinesMetric, transitionsMetric, resultsMetric} {
		for _, m := range fams[name].GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			fmt.Fprintf(&b, "  %s{%s} %v\n", name, strings.Join(ls, ","), metricstest.Value(m))
		}
	}
	return b.String()
}

// histogram returns the histogram of family name for controller, or nil.
func histogram(fams metricstest.Families, name, controller string) *dto.Histogram {
	for _, m := range fams[name].GetMetric() {
		if metricstest.Labels(m)["controller"] == controller {
			return m.GetHistogram()
		}
	}
	return nil
}

// hasSample reports whether family name has a sample with label k=v.
func hasSample(fams metricstest.Families, name, k, v string) bool {
	_, found := fams.Lookup(name, map[string]string{k: v})
	return found
}

// waitConsistent waits until the Machines on the API server are exactly want (name → phase)
// and machinestatus_machines reports, for every phase, as many Machines as the API server.
func waitConsistent(t *testing.T, ctx context.Context, ms *machineSet, url *endpoint, want map[string]v1alpha1.MachinePhase) {
	t.Helper()
	harness.Wait(t, 2*time.Minute, fmt.Sprintf("Machines %v and the gauge to agree", want), func(context.Context) (bool, string) {
		live, err := ms.tryList(ctx)
		if err != nil {
			return false, err.Error()
		}
		if got := phases(live); !maps.Equal(got, want) {
			return false, fmt.Sprintf("Machines %v", got)
		}
		fams, err := scrape(ctx, url)
		if err != nil {
			return false, err.Error()
		}
		for _, p := range v1alpha1.MachinePhases() {
			if g, n := fams.Sum(machinesMetric, map[string]string{"phase": string(p)}), countPhase(live, p); g != float64(n) {
				return false, fmt.Sprintf("%s{phase=%q} = %v, %d such Machines", machinesMetric, p, g, n)
			}
		}
		return true, ""
	})
}

func phases(ms []v1alpha1.Machine) map[string]v1alpha1.MachinePhase {
	out := map[string]v1alpha1.MachinePhase{}
	for _, m := range ms {
		out[m.Name] = m.Status.Phase
	}
	return out
}

func countPhase(ms []v1alpha1.Machine, p v1alpha1.MachinePhase) int {
	n := 0
	for _, m := range ms {
		if m.Status.Phase == p {
			n++
		}
	}
	return n
}

// machineSet creates Machines and their SimMachines in one namespace and remembers the names.
type machineSet struct {
	c     client.Client
	ns    string
	names []string
}

func newMachines(c client.Client, ns string) *machineSet { return &machineSet{c: c, ns: ns} }

// create creates Machine name referencing SimMachine name, which it creates too when withSim;
// standby parks the Machine.
func (s *machineSet) create(t *testing.T, ctx context.Context, name string, withSim, standby bool) {
	t.Helper()
	if withSim {
		s.createSim(t, ctx, name)
	}
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachine", Name: name},
			Version:           "v1.36.3",
			Standby:           standby,
		},
	}
	if err := s.c.Create(ctx, m); err != nil {
		t.Fatalf("cannot create Machine %s: %v", name, err)
	}
	s.names = append(s.names, name)
}

// createSim creates the SimMachine name: provisioned after 1 s, its Node 1 s later.
func (s *machineSet) createSim(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	sim := &infrav1.SimMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec:       infrav1.SimMachineSpec{ProvisionAfterSeconds: 1, RegisterNodeAfterSeconds: 1, KubeletVersion: "v1.36.3"},
	}
	if err := s.c.Create(ctx, sim); err != nil {
		t.Fatalf("cannot create SimMachine %s: %v", name, err)
	}
}

func (s *machineSet) get(t *testing.T, ctx context.Context, name string) *v1alpha1.Machine {
	t.Helper()
	m := &v1alpha1.Machine{}
	if err := s.c.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: name}, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (s *machineSet) tryList(ctx context.Context) ([]v1alpha1.Machine, error) {
	var l v1alpha1.MachineList
	if err := s.c.List(ctx, &l, client.InNamespace(s.ns)); err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (s *machineSet) list(t *testing.T, ctx context.Context) []v1alpha1.Machine {
	t.Helper()
	l, err := s.tryList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
