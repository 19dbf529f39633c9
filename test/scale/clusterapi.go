package scale

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/clusterapicrd"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// ClusterAPIResult holds the measurements of RunClusterAPI.
type ClusterAPIResult struct {
	N int
	// Convergence is from the first Machine's creation until every Machine's annotation says
	// Create Successful.
	Convergence time.Duration
	// Patches are the machines.cluster.x-k8s.io PATCH requests the API server served until then
	// (the manager's annotation writes; nothing else patches the Machines).
	Patches int
	// Rewrites are the status rewrites sent while steady, Reconciles the reconciles they caused,
	// IdleWrites the annotation patches meanwhile, over IdleWindow.
	Rewrites, Reconciles, IdleWrites int
	IdleWindow                       time.Duration
	// Manager memory before any Machine existed and after the rewrites, in bytes.
	RSSBaseline, RSS, HeapBaseline, Heap float64
}

// RunClusterAPI measures the manager's Cluster API mode (--machine-apis=cluster.x-k8s.io) with
// o.N Cluster API Machines on an embedded control plane serving Cluster API's own Machine CRD.
// Cluster API's controllers do not run: the harness plays them, creating each Machine and
// writing the status Cluster API writes once its Node is Ready; then, held steady for
// o.Steady, it rewrites every Machine's status in rounds as Cluster API does (addresses,
// nodeInfo, the Available condition's message) without changing its phase or lastOperation,
// and counts the annotation patches meanwhile. The manager runs as its own process with the
// RBAC of config/clusterapi.
func RunClusterAPI(ctx context.Context, o Options) (*ClusterAPIResult, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	crd, err := clusterapicrd.MachineCRD(root)
	if err != nil {
		return nil, err
	}
	env, err := harness.Start(harness.Options{
		Dir: fleet.InRoot(root, o.StateDir), CRDs: []*apiextensionsv1.CustomResourceDefinition{crd},
		AddToScheme: []func(*runtime.Scheme) error{clusterv1.AddToScheme}, QPS: 500, Burst: 1000,
	})
	if err != nil {
		return nil, err
	}
	defer env.Stop()
	roles, err := fleet.ClusterAPIManagerRoles()
	if err != nil {
		return nil, err
	}
	_, kubeconfig, err := env.GrantManager(ctx, roles)
	if err != nil {
		return nil, err
	}
	port, err := host.FreePort()
	if err != nil {
		return nil, err
	}
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	mgr, err := env.StartManager("manager", kubeconfig, "--machine-apis=cluster.x-k8s.io",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port), "--metrics-secure=false", "--health-probe-bind-address=0",
		fmt.Sprintf("--max-concurrent-reconciles=%d", max(o.MaxConcurrentReconciles, 1)),
		"--kube-api-qps=500", "--kube-api-burst=1000", "--zap-log-level=info", "--zap-devel=false")
	if err != nil {
		return nil, err
	}
	defer mgr.Stop(harness.ManagerStopGrace)
	fmt.Fprintf(o.Out, "kube-apiserver + etcd with Cluster API's Machine CRD; manager (pid %d, log %s) --machine-apis=cluster.x-k8s.io\n",
		mgr.Pid(), filepath.Join(o.StateDir, "manager.log"))

	c := env.Client

	res := &ClusterAPIResult{N: o.N}
	if err := harness.Poll(ctx, 2*time.Minute, func(context.Context) (bool, string) {
		_, err := goHeap(ctx, metricsURL)
		return err == nil, fmt.Sprint(err)
	}); err != nil {
		return nil, fmt.Errorf("waiting for the manager's metrics endpoint: %w", err)
	}
	time.Sleep(2 * time.Second) // let the manager finish starting before the baseline
	if res.RSSBaseline, err = rss(mgr.Pid()); err != nil {
		return nil, err
	}
	if res.HeapBaseline, err = goHeap(ctx, metricsURL); err != nil {
		return nil, err
	}
	patches0, err := machinePatches(ctx, env.Config)
	if err != nil {
		return nil, err
	}

	names := make([]string, o.N)
	for i := range names {
		names[i] = fmt.Sprintf("m-%05d", i)
	}
	fmt.Fprintf(o.Out, "creating %d Cluster API Machines and writing their Running status...\n", o.N)
	start := time.Now()
	if err := parallel(ctx, names, func(name string) error { return createRunning(ctx, c, name) }); err != nil {
		return nil, err
	}
	timeout := 60*time.Second + time.Duration(o.N)*60*time.Millisecond
	if err := harness.Poll(ctx, timeout, func(context.Context) (bool, string) {
		n, err := countCreated(ctx, c)
		return err == nil && n == o.N, fmt.Sprintf("%d of %d (%v)", n, o.N, err)
	}); err != nil {
		return nil, fmt.Errorf("waiting for every Machine's lastOperation to be Create Successful: %w", err)
	}
	res.Convergence = time.Since(start)
	fmt.Fprintf(o.Out, "all %d Machines Create Successful %.1fs after the first was created\n", o.N, res.Convergence.Seconds())
	time.Sleep(5 * time.Second) // let in-flight reconciles of the last changes finish
	patches1, err := machinePatches(ctx, env.Config)
	if err != nil {
		return nil, err
	}
	res.Patches = int(patches1 - patches0)

	reconciles0, err := reconciles(ctx, metricsURL)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "holding steady for %s, rewriting every Machine's status in rounds...\n", o.Steady)
	idleStart := time.Now()
	for round := 0; time.Since(idleStart) < o.Steady; round++ {
		if err := parallel(ctx, names, func(name string) error { return rewriteStatus(ctx, c, name, round) }); err != nil {
			return nil, err
		}
		res.Rewrites += len(names)
	}
	// Every rewrite reconciled: the manager's queue is empty and its reconcile count stands still.
	last := -1.0
	if err := harness.Poll(ctx, 5*time.Minute, func(context.Context) (bool, string) {
		n, err := reconciles(ctx, metricsURL)
		settled := err == nil && n == last
		last = n
		if !settled {
			time.Sleep(2 * time.Second)
		}
		return settled, fmt.Sprintf("%v reconciles (%v)", n, err)
	}); err != nil {
		return nil, fmt.Errorf("waiting for the manager to reconcile the rewrites: %w", err)
	}
	res.Reconciles = int(last - reconciles0)
	patches2, err := machinePatches(ctx, env.Config)
	if err != nil {
		return nil, err
	}
	res.IdleWrites, res.IdleWindow = int(patches2-patches1), time.Since(idleStart)
	if res.RSS, err = rss(mgr.Pid()); err != nil {
		return nil, err
	}
	if res.Heap, err = goHeap(ctx, metricsURL); err != nil {
		return nil, err
	}
	return res, nil
}

// parallel runs f for every name, 16 at a time, and returns the first error.
func parallel(ctx context.Context, names []string, f func(string) error) error {
	work := make(chan string)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				if err := f(name); err != nil {
					mu.Lock()
					first = cmpOr(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, n := range names {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		work <- n
	}
	close(work)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// createRunning creates the Cluster API Machine name and writes the status Cluster API writes
// once its Node is Ready.
func createRunning(ctx context.Context, c client.Client, name string) error {
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.MachineSpec{
			ClusterName: "scale",
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "SimMachine", Name: name,
			},
			ProviderID: "sim://" + name,
			Version:    "v1.36.3",
		},
	}
	if err := c.Create(ctx, m); err != nil {
		return fmt.Errorf("cannot create Machine %s: %w", name, err)
	}
	// A merge patch without a resourceVersion, as Cluster API's patch helper sends: the manager
	// may have annotated the Machine since its creation, which an update would conflict with.
	base := m.DeepCopy()
	fleet.SetClusterAPIRunning(&m.Status, name, metav1.NewTime(time.Now().Truncate(time.Second)))
	if err := c.Status().Patch(ctx, m, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("cannot write the status of Machine %s: %w", name, err)
	}
	return nil
}

// rewriteStatus rewrites what Cluster API rewrites without a change of phase or lastOperation:
// addresses, nodeInfo and the Available condition's message (a JSON merge patch of the status).
func rewriteStatus(ctx context.Context, c client.Client, name string, round int) error {
	patch := fmt.Sprintf(`{"status":{"addresses":[{"type":"InternalIP","address":"10.0.%d.%d"}],`+
		`"nodeInfo":{"kubeletVersion":"v1.36.%d","machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"",`+
		`"containerRuntimeVersion":"","kubeProxyVersion":"","operatingSystem":"linux","architecture":"amd64"}}}`,
		round%256, len(name)%256, round)
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := c.Status().Patch(ctx, m, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("cannot rewrite the status of Machine %s: %w", name, err)
	}
	return nil
}

// countCreated counts the Machines whose annotation holds Create Successful.
func countCreated(ctx context.Context, c client.Client) (int, error) {
	list := &clusterv1.MachineList{}
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	n := 0
	for i := range list.Items {
		op, err := aggregate.LastOperationFromAnnotations(list.Items[i].Annotations)
		if err == nil && op != nil && op.Type == v1alpha1.MachineOperationCreate && op.State == v1alpha1.MachineOperationStateSuccessful {
			n++
		}
	}
	return n, nil
}

// machinePatches reads the API server's apiserver_request_total: PATCH requests served on
// machines.cluster.x-k8s.io (not its status).
func machinePatches(ctx context.Context, cfg *rest.Config) (float64, error) {
	return apiserverRequests(ctx, cfg, func(l map[string]string) bool {
		return l["group"] == clusterv1.GroupVersion.Group && l["resource"] == "machines" && l["subresource"] == "" && l["verb"] == "PATCH"
	})
}

// reconciles reads controller_runtime_reconcile_total{controller="clusterapi-machine"}, all
// results, from the manager's metrics endpoint.
func reconciles(ctx context.Context, url string) (float64, error) {
	fams, err := metricstest.Fetch(ctx, nil, url, "")
	if err != nil {
		return 0, err
	}
	return fams.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterapi-machine"}), nil
}

// Goals checks the run against the idle-write target.
func (r *ClusterAPIResult) Goals() []Goal {
	growth := (r.RSS - r.RSSBaseline) / float64(max(r.N, 1))
	return []Goal{
		{"annotation writes ≤ 2 per Machine", fmt.Sprintf("%d for %d Machines", r.Patches, r.N), r.Patches <= 2*r.N},
		{"idle writes = 0 under status rewrites", fmt.Sprintf("%d for %d rewrites", r.IdleWrites, r.Rewrites), r.IdleWrites == 0 && r.Rewrites > 0},
		{"RSS growth ≤ 50 KB per Machine", fmt.Sprintf("%.1f KB", growth/1024), growth <= 50*1024},
	}
}

// Table renders the measurements as a Markdown table.
func (r *ClusterAPIResult) Table() string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	per := func(x int) string { return fmt.Sprintf("%d (%.2f per Machine)", x, float64(x)/float64(max(r.N, 1))) }
	fmt.Fprintf(&b, "| Cluster API mode, N = %d | |\n|---|---|\n", r.N)
	row("convergence (first Machine created → every annotation Create Successful)", fmt.Sprintf("%.1f s", r.Convergence.Seconds()))
	row("annotation patches meanwhile (API server's apiserver_request_total)", per(r.Patches))
	row("status rewrites while steady (Cluster API's role, no phase or lastOperation change)", fmt.Sprintf("%d in %s", r.Rewrites, r.IdleWindow.Round(time.Second)))
	row("reconciles they caused", per(r.Reconciles))
	row("annotation patches while steady (idle writes)", fmt.Sprint(r.IdleWrites))
	row("manager RSS (before any Machine → after the rewrites)", fmt.Sprintf("%.1f MB → %.1f MB", r.RSSBaseline/1e6, r.RSS/1e6))
	row("manager Go heap in use (before → after)", fmt.Sprintf("%.1f MB → %.1f MB", r.HeapBaseline/1e6, r.Heap/1e6))
	row("RSS / heap growth per Machine", fmt.Sprintf("%.1f KB / %.1f KB", (r.RSS-r.RSSBaseline)/float64(max(r.N, 1))/1024, (r.Heap-r.HeapBaseline)/float64(max(r.N, 1))/1024))
	return b.String()
}
