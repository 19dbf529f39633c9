// Command bench-cli measures `machinestatus get -A` and the pool view beside kubectl get for
// the same Machines: it starts the embedded control plane, creates Machines of both APIs in
// steps (e.g. 1000, then 5000 of each), and at each step runs each pair of commands
// interleaved, -runs times, reporting the median wall time and peak RSS (getrusage's maxrss)
// and their ratios, with the host's load average before and after. `make bench-cli N=5000` runs
// it; -write-docs records the table in docs/benchmarks.md (between <!-- cli begin --> and
// <!-- cli end -->). It asserts nothing. With -hold it only creates the Machines and keeps the
// control plane until interrupted, printing its kubeconfig: to profile a command against them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

func main() { os.Exit(run()) }

// pair is one comparison: our command and kubectl's for the same Machines.
type pair struct {
	name          string
	ours, kubectl []string
}

var pairs = []pair{
	{"get -A, both APIs", []string{"get", "-A"}, []string{"get", "machines.machinestatus.io,machines.cluster.x-k8s.io", "-A"}},
	{"get msm -A", []string{"get", "msm", "-A"}, []string{"get", "machines.machinestatus.io", "-A"}},
	{"get ma -A", []string{"get", "ma", "-A"}, []string{"get", "machines.cluster.x-k8s.io", "-A"}},
	{"get -A --group-by=pool", []string{"get", "-A", "--group-by=pool"}, []string{"get", "machines.machinestatus.io,machines.cluster.x-k8s.io", "-A"}},
}

// sample is one run's wall time and peak RSS.
type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

func run() int {
	n := flag.Int("n", 5000, "Machines of each API at the last step.")
	stepsFlag := flag.String("steps", "", "Comma-separated Machine counts per API to measure at, ending at -n (default: n/5 and n).")
	runs := flag.Int("runs", 5, "Runs of each command per step (interleaved).")
	writeDocs := flag.Bool("write-docs", false, "Record the table in docs/benchmarks.md.")
	hold := flag.Bool("hold", false, "Create the Machines of the last step, print the kubeconfig and keep the control plane until interrupted; measure nothing.")
	flag.Parse()
	steps := []int{max(1, *n/5), *n}
	if *stepsFlag != "" {
		steps = nil
		for _, s := range strings.Split(*stepsFlag, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			steps = append(steps, v)
		}
	}
	steps = slices.Compact(steps)
	if *hold {
		steps = steps[len(steps)-1:]
	}
	out, err := measure(steps, *runs, *hold)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-cli FAILED: %v\n", err)
		return 1
	}
	if *hold {
		return 0
	}
	fmt.Print(out)
	if *writeDocs {
		root, err := repo.Root()
		if err == nil {
			err = record(filepath.Join(root, "docs", "benchmarks.md"), out, *n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// measure runs the steps and returns the table; with hold, it creates the Machines of the
// steps and waits for an interrupt instead.
func measure(steps []int, runs int, hold bool) (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	cli, err := repo.Binary(root, "MACHINESTATUS_BIN", filepath.Join("bin", "machinestatus"))
	if err != nil {
		return "", err
	}
	crd, err := clusterapicrd.MachineCRD(root)
	if err != nil {
		return "", err
	}
	env, err := harness.Start(harness.Options{
		MachineCRD: true, CRDs: []*apiextensionsv1.CustomResourceDefinition{crd},
		AddToScheme: []func(*k8sruntime.Scheme) error{clusterv1.AddToScheme}, QPS: 2000, Burst: 4000,
	})
	if err != nil {
		return "", err
	}
	defer env.Stop()
	home := filepath.Join(env.Dir, "home")
	fixture, err := capiFixture(root)
	if err != nil {
		return "", err
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Machines of each API | command | machinestatus wall | kubectl wall | wall ratio | machinestatus peak RSS | kubectl peak RSS | RSS ratio\n")
	fmt.Fprintf(&b, "---|---|---|---|---|---|---|---\n")
	created := 0
	var loads []float64
	for _, step := range steps {
		start := time.Now()
		if err := createMachines(env, fixture, created, step); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "created %d Machines of each API in %s\n", step-created, time.Since(start).Round(time.Second))
		created = step
		if hold {
			fmt.Fprintf(os.Stderr, "KUBECONFIG=%s HOME=%s (Ctrl-C stops the control plane)\n", env.Kubeconfig, home)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			<-ctx.Done()
			stop()
			return "", nil
		}
		for _, p := range pairs {
			// Warm kubectl's discovery cache (HOME) for both.
			if _, err := runOnce(env.Kubeconfig, home, cli, p.ours); err != nil {
				return "", err
			}
			if _, err := runOnce(env.Kubeconfig, home, env.KubectlBin, p.kubectl); err != nil {
				return "", err
			}
			var ours, theirs []sample
			for r := range runs {
				loads = append(loads, loadAverage())
				first, second := cli, env.KubectlBin
				firstArgs, secondArgs := p.ours, p.kubectl
				if r%2 == 1 {
					first, second, firstArgs, secondArgs = second, first, secondArgs, firstArgs
				}
				s1, err := runOnce(env.Kubeconfig, home, first, firstArgs)
				if err != nil {
					return "", err
				}
				s2, err := runOnce(env.Kubeconfig, home, second, secondArgs)
				if err != nil {
					return "", err
				}
				if r%2 == 1 {
					s1, s2 = s2, s1
				}
				ours, theirs = append(ours, s1), append(theirs, s2)
			}
			o, k := median(ours), median(theirs)
			line := fmt.Sprintf("%d | `machinestatus %s` / `kubectl %s` | %.2f s | %.2f s | %.2f× | %d MiB | %d MiB | %.2f×\n",
				step, strings.Join(p.ours, " "), strings.Join(p.kubectl, " "),
				o.wall.Seconds(), k.wall.Seconds(), o.wall.Seconds()/k.wall.Seconds(),
				o.rss/1024, k.rss/1024, float64(o.rss)/float64(k.rss))
			fmt.Fprint(os.Stderr, line)
			b.WriteString(line)
		}
	}
	loads = append(loads, loadAverage())
	fmt.Fprintf(&b, "\nMedians of %d interleaved runs each; %d cores, %s; load average (1 min) %.1f–%.1f during the runs.\n",
		runs, runtime.NumCPU(), runtime.Version(), slices.Min(loads), slices.Max(loads))
	return b.String(), nil
}

// loadAverage returns the host's 1-minute load average (/proc/loadavg), or -1 when unreadable.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	first, _, _ := strings.Cut(string(b), " ")
	v, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return -1
	}
	return v
}

// median returns the median wall time and the median peak RSS of ss (each on its own).
func median(ss []sample) sample {
	walls := make([]time.Duration, len(ss))
	rss := make([]int64, len(ss))
	for i, s := range ss {
		walls[i], rss[i] = s.wall, s.rss
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return sample{wall: walls[len(walls)/2], rss: rss[len(rss)/2]}
}

// runOnce runs binary args with its output discarded and returns its wall time and peak RSS.
func runOnce(kubeconfig, home, binary string, args []string) (sample, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+home, "NO_COLOR=1")
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %w: %s", filepath.Base(binary), strings.Join(args, " "), err, stderr.String())
	}
	usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, errors.New("no rusage")
	}
	return sample{wall: wall, rss: usage.Maxrss}, nil
}

// capiFixture reads the running Cluster API Machine of conditions/testdata.
func capiFixture(root string) (*clusterv1.Machine, error) {
	b, err := os.ReadFile(filepath.Join(root, "conditions", "testdata", "adapters", "machine-v1beta2.yaml"))
	if err != nil {
		return nil, err
	}
	m := &clusterv1.Machine{}
	return m, yaml.Unmarshal(b, m)
}

// createMachines creates Machines from..to-1 of each API (with their status), spread over 10
// namespaces and 10 pools, on 16 workers.
func createMachines(env *harness.Env, fixture *clusterv1.Machine, from, to int) error {
	ctx := context.Background()
	for i := range 10 {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}}
		if err := env.Client.Create(ctx, ns); err != nil && !strings.Contains(err.Error(), "already exists") {
			return err
		}
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	jobs := make(chan int)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range jobs {
				if err := createPair(ctx, env, fixture, i, now); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := from; i < to; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// createPair creates Machine i of each API.
func createPair(ctx context.Context, env *harness.Env, fixture *clusterv1.Machine, i int, now metav1.Time) error {
	ns := fmt.Sprintf("bench-%d", i%10)
	pool := fmt.Sprintf("pool-%d", (i/10)%10)
	ours := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("worker-%05d", i), Labels: map[string]string{aggregate.DefaultPoolLabel: pool}},
		Spec: v1alpha1.MachineSpec{ProviderID: fmt.Sprintf("sim://worker-%05d", i), Version: "v1.36.3",
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: "infrastructure.machinestatus.io", Kind: "SimMachine", Name: fmt.Sprintf("worker-%05d", i)}},
	}
	if err := env.Client.Create(ctx, ours); err != nil {
		return err
	}
	c := func(t, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: now, ObservedGeneration: 1}
	}
	ours.Status.Conditions = []metav1.Condition{
		c(v1alpha1.MachineInfrastructureReadyCondition, v1alpha1.MachineInfrastructureProvisionedReason),
		c(v1alpha1.MachineNodeReadyCondition, v1alpha1.MachineNodeReadyReason),
		c(v1alpha1.MachineNodeHealthyCondition, v1alpha1.MachineNodeHealthyReason),
		c(v1alpha1.MachineHealthCheckSucceededCondition, v1alpha1.MachineHealthCheckSucceededReason),
	}
	ours.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: ours.Name}
	aggregate.Summarize(ours, time.Time{})
	if err := env.Client.Status().Update(ctx, ours); err != nil {
		return err
	}

	m := fixture.DeepCopy()
	m.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("prod-%d-md-%d-%05d", i%10, (i/10)%10, i), Labels: map[string]string{
		aggregate.ClusterNameLabel: fmt.Sprintf("prod-%d", i%10), "cluster.x-k8s.io/deployment-name": fmt.Sprintf("prod-%d-md-%d", i%10, (i/10)%10),
	}}
	m.Spec.ClusterName = fmt.Sprintf("prod-%d", i%10)
	for j := range m.Status.Conditions {
		m.Status.Conditions[j].LastTransitionTime = now
	}
	status := *m.Status.DeepCopy()
	if err := env.Client.Create(ctx, m); err != nil {
		return err
	}
	m.Status = status
	return env.Client.Status().Update(ctx, m)
}

// block matches the recorded section of docs/benchmarks.md.
var block = regexp.MustCompile(`(?s)<!-- cli begin[^>]*-->.*?<!-- cli end -->\n?`)

// record writes the table into path, replacing the block or appending it at the end.
func record(path, table string, n int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	section := fmt.Sprintf("<!-- cli begin (generated by `make bench-cli N=%d`; do not edit) -->\n%s<!-- cli end -->\n", n, table)
	var out string
	if block.Match(b) {
		out = block.ReplaceAllLiteralString(string(b), section)
	} else {
		out = strings.TrimRight(string(b), "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(out), 0o600)
}
