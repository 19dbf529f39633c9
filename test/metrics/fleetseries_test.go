package metrics

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/kwok"
)

const (
	// seriesFile is test/prometheus's series file (monitoring.SeriesFile there), which the
	// rules and the dashboard of config/prometheus are evaluated against.
	seriesFile = "test/prometheus/testdata/fleet-series.yaml"
	// seriesInterval is the time between two scrapes of the recording; seriesMinutes the minute
	// of its last scrape.
	seriesInterval = time.Minute
	seriesMinutes  = 46
	// transitionsFamily's series depend on which phases a reconcile happened to see, and
	// buildInfoFamily's on the commit bin/manager was built from: recorded, not compared.
	transitionsFamily = "machinestatus_machine_phase_transitions_total"
	buildInfoFamily   = "machinestatus_build_info"
)

// seriesTarget is what Prometheus adds to each scraped series when a ServiceMonitor with
// honorLabels selects the manager's Service (the Machines' own namespace label wins).
var seriesTarget = map[string]string{
	"job": "machinestatus-manager-metrics", "service": "machinestatus-manager-metrics",
	"endpoint": "https", "container": "manager", "namespace": "machinestatus-system",
	"pod": "machinestatus-manager-0", "instance": "10.244.0.11:8443",
}

// seriesStep is what the fleet's actors do right after the scrape of minute at, and what the
// manager must report then.
type seriesStep struct {
	at   int
	what string
	do   func(r *fleetRecording)
}

// fleetRecording is the fleet, its manager and what the manager must report.
type fleetRecording struct {
	t   *testing.T
	f   *fleet.Fleet
	o   ops
	mgr *manager
	// crd is Cluster API's Machine CRD, installed by a step.
	crd *apiextensionsv1.CustomResourceDefinition
	// want, counts and results: manager.waitStates's expectations, kept up to date by the
	// steps.
	want    map[string]machineState
	counts  map[string]uint64
	results map[string]float64
}

func (r *fleetRecording) set(group, ns, name string, s machineState) {
	r.want[fmt.Sprintf("%s %s/%s", group, ns, name)] = s
}

func (r *fleetRecording) gone(group, ns, name string) {
	delete(r.want, fmt.Sprintf("%s %s/%s", group, ns, name))
}

// ended counts one observed operation of group in cluster/pool.
func (r *fleetRecording) ended(group, clusterPool string, typ v1alpha1.MachineOperationType, st v1alpha1.MachineOperationState) {
	r.counts[fmt.Sprintf("%s %s %s %s", group, clusterPool, typ, st)]++
	r.results[fmt.Sprintf("%s %s %s", group, typ, st)]++
}

// The fleet of TestFleetSeries.
const (
	msGroup, capiGroup = "machinestatus.io", "cluster.x-k8s.io"
	fleetNS, edgeNS    = "fleet", "edge"
	newKubelet         = "v1.36.4"
)

var (
	running      = v1alpha1.MachinePhaseRunning
	provisioning = v1alpha1.MachinePhaseProvisioning
	create       = v1alpha1.MachineOperationCreate
	processing   = v1alpha1.MachineOperationStateProcessing
	successful   = v1alpha1.MachineOperationStateSuccessful
	failed       = v1alpha1.MachineOperationStateFailed
)

// seriesSteps is the scenario of TestFleetSeries, minute by minute (see there).
func seriesSteps() []seriesStep {
	ms := func(r *fleetRecording, name string, s machineState) { r.set(msGroup, fleetNS, name, s) }
	ca := func(r *fleetRecording, name string, s machineState) { r.set(capiGroup, edgeNS, name, s) }
	nodeNotReady := func(r *fleetRecording, name string) {
		r.o.patch(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, `{"metadata":{"labels":{"`+kwok.NotReadyLabel+`":"true"}}}`, false)
	}
	cordon := func(r *fleetRecording, name string, on bool) {
		r.o.patch(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, on), false)
	}
	provision := func(r *fleetRecording, name string) {
		r.o.patch(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: name}}, `{"spec":{"provisionAfterSeconds":0}}`, false)
	}
	update := func(r *fleetRecording, name string) {
		r.o.patch(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: name}}, `{"spec":{"version":"`+newKubelet+`"}}`, false)
		ms(r, name, state(v1alpha1.MachinePhaseUpdating, v1alpha1.MachineOperationUpdate, processing))
	}
	updated := func(r *fleetRecording, name string) {
		r.o.patch(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: name}}, `{"spec":{"kubeletVersion":"`+newKubelet+`"}}`, false)
		ms(r, name, state(running, v1alpha1.MachineOperationUpdate, successful))
		r.ended(msGroup, "prod/infra", v1alpha1.MachineOperationUpdate, successful)
	}
	drain := func(r *fleetRecording, name string) {
		cordon(r, name, true)
		ms(r, name, state(v1alpha1.MachinePhaseDraining, v1alpha1.MachineOperationDrainNode, processing))
	}
	drained := func(r *fleetRecording, name string) {
		cordon(r, name, false)
		ms(r, name, state(running, v1alpha1.MachineOperationDrainNode, successful))
		r.ended(msGroup, "prod/workers", v1alpha1.MachineOperationDrainNode, successful)
	}
	capiCreate := func(r *fleetRecording, name string) {
		r.o.capiMachine(edgeNS, name, "edge", "md-0")
		ca(r, name, state(provisioning, create, processing))
	}
	capiCreated := func(r *fleetRecording, name string) {
		r.o.capiStatus(edgeNS, name, capiRunning(name))
		ca(r, name, state(running, create, successful)+" up_to_date=true")
		r.ended(capiGroup, "edge/md-0", create, successful)
	}
	// A Node that never registers: the MachineHealthCheck's NodeStartupTimeout fails the
	// creation; it then deletes the Machine (Cluster API deletes the infrastructure, then
	// removes its finalizer).
	capiStartupTimeout := func(r *fleetRecording, name string) {
		r.o.capiStatus(edgeNS, name, func(s *clusterv1.MachineStatus) {
			s.Initialization.BootstrapDataSecretCreated = ptr.To(true)
			s.Initialization.InfrastructureProvisioned = ptr.To(true)
		}, capiCondition(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.MachineInfrastructureReadyReason),
			capiCondition(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionFalse, clusterv1.MachineHealthCheckNodeStartupTimeoutReason))
		ca(r, name, state(v1alpha1.MachinePhaseFailed, create, failed))
		r.ended(capiGroup, "edge/md-0", create, failed)
	}
	capiRemediate := func(r *fleetRecording, name string) {
		r.o.delete(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: edgeNS, Name: name}})
		r.o.capiStatus(edgeNS, name, capiDeleting(clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason))
		ca(r, name, state(v1alpha1.MachinePhaseDeleting, v1alpha1.MachineOperationDelete, processing))
	}
	capiRemoved := func(r *fleetRecording, name string) {
		r.o.capiStatus(edgeNS, name, capiDeleting(clusterv1.MachineDeletingDeletionCompletedReason))
		r.o.patch(&clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: edgeNS, Name: name}}, `{"metadata":{"finalizers":null}}`, true)
		r.gone(capiGroup, edgeNS, name)
		r.ended(capiGroup, "edge/md-0", v1alpha1.MachineOperationDelete, successful)
	}

	steps := []seriesStep{
		{2, "workers-d's Node NotReady (its health check waits two hours)", func(r *fleetRecording) {
			nodeNotReady(r, "workers-d")
			ms(r, "workers-d", state(v1alpha1.MachinePhaseUnknown, v1alpha1.MachineOperationHealthCheck, processing))
		}},
		{4, "workers-e's Node NotReady, failed by its 10 s health check", func(r *fleetRecording) {
			nodeNotReady(r, "workers-e")
			ms(r, "workers-e", state(v1alpha1.MachinePhaseFailed, v1alpha1.MachineOperationHealthCheck, failed))
			r.ended(msGroup, "prod/workers", v1alpha1.MachineOperationHealthCheck, failed)
		}},
		{6, "infra-a wants kubelet " + newKubelet, func(r *fleetRecording) { update(r, "infra-a") }},
		{8, "infra-a's kubelet updated", func(r *fleetRecording) { updated(r, "infra-a") }},
		{9, "workers-f created", func(r *fleetRecording) {
			r.o.msMachine(fleetNS, "workers-f", "prod", "workers", sim(86400), nil)
			ms(r, "workers-f", state(provisioning, create, processing))
		}},
		{10, "workers-f provisioned", func(r *fleetRecording) {
			provision(r, "workers-f")
			ms(r, "workers-f", state(running, create, successful))
			r.ended(msGroup, "prod/workers", create, successful)
		}},
		{11, "Cluster API installed; md-0-x1, -x2, -x3 created", func(r *fleetRecording) {
			r.installClusterAPI()
			for _, name := range []string{"md-0-x1", "md-0-x2", "md-0-x3"} {
				capiCreate(r, name)
			}
		}},
		{12, "md-0-x1, -x2, -x3 Running", func(r *fleetRecording) {
			for _, name := range []string{"md-0-x1", "md-0-x2", "md-0-x3"} {
				capiCreated(r, name)
			}
		}},
		{13, "md-0-f1 created", func(r *fleetRecording) { capiCreate(r, "md-0-f1") }},
		{14, "md-0-f1 NodeStartupTimeout; infra-b wants kubelet " + newKubelet, func(r *fleetRecording) {
			capiStartupTimeout(r, "md-0-f1")
			update(r, "infra-b")
		}},
		{15, "md-0-f1 remediated (deleted); md-0-f2 created", func(r *fleetRecording) {
			capiRemediate(r, "md-0-f1")
			capiCreate(r, "md-0-f2")
		}},
		{16, "md-0-f1 gone; md-0-f2 NodeStartupTimeout; infra-b's kubelet updated", func(r *fleetRecording) {
			capiRemoved(r, "md-0-f1")
			capiStartupTimeout(r, "md-0-f2")
			updated(r, "infra-b")
		}},
		{17, "md-0-f2 remediated; md-0-f3 created", func(r *fleetRecording) {
			capiRemediate(r, "md-0-f2")
			capiCreate(r, "md-0-f3")
		}},
		{18, "md-0-f2 gone; md-0-f3 NodeStartupTimeout", func(r *fleetRecording) {
			capiRemoved(r, "md-0-f2")
			capiStartupTimeout(r, "md-0-f3")
		}},
		{19, "md-0-f3 remediated; md-0-f4 created", func(r *fleetRecording) {
			capiRemediate(r, "md-0-f3")
			capiCreate(r, "md-0-f4")
		}},
		{20, "md-0-f3 gone; md-0-f4 NodeStartupTimeout", func(r *fleetRecording) {
			capiRemoved(r, "md-0-f3")
			capiStartupTimeout(r, "md-0-f4")
		}},
		{21, "md-0-f4 remediated", func(r *fleetRecording) { capiRemediate(r, "md-0-f4") }},
		{22, "md-0-f4 gone; md-0-r1 created", func(r *fleetRecording) {
			capiRemoved(r, "md-0-f4")
			capiCreate(r, "md-0-r1")
		}},
		{23, "md-0-r1 Running", func(r *fleetRecording) { capiCreated(r, "md-0-r1") }},
		{24, "infra-c deleted, kept by another controller's finalizer", func(r *fleetRecording) {
			r.o.patch(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: "infra-c"}}, `{"metadata":{"finalizers":["`+keepFinalizer+`"]}}`, false)
			r.o.delete(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: "infra-c"}})
			ms(r, "infra-c", state(v1alpha1.MachinePhaseDeleting, v1alpha1.MachineOperationDelete, processing))
		}},
		{25, "md-0-x3's Node NotReady", func(r *fleetRecording) {
			r.o.capiStatus(edgeNS, "md-0-x3", capiCondition(clusterv1.MachineNodeReadyCondition, metav1.ConditionFalse, clusterv1.MachineNodeNotReadyReason))
			ca(r, "md-0-x3", state(v1alpha1.MachinePhaseUnknown, v1alpha1.MachineOperationHealthCheck, processing)+" up_to_date=true")
		}},
		{26, "infra-c's infrastructure deleted; md-0-x3 failed by its MachineHealthCheck", func(r *fleetRecording) {
			r.o.delete(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: "infra-c"}})
			ms(r, "infra-c", state(v1alpha1.MachinePhaseDeleted, v1alpha1.MachineOperationDelete, successful))
			r.ended(msGroup, "prod/infra", v1alpha1.MachineOperationDelete, successful)
			r.o.capiStatus(edgeNS, "md-0-x3", capiCondition(clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionFalse, clusterv1.MachineHealthCheckUnhealthyNodeReason))
			ca(r, "md-0-x3", state(v1alpha1.MachinePhaseFailed, v1alpha1.MachineOperationHealthCheck, failed)+" up_to_date=true")
			r.ended(capiGroup, "edge/md-0", v1alpha1.MachineOperationHealthCheck, failed)
		}},
		{27, "infra-c's finalizer released: gone", func(r *fleetRecording) {
			r.o.patch(&v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: "infra-c"}}, `{"metadata":{"finalizers":null}}`, false)
			r.gone(msGroup, fleetNS, "infra-c")
		}},
		{30, "workers-b cordoned", func(r *fleetRecording) { drain(r, "workers-b") }},
		{33, "workers-b uncordoned", func(r *fleetRecording) { drained(r, "workers-b") }},
		{35, "md-0-x2 no longer up to date", func(r *fleetRecording) {
			r.o.capiStatus(edgeNS, "md-0-x2", capiCondition(clusterv1.MachineUpToDateCondition, metav1.ConditionFalse, clusterv1.MachineNotUpToDateReason))
			ca(r, "md-0-x2", state(running, create, successful)+" up_to_date=false")
		}},
		{36, "workers-f cordoned", func(r *fleetRecording) { drain(r, "workers-f") }},
		{38, "workers-f uncordoned", func(r *fleetRecording) { drained(r, "workers-f") }},
	}
	return steps
}

// installClusterAPI installs Cluster API's Machine CRD and waits until the manager reconciles
// Cluster API Machines.
func (r *fleetRecording) installClusterAPI() {
	r.t.Helper()
	if err := r.f.Client.Create(context.Background(), r.crd.DeepCopy()); err != nil {
		r.t.Fatalf("cannot install Cluster API's Machine CRD: %v", err)
	}
	harness.Wait(r.t, 2*time.Minute, "the manager to reconcile Cluster API Machines", func(ctx context.Context) (bool, string) {
		fams, err := metricstest.Fetch(ctx, nil, r.mgr.url, "")
		if err != nil {
			return false, err.Error()
		}
		v := fams.Sum("machinestatus_machine_api_served", map[string]string{"api_group": capiGroup})
		return v == 1, fmt.Sprintf("machinestatus_machine_api_served{api_group=%q} = %v", capiGroup, v)
	})
}

// setUp creates the fleet of minute 0 and waits until the manager reports it: each
// Machine seen creating first (its infrastructure provisions only once the test says so).
func (r *fleetRecording) setUp() {
	r.t.Helper()
	for _, n := range []string{fleetNS, edgeNS} {
		if err := r.f.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			r.t.Fatal(err)
		}
	}
	healthCheck := func(seconds int32) func(*v1alpha1.Machine) {
		return func(m *v1alpha1.Machine) {
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: seconds},
				{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: seconds},
			}}
		}
	}
	machines := []struct {
		name, pool string
		edit       func(*v1alpha1.Machine)
	}{
		{"workers-b", "workers", nil},
		{"workers-c", "workers", nil},
		{"workers-d", "workers", healthCheck(7200)},
		{"workers-e", "workers", healthCheck(10)},
		{"infra-a", "infra", nil},
		{"infra-b", "infra", nil},
		{"infra-c", "infra", nil},
		{"infra-spare", "infra", func(m *v1alpha1.Machine) { m.Spec.Standby = true }},
	}
	for _, m := range machines {
		r.o.msMachine(fleetNS, m.name, "prod", m.pool, sim(86400), m.edit)
		s := state(provisioning, create, processing)
		if m.name == "infra-spare" {
			s = state(v1alpha1.MachinePhaseStandby, create, processing)
		}
		r.set(msGroup, fleetNS, m.name, s)
	}
	r.mgr.waitStates(r.t, "every Machine creating", r.want, r.counts, r.results)
	for _, m := range machines {
		if m.name == "workers-c" { // never provisioned: stuck in Create
			continue
		}
		r.o.patch(&infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: m.name}}, `{"spec":{"provisionAfterSeconds":0}}`, false)
		s := state(running, create, successful)
		if m.name == "infra-spare" {
			s = state(v1alpha1.MachinePhaseStandby, create, successful)
		}
		r.set(msGroup, fleetNS, m.name, s)
		r.ended(msGroup, "prod/"+m.pool, create, successful)
	}
	r.mgr.waitStates(r.t, "the fleet of minute 0", r.want, r.counts, r.results)
}

// TestFleetSeries records test/prometheus's series file: a fleet of both Machine APIs driven
// through the manager (a real kube-apiserver + etcd, kwok Nodes, the simulated provider,
// bin/manager as its own process with --machine-apis=machinestatus.io,cluster.x-k8s.io and
// leader election; Cluster API Machines whose status the test writes as Cluster API's
// controllers would), the manager's machinestatus_* families scraped every minute for 46
// minutes, with seriesTarget's labels. At minute 0:
//   - cluster prod (machinestatus.io, namespace fleet), pool workers: workers-b Running,
//     workers-c creating (its infrastructure never provisions), workers-d and workers-e Running
//     (health checks of two hours and 10 s); pool infra: infra-a, infra-b, infra-c Running and
//     infra-spare in Standby; Cluster API is not installed (the manager waits for it).
//
// Then, right after the scrape of the minute (seriesSteps): m2 workers-d's Node NotReady
// (Unknown); m4 workers-e's (Failed); m6-m8 infra-a updated; m9-m10 workers-f created; m11
// Cluster API installed, cluster edge (namespace edge), MachineDeployment md-0: md-0-x1..x3
// created, Running at m12; m13-m22 md-0-f1..f4 created every other minute, failed by their
// MachineHealthCheck's NodeStartupTimeout a minute later, deleted (remediated) the next, gone
// the next; m14-m16 infra-b updated; m22-m23 md-0-r1 created; m24 infra-c deleted, kept by a
// finalizer until m27; m25 md-0-x3's Node NotReady, failed by its MachineHealthCheck at m26;
// m30-m33 workers-b drained; m35 md-0-x2 not up to date; m36-m38 workers-f drained.
//
// Every step waits until the manager reports the fleet exactly as the step leaves it
// (machinestatus_machine_info per Machine, the duration histogram's counts and the results
// counter: each operation observed once), so a scrape never sees a step half done. With
// METRICS_WRITE_SERIES=1 the test scrapes on the minute and writes the file (about 50 minutes:
// go test -timeout 70m). Without it, the steps run back to back, one scrape after each, and
// the test checks that the file has exactly the series (names and labels) of this run, less
// machinestatus_machine_phase_transitions_total's, whose label sets depend on which phases a
// reconcile happened to see, and machinestatus_build_info's, which name the commit.
func TestFleetSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, kwok and the manager")
	}
	write := os.Getenv("METRICS_WRITE_SERIES") == "1"
	timeout := 5 * time.Minute
	if write {
		timeout = time.Duration(seriesMinutes+15) * seriesInterval
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	f, crd := startBothAPIsFleet(t, ctx, false)
	r := &fleetRecording{t: t, f: f, o: ops{t: t, c: f.Client}, crd: crd, want: map[string]machineState{},
		counts: map[string]uint64{}, results: map[string]float64{}}
	r.mgr = startManager(t, f, "manager")
	r.setUp()

	steps := seriesSteps()
	var scrapes []metricstest.Families
	scrape := func() {
		fams, err := metricstest.Fetch(ctx, nil, r.mgr.url, "")
		if err != nil {
			t.Fatal(err)
		}
		ours := metricstest.Families{}
		for name, fam := range fams {
			if strings.HasPrefix(name, "machinestatus_") {
				ours[name] = fam
			}
		}
		scrapes = append(scrapes, ours)
	}
	start := time.Now()
	for minute := 0; minute <= seriesMinutes; minute++ {
		var now []seriesStep
		for _, s := range steps {
			if s.at == minute {
				now = append(now, s)
			}
		}
		if write {
			time.Sleep(time.Until(start.Add(time.Duration(minute) * seriesInterval)))
			scrape()
		} else if minute == 0 {
			scrape()
		}
		for _, s := range now {
			t.Logf("m%d: %s", minute, s.what)
			s.do(r)
		}
		if len(now) == 0 {
			continue
		}
		r.mgr.waitStates(t, fmt.Sprintf("the fleet after minute %d", minute), r.want, r.counts, r.results)
		if !write {
			scrape()
		} else if next := start.Add(time.Duration(minute+1) * seriesInterval); time.Now().After(next) {
			t.Fatalf("the steps of minute %d ended %s after the next scrape was due: the recording is not on the minute",
				minute, time.Since(next).Round(time.Millisecond))
		}
	}

	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, seriesFile)
	if write {
		body := metricstest.InputSeries(start, seriesInterval, seriesTarget, scrapes)
		header := fmt.Sprintf(`# The machinestatus_* series of bin/manager scraped every %s while test/metrics's
# TestFleetSeries drives a fleet of both Machine APIs (its documentation says what happens
# minute by minute), with the labels a ServiceMonitor adds, in promtool's input_series format
# (start_timestamp: Unix seconds of the first scrape). Written by METRICS_WRITE_SERIES=1
# go test -count=1 -timeout 70m -run TestFleetSeries ./test/metrics/; do not edit.
`, seriesInterval)
		if err := os.WriteFile(path, append([]byte(header), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh := metricstest.InputSeries(start, seriesInterval, seriesTarget, scrapes)
	want, got := seriesNames(committed), seriesNames(fresh)
	if missing, extra := setDiff(got, want), setDiff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("%s does not have the series this run of the fleet gives: run METRICS_WRITE_SERIES=1 go test -count=1 -timeout 70m -run TestFleetSeries ./test/metrics/\nnot in the file:\n  %s\nonly in the file:\n  %s",
			seriesFile, strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	}
}

// seriesNames returns the series of an input_series file (name and labels), less those of
// transitionsFamily and buildInfoFamily.
func seriesNames(file []byte) map[string]bool {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(file))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		s, ok := strings.CutPrefix(sc.Text(), "- series: '")
		if !ok || strings.HasPrefix(s, transitionsFamily+"{") || strings.HasPrefix(s, buildInfoFamily+"{") {
			continue
		}
		out[strings.TrimSuffix(s, "'")] = true
	}
	return out
}

// setDiff returns the keys of a that b lacks, sorted.
func setDiff(a, b map[string]bool) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if !b[k] {
			out = append(out, k)
		}
	}
	return out
}
