// Package scale measures the machinestatus controller at fleet scale on this machine: an
// embedded kube-apiserver + etcd, kwok playing every Node's kubelet, the simulated
// infrastructure provider, and the manager as its own process (test/internal/fleet). It creates
// N Machines, lets them converge, holds steady, then flips a tenth of the Nodes NotReady with
// kwok and back, and reports convergence time, status writes (from the API server's own request
// metrics), idle writes, flip latency and the manager's memory.
//
// It waits on observed state with bounded timeouts; no result depends on timing luck, and no
// assertion is on time except the goals the command-line harness checks.
package scale

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// Options configure Run.
type Options struct {
	// N is the number of Machines.
	N int
	// Steady is how long the fleet is held steady while idle writes are counted.
	Steady time.Duration
	// FlipPercent of the Nodes are flipped NotReady and back (default 10).
	FlipPercent int
	// StateDir receives the kubeconfig and logs (relative to the repository root).
	StateDir string
	// MaxConcurrentReconciles is passed to the manager.
	MaxConcurrentReconciles int
	// Out receives progress lines (nil: discarded).
	Out io.Writer
	// BaselineManager, when set, is another manager binary whose metrics cost is measured
	// beside this one's (Result.Before and After), and the remediation loop is run
	// (Result.Churn).
	BaselineManager string
}

// Result holds the measurements.
type Result struct {
	N int
	// Convergence is from the last infrastructure object becoming provisioned until all N
	// Machines were Running.
	Convergence time.Duration
	// StatusWrites is the number of machines/status write requests the API server served
	// during the run; DistinctStatuses the number of distinct statuses the Machines went through
	// (the lower bound: one write per real change).
	StatusWrites, DistinctStatuses int
	// IdleWrites is the number of status writes while the fleet was steady, over IdleWindow.
	IdleWrites int
	IdleWindow time.Duration
	// FlipLatencies are, per flipped Node and direction, the time from the Node's Ready flip
	// (as a watcher received it) to its Machine's phase change (likewise); 0 when the phase
	// change was received first (two watches, each in its own order).
	FlipLatencies []time.Duration
	Flipped       int
	// Manager memory before any Machine existed and at the end of the steady phase, in bytes.
	RSSBaseline, RSS, HeapBaseline, Heap float64
	// Before and After are the metrics cost of Options.BaselineManager and of this manager,
	// Churn the remediation loop's series (nil without a BaselineManager).
	Before, After *MetricsCost
	Churn         *SeriesChurn
	// LoadLow and LoadHigh are the lowest and highest 1-minute load average sampled during the
	// run.
	LoadLow, LoadHigh float64
}

const namespace = "default"

// Run starts the fleet, measures, and stops everything it started.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.FlipPercent == 0 {
		o.FlipPercent = 10
	}
	port, err := host.FreePort()
	if err != nil {
		return nil, err
	}
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	f, err := fleet.Start(ctx, fleet.Options{
		StateDir:            o.StateDir,
		Manager:             "bin/manager",
		ManagerArgs:         managerArgs(port, o),
		ProviderConcurrency: 8,
		QPS:                 500, Burst: 1000,
		Out: o.Out,
	})
	if err != nil {
		return nil, err
	}
	defer f.Stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The metrics cost phase stops the manager: it stops watching first.
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go f.Watch(watchCtx, cancel)
	load := startLoadSampler()
	defer load.Stop()

	res := &Result{N: o.N}
	obs, err := newObserver(f.CP.Config, f.Client, namespace)
	if err != nil {
		return nil, err
	}
	if err := obs.start(ctx); err != nil {
		return nil, err
	}
	if err := harness.Poll(ctx, 2*time.Minute, func(context.Context) (bool, string) {
		_, err := goHeap(ctx, metricsURL)
		return err == nil, fmt.Sprint(err)
	}); err != nil {
		return nil, fmt.Errorf("waiting for the manager's metrics endpoint: %w", err)
	}
	time.Sleep(2 * time.Second) // let the manager finish starting before the baseline
	if res.RSSBaseline, err = rss(f.Manager.Pid()); err != nil {
		return nil, err
	}
	if res.HeapBaseline, err = goHeap(ctx, metricsURL); err != nil {
		return nil, err
	}
	if o.BaselineManager != "" {
		fmt.Fprintf(o.Out, "metrics cost with no Machine: this manager and %s...\n", o.BaselineManager)
		res.Before, res.After = &MetricsCost{}, &MetricsCost{}
		if err := (&costManager{Process: f.Manager, url: metricsURL}).measure(ctx, res.After, 0); err != nil {
			return nil, err
		}
		before, err := startCostManager(f, o, o.BaselineManager, "manager-before-empty")
		if err != nil {
			return nil, err
		}
		err = before.measure(ctx, res.Before, 0)
		before.Stop(harness.ManagerStopGrace)
		if err != nil {
			return nil, err
		}
	}
	writes0, err := statusWrites(ctx, f.CP.Config)
	if err != nil {
		return nil, err
	}

	names := make([]string, o.N)
	for i := range names {
		names[i] = fmt.Sprintf("m-%05d", i)
	}
	fmt.Fprintf(o.Out, "creating %d SimMachines and Machines...\n", o.N)
	if err := createAll(ctx, f.Client, names); err != nil {
		return nil, err
	}

	timeout := 60*time.Second + time.Duration(o.N)*60*time.Millisecond
	if err := harness.Poll(ctx, timeout, func(context.Context) (bool, string) {
		_, n := obs.lastProvisioned(names)
		return n == o.N, fmt.Sprintf("%d of %d provisioned", n, o.N)
	}); err != nil {
		return nil, fmt.Errorf("waiting for every infrastructure object to be provisioned: %w", err)
	}
	lastProvisioned, _ := obs.lastProvisioned(names)
	if err := harness.Poll(ctx, timeout, func(context.Context) (bool, string) {
		n := obs.countPhase(names, v1alpha1.MachinePhaseRunning)
		return n == o.N, fmt.Sprintf("%d of %d Running", n, o.N)
	}); err != nil {
		return nil, fmt.Errorf("waiting for every Machine to be Running: %w", err)
	}
	res.Convergence = lastRunning(obs, names).Sub(lastProvisioned)
	fmt.Fprintf(o.Out, "all %d Machines Running %.1fs after the last infrastructure was provisioned\n", o.N, res.Convergence.Seconds())

	// Steady: kwok keeps heartbeating the Nodes; nothing the controller reads changes.
	time.Sleep(5 * time.Second) // let in-flight reconciles of the last changes finish
	idle0, err := statusWrites(ctx, f.CP.Config)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "holding steady for %s...\n", o.Steady)
	start := time.Now()
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-time.After(o.Steady):
	}
	idle1, err := statusWrites(ctx, f.CP.Config)
	if err != nil {
		return nil, err
	}
	res.IdleWrites, res.IdleWindow = int(idle1-idle0), time.Since(start)
	if res.RSS, err = rss(f.Manager.Pid()); err != nil {
		return nil, err
	}
	if res.Heap, err = goHeap(ctx, metricsURL); err != nil {
		return nil, err
	}

	// Flip a tenth of the Nodes NotReady with kwok, then back.
	var flipped []string
	for i, name := range names {
		if i%(100/o.FlipPercent) == 0 {
			flipped = append(flipped, name)
		}
	}
	res.Flipped = len(flipped)
	fmt.Fprintf(o.Out, "flipping %d Nodes NotReady with kwok and back...\n", len(flipped))
	for _, step := range []struct {
		label    bool
		node     corev1.ConditionStatus
		phase    v1alpha1.MachinePhase
		describe string
	}{
		{true, corev1.ConditionFalse, v1alpha1.MachinePhaseUnknown, "the flipped Machines to be Unknown"},
		{false, corev1.ConditionTrue, v1alpha1.MachinePhaseRunning, "the flipped Machines to be Running again"},
	} {
		labeled := time.Now()
		if err := labelNodes(ctx, f.Client, flipped, step.label); err != nil {
			return nil, err
		}
		// Both watches must have delivered: the Machines' phases and the Nodes' flips (they
		// arrive in either order).
		if err := harness.Poll(ctx, 120*time.Second, func(context.Context) (bool, string) {
			n, flips := obs.countPhase(flipped, step.phase), obs.countFlipped(flipped, step.node, labeled)
			return n == len(flipped) && flips == len(flipped), fmt.Sprintf("%d of %d in phase, %d Node flips seen", n, len(flipped), flips)
		}); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", step.describe, err)
		}
		for _, name := range flipped {
			if d, ok := obs.latency(name, step.node, step.phase); ok {
				res.FlipLatencies = append(res.FlipLatencies, d)
			}
		}
	}
	time.Sleep(3 * time.Second) // let the last writes land before the final count
	writes1, err := statusWrites(ctx, f.CP.Config)
	if err != nil {
		return nil, err
	}
	res.StatusWrites = int(writes1 - writes0)
	res.DistinctStatuses = obs.totalStatusChanges()
	slices.Sort(res.FlipLatencies)

	if o.BaselineManager != "" {
		stopWatching()
		f.Manager.Stop(harness.ManagerStopGrace)
		if err := measureCostAtN(ctx, f, o, res, names); err != nil {
			return nil, err
		}
	}
	res.LoadLow, res.LoadHigh = load.Stop()
	return res, nil
}

// measureCostAtN measures both managers started fresh on the N Running Machines, the baseline
// first, then runs the remediation loop on a tenth of the Machines with this one.
func measureCostAtN(ctx context.Context, f *fleet.Fleet, o Options, res *Result, names []string) error {
	fmt.Fprintf(o.Out, "metrics cost with %d Machines: %s, then this manager, each started fresh...\n", o.N, o.BaselineManager)
	before, err := startCostManager(f, o, o.BaselineManager, "manager-before")
	if err != nil {
		return err
	}
	err = before.measure(ctx, res.Before, o.N)
	before.Stop(harness.ManagerStopGrace)
	if err != nil {
		return err
	}
	after, err := startCostManager(f, o, f.ManagerBin, "manager-after")
	if err != nil {
		return err
	}
	defer after.Stop(harness.ManagerStopGrace)
	if err := after.measure(ctx, res.After, o.N); err != nil {
		return err
	}
	var remediated []string
	for i, name := range names {
		if i%10 == 5 { // not the flipped ones (i%10 == 0)
			remediated = append(remediated, name)
		}
	}
	res.Churn, err = remediate(ctx, f.Client, after.url, remediated, o.Out)
	return err
}

// managerArgs are the manager's flags in a run, its metrics on port.
func managerArgs(port int, o Options) []string {
	return []string{
		// Plain HTTP: the harness reads only the heap size, and a scrape authenticated by the
		// API server would add its own requests to what is measured.
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port), "--metrics-secure=false", "--health-probe-bind-address=0",
		fmt.Sprintf("--max-concurrent-reconciles=%d", max(o.MaxConcurrentReconciles, 1)),
		"--kube-api-qps=500", "--kube-api-burst=1000", "--zap-log-level=info", "--zap-devel=false",
	}
}

func lastRunning(obs *observer, names []string) time.Time {
	obs.mu.Lock()
	defer obs.mu.Unlock()
	var last time.Time
	for _, n := range names {
		if t := obs.phaseAt[n][v1alpha1.MachinePhaseRunning]; t.After(last) {
			last = t
		}
	}
	return last
}

// createAll creates one SimMachine and one Machine per name, 16 at a time.
func createAll(ctx context.Context, c client.Client, names []string) error {
	work := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				sim := &infrav1.SimMachine{
					ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
					Spec:       infrav1.SimMachineSpec{ProvisionAfterSeconds: 1, RegisterNodeAfterSeconds: 1, KubeletVersion: "v1.36.3"},
				}
				m := &v1alpha1.Machine{
					ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
					Spec: v1alpha1.MachineSpec{
						InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachine", Name: name},
						Version:           "v1.36.3",
					},
				}
				for _, obj := range []client.Object{sim, m} {
					if err := c.Create(ctx, obj); err != nil {
						errs <- fmt.Errorf("cannot create %T %s: %w", obj, name, err)
						return
					}
				}
			}
		}()
	}
	for _, n := range names {
		select {
		case work <- n:
		case err := <-errs:
			close(work)
			wg.Wait()
			return err
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// labelNodes sets (or removes) kwok's NotReady label on the named Nodes.
func labelNodes(ctx context.Context, c client.Client, names []string, set bool) error {
	value := `"true"`
	if !set {
		value = "null"
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+kwok.NotReadyLabel+`":`+value+`}}}`))
	for _, name := range names {
		if err := c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, patch); err != nil {
			return fmt.Errorf("cannot label Node %s: %w", name, err)
		}
	}
	return nil
}

// Percentile returns the p-th percentile (0–100) of sorted durations (nearest rank).
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
