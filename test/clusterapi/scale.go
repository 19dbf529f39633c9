package clusterapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
	"github.com/machinestatus/machinestatus/test/internal/proc"
)

// The scale run: Cluster API's real Machine, MachineSet and MachineDeployment controllers (with
// the Cluster and MachineHealthCheck ones and the ClusterCache) as a process of their own, and
// our manager as another, on one API server with kwok Nodes and the simulated provider; N
// Machines in MachineDeployments through a scale-up, a rollout and a scale-down, then an idle
// window. The API server's audit log attributes every Machine write; /proc gives each
// process's CPU time and memory.

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	// N is how many Machines the MachineDeployments hold after the scale-up (and through the
	// rollout); they start and end at N/2.
	N int
	// PoolSize is how many Machines each MachineDeployment holds at N (N/PoolSize
	// MachineDeployments).
	PoolSize int
	// Idle is how long the fleet is left alone at the end, while writes are counted.
	Idle time.Duration
	// StateDir receives the logs and the audit log (relative to the repository root unless
	// absolute).
	StateDir string
	// Controllers is the command line that runs Cluster API's controllers as their own process
	// (ServeClusterAPIControllers); the path of a kubeconfig is appended.
	Controllers []string
	// Out receives progress lines.
	Out io.Writer
}

// ScaleResult is what a scale run measured.
type ScaleResult struct {
	N, Pools int
	// Machines is how many Machines the run created (and Cluster API and our manager wrote).
	Machines int
	// Phases are the durations of each phase, in order.
	Phases []ScalePhase
	// Writes is the account of the Machines' writes.
	Writes runWrites
	// Lags are the delays from the Cluster API write that changed a Machine's (type, state) to
	// our patch of it.
	Lags []time.Duration
	// WriteTimes are how long the API server took to serve each writer's Machine writes.
	WriteTimes map[string][]time.Duration
	// Load is the host's load average (1, 5, 15 min) when the first Machines were created and
	// at the end (/proc/loadavg): the host may be shared.
	Load [2]string
	// IdleWrites counts the Machine writes of each writer during the idle window.
	IdleWrites map[string]int
	Idle       time.Duration
	// ErrorLines are our manager's ERROR lines.
	ErrorLines []string
	// Ours and ClusterAPI are the processes' figures.
	Ours, ClusterAPI ProcessFigures
	Took             time.Duration
}

// ScalePhase is one phase of the scale run.
type ScalePhase struct {
	Name string
	Took time.Duration
}

// ProcessFigures are a process's CPU time and memory over the run.
type ProcessFigures struct {
	// CPU is the user and system time it used from the first Machine to the end.
	CPU time.Duration
	// RSSBefore is its resident set before the first Machine; PeakRSS the most it reached.
	RSSBefore, PeakRSS float64
}

// RunScale runs the scale scenario and returns what it measured; the error is for what kept it
// from running.
func RunScale(ctx context.Context, o ScaleOptions) (res *ScaleResult, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.PoolSize < 2 || o.N < o.PoolSize {
		return nil, fmt.Errorf("want N ≥ PoolSize ≥ 2, got N=%d, PoolSize=%d", o.N, o.PoolSize)
	}
	start := time.Now()
	h, err := startFleet(ctx, fleetOptions{stateDir: o.StateDir, out: o.Out, providerConcurrency: 8, providerQPS: 200})
	if err != nil {
		return nil, err
	}
	defer h.stop()
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, h.fleet.LogHint())
		}
	}()
	kubeconfig := filepath.Join(h.fleet.StateDir, "cluster-api.kubeconfig")
	if err := os.WriteFile(kubeconfig, h.fleet.CP.Kubeconfig, 0o600); err != nil {
		return nil, err
	}
	capi, err := proc.Start(proc.Options{
		Name: "Cluster API's controllers", Args: append(slices.Clone(o.Controllers), kubeconfig),
		LogPath: filepath.Join(h.fleet.StateDir, "cluster-api.log"),
	})
	if err != nil {
		return nil, err
	}
	defer capi.Stop(30 * time.Second)
	fmt.Fprintf(o.Out, "Cluster API's controllers (pid %d, log %s): %s\n", capi.Pid(), h.fleet.Rel(capi.LogPath), strings.Join(capi.Args(), " "))

	// The Cluster and its control plane Machine, which initializes it.
	if err := h.createBootstrapData(ctx); err != nil {
		return nil, err
	}
	if err := h.createCluster(ctx, clusterName); err != nil {
		return nil, err
	}
	if err := h.createControlPlane(ctx, clusterName, controlPlane); err != nil {
		return nil, fmt.Errorf("the control plane was not initialized: %w", err)
	}

	res = &ScaleResult{N: o.N, Pools: o.N / o.PoolSize, Idle: o.Idle, Load: [2]string{loadAverage()}}
	ours, theirs := newProcessWatch(h.fleet.Manager.Pid()), newProcessWatch(capi.Pid())
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(time.Second):
				ours.sample()
				theirs.sample()
			}
		}
	}()
	pools := make([]string, res.Pools)
	for i := range pools {
		pools[i] = fmt.Sprintf("pool-%02d", i)
	}
	half := int32(o.PoolSize / 2)
	phase := func(name string, do func() error, want scaleTarget) error {
		t := time.Now()
		if err := do(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := h.waitScale(ctx, want); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res.Phases = append(res.Phases, ScalePhase{Name: name, Took: time.Since(t)})
		fmt.Fprintf(o.Out, "%s: %s\n", name, time.Since(t).Round(100*time.Millisecond))
		return nil
	}
	eachPool := func(f func(string) error) func() error {
		return func() error {
			for _, p := range pools {
				if err := f(p); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := phase(fmt.Sprintf("%d MachineDeployments of %d created", len(pools), half), eachPool(func(p string) error {
		return h.createPool(ctx, poolSpec{name: p, cluster: clusterName, replicas: half})
	}), scaleTarget{machines: int(half) * len(pools), version: kubeletVersion}); err != nil {
		return res, err
	}
	if err := phase(fmt.Sprintf("scaled up to %d", o.PoolSize), eachPool(func(p string) error {
		return h.scalePool(ctx, p, int32(o.PoolSize))
	}), scaleTarget{machines: o.PoolSize * len(pools), version: kubeletVersion}); err != nil {
		return res, err
	}
	if err := phase("rolled out to "+newVersion, eachPool(func(p string) error {
		return h.rollOut(ctx, p)
	}), scaleTarget{machines: o.PoolSize * len(pools), version: newVersion}); err != nil {
		return res, err
	}
	if err := phase(fmt.Sprintf("scaled down to %d", half), eachPool(func(p string) error {
		return h.scalePool(ctx, p, half)
	}), scaleTarget{machines: int(half) * len(pools), version: newVersion}); err != nil {
		return res, err
	}
	idleFrom := time.Now()
	fmt.Fprintf(o.Out, "idle for %s\n", o.Idle)
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(o.Idle):
	}
	idleTo := time.Now()
	res.Ours, res.ClusterAPI, res.Load[1] = ours.figures(), theirs.figures(), loadAverage()
	if res.ErrorLines, err = managerlog.Unexpected(h.fleet.Manager.LogPath); err != nil {
		return res, err
	}

	audit, err := readAuditLog(h.auditLog)
	if err != nil {
		return res, err
	}
	// The control plane Machine is not the run's.
	for m := range audit.Machines {
		if m.Name == controlPlane {
			delete(audit.Machines, m)
		}
	}
	res.Machines = len(audit.Machines)
	res.Writes = accountRun(audit, poolLabels(audit))
	res.IdleWrites, res.WriteTimes = map[string]int{}, map[string][]time.Duration{}
	for _, ws := range audit.Machines {
		res.Lags = append(res.Lags, lags(ws)...)
		for _, w := range ws {
			res.WriteTimes[w.Writer] = append(res.WriteTimes[w.Writer], w.Complete.Sub(w.Received))
			if !w.Received.Before(idleFrom) && w.Received.Before(idleTo) {
				res.IdleWrites[w.Writer]++
			}
		}
	}
	res.Took = time.Since(start)
	return res, nil
}

// scaleTarget is what waitScale waits for: exactly machines Machines in the MachineDeployments,
// each Running at version with a Ready Node and up to date, and our annotation Create
// Successful on each.
type scaleTarget struct {
	machines int
	version  string
}

func (h *harness) waitScale(ctx context.Context, want scaleTarget) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, 30*time.Minute, true, func(ctx context.Context) (bool, error) {
		list := &clusterv1.MachineList{}
		if err := h.c.List(ctx, list, client.InNamespace(namespace), client.HasLabels{clusterv1.MachineDeploymentNameLabel}); err != nil {
			return false, err
		}
		ready := 0
		for i := range list.Items {
			m := &list.Items[i]
			v := viewOf(m)
			if m.Spec.Version == want.version && running(false)(m) && conditionIs(m, clusterv1.MachineUpToDateCondition, metav1.ConditionTrue) &&
				v.settled && typeStateOf(v.op) == createSucceeded {
				ready++
			}
		}
		last = fmt.Sprintf("%d Machines, %d of them ready at %s with our Create Successful", len(list.Items), ready, want.version)
		return len(list.Items) == want.machines && ready == want.machines, nil
	})
	if err != nil {
		return fmt.Errorf("want %d Machines ready at %s, last seen %s: %w", want.machines, want.version, last, err)
	}
	return nil
}

// processWatch samples a process's CPU time and resident set.
type processWatch struct {
	pid       int
	cpuBefore time.Duration
	rssBefore float64
	cpu       time.Duration
}

func newProcessWatch(pid int) *processWatch {
	w := &processWatch{pid: pid}
	w.cpuBefore, _ = cpuTime(pid)
	w.rssBefore, _ = statusBytes(pid, "VmRSS:")
	return w
}

func (w *processWatch) sample() {
	if cpu, err := cpuTime(w.pid); err == nil {
		w.cpu = cpu
	}
}

func (w *processWatch) figures() ProcessFigures {
	w.sample()
	peak, _ := statusBytes(w.pid, "VmHWM:")
	return ProcessFigures{CPU: w.cpu - w.cpuBefore, RSSBefore: w.rssBefore, PeakRSS: peak}
}

// loadAverage is the first three fields of /proc/loadavg ("" when unreadable).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's times.
const clockTick = 100

// cpuTime is a process's user and system time so far (Linux /proc).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, which is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	// utime and stime are the 14th and 15th fields; f starts at the 3rd.
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTick, nil
}

// statusBytes reads a size field of /proc/PID/status (e.g. VmRSS:, VmHWM:) in bytes.
func statusBytes(pid int, field string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// ServeClusterAPIControllers runs Cluster API's controllers (startClusterAPIControllers) against
// the cluster of the kubeconfig at path until SIGTERM or SIGINT; they log to standard error.
// The scale run starts it as a process of its own.
func ServeClusterAPIControllers(kubeconfig string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", kubeconfig, err)
	}
	log := zap.New(zap.WriteTo(os.Stderr))
	ctrl.SetLogger(log)
	c, err := startClusterAPIControllers(ctx, cfg, log.WithName("cluster-api"))
	if err != nil {
		return err
	}
	<-ctx.Done()
	c.stop()
	return nil
}

// lags returns, for each effective patch of ours that changed the (type, state), how long after
// the Cluster API write that made the Machine read so it was stored: in the order the writes
// were stored (by resourceVersion), each other writer's effective write is read with our last
// written lastOperation as the previous one, and the first that gives the (type, state) our next
// patch sets is the change it follows. Patches that follow no such write (e.g. the first of a
// Machine created before the run) are left out.
func lags(ws []machineWrite) []time.Duration {
	stored := make([]machineWrite, 0, len(ws))
	for _, w := range ws {
		if w.Effective {
			stored = append(stored, w)
		}
	}
	slices.SortStableFunc(stored, func(a, b machineWrite) int { return compareVersions(a.RV, b.RV) })
	var out []time.Duration
	var previous *v1alpha1.LastOperation
	since := map[typeState]time.Time{}
	for _, w := range stored {
		if w.Writer == writerOurs {
			ps := ourPatches([]machineWrite{w})
			if len(ps) == 0 || ps[0].Kept.Type == "" {
				continue
			}
			ts := typeState{ps[0].Kept.Type, ps[0].Kept.State}
			if at, ok := since[ts]; ok && ts != typeStateOf(previous) {
				out = append(out, w.Complete.Sub(at))
			}
			previous, since = ps[0].Kept.operation(), map[typeState]time.Time{}
			continue
		}
		if w.Response == nil {
			continue
		}
		_, op := aggregate.ClusterAPIMachineStatus(w.Response, previous, false, w.Complete)
		if ts := typeStateOf(op); ts != typeStateOf(previous) {
			if _, ok := since[ts]; !ok {
				since[ts] = w.Complete
			}
		}
	}
	return out
}
