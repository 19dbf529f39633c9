package describe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Cluster API's other resources the tree reads, at v1beta2.
var (
	clusterAPIClusters            = clusterv1.GroupVersion.WithResource("clusters")
	clusterAPIMachineDeployments  = clusterv1.GroupVersion.WithResource("machinedeployments")
	clusterAPIMachineSets         = clusterv1.GroupVersion.WithResource("machinesets")
	clusterAPIMachinePools        = clusterv1.GroupVersion.WithResource("machinepools")
	clusterAPIMachineHealthChecks = clusterv1.GroupVersion.WithResource("machinehealthchecks")
)

// clusterArg returns NAME of describe's single argument cluster/NAME (or clusters/NAME,
// clusters.cluster.x-k8s.io/NAME).
func clusterArg(args []string) (string, bool) {
	if len(args) != 1 {
		return "", false
	}
	typ, name, ok := strings.Cut(args[0], "/")
	switch strings.ToLower(typ) {
	case "cluster", "clusters", "cl", "clusters.cluster.x-k8s.io", "cluster.cluster.x-k8s.io":
		return name, ok && name != ""
	}
	return "", false
}

// poolEvents assigns the recent failure Events of a namespace's Machines to pools, by the one
// rule of docs/cli.md: an Event about a Machine that still exists counts for that Machine's pool;
// about a Machine that is gone, for the pool its `related` object names (the manager sets it to
// the Machine's MachineDeployment, MachineSet or owner); without `related`, for the pool whose
// name followed by "-" starts the Machine's name (the longest such: Cluster API names a
// MachineSet's Machines so, and a MachineDeployment's MachineSets).
type poolEvents struct {
	// live maps a Machine's namespace/name to its pool key.
	live map[string]string
	// pools maps namespace/pool name to the pool key.
	pools map[string]string
}

func newPoolEvents() *poolEvents {
	return &poolEvents{live: map[string]string{}, pools: map[string]string{}}
}

// poolOf returns the key of e's pool, or "".
func (p *poolEvents) poolOf(e eventRecord) string {
	if k, ok := p.live[e.namespace+"/"+e.name]; ok {
		return k
	}
	if e.relatedName != "" {
		if k, ok := p.pools[e.namespace+"/"+e.relatedName]; ok {
			return k
		}
	}
	best, key := "", ""
	for nsName, k := range p.pools {
		ns, pool, _ := strings.Cut(nsName, "/")
		if ns == e.namespace && strings.HasPrefix(e.name, pool+"-") && len(pool) > len(best) {
			best, key = pool, k
		}
	}
	return key
}

// failures returns, per pool key, the Machines that recent (after since) failure Events say
// failed an operation, per operation in the order Create, Update, DrainNode, HealthCheck,
// Delete.
func (p *poolEvents) failures(evs []eventRecord, since time.Time) map[string][]failureCount {
	out := map[string][]failureCount{}
	for _, e := range evs {
		op := e.failedOperation()
		if op == "" || e.last.Before(since) {
			continue
		}
		key := p.poolOf(e)
		if key == "" {
			continue
		}
		fs := out[key]
		i := slices.IndexFunc(fs, func(f failureCount) bool { return f.op == op })
		if i < 0 {
			fs = append(fs, failureCount{op: op})
			i = len(fs) - 1
		}
		if !slices.Contains(fs[i].machines, e.name) {
			fs[i].machines = append(fs[i].machines, e.name)
		}
		out[key] = fs
	}
	order := v1alpha1.MachineOperationTypes()
	for k := range out {
		slices.SortFunc(out[k], func(a, b failureCount) int { return slices.Index(order, a.op) - slices.Index(order, b.op) })
	}
	return out
}

// groupedLine is a Machine's line with its group.
type groupedLine struct {
	machineLine
	key, title, poolName string
}

// runGrouped is get --group-by: every Machine read page by page into a line, grouped, with a
// summary per group and the recent failures Events record.
func (o *getOptions) runGrouped(ctx context.Context, r resolved) error {
	if err := checkGroupBy(o.group.by); err != nil {
		return err
	}
	_, labelKey, _ := strings.Cut(o.group.by, "=")
	var lines []groupedLine
	err := Visit(ctx, o.config, r.targets, o.query(r, false), func(obj runtime.Object) error {
		m, d, err := describeObject(obj)
		if err != nil {
			return err
		}
		l := lineOf(m, d, o.poolLabel)
		key, title := groupKey(l, o.group.by, map[string]string{labelKey: m.object().GetLabels()[labelKey]})
		if o.allNamespaces {
			title += " (namespace " + l.namespace + ")"
		}
		pool := ""
		switch o.group.by {
		case groupByPool:
			pool = l.pool
		case groupByOwner:
			_, pool, _ = strings.Cut(l.owner, "/")
		}
		lines = append(lines, groupedLine{machineLine: l, key: key, title: title, poolName: pool})
		return nil
	})
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		o.noMachinesFound(r.namespace)
		return nil
	}
	client, err := o.dynamicClient()
	if err != nil {
		return err
	}
	now := o.now()
	pe := newPoolEvents()
	for _, l := range lines {
		pe.live[l.namespace+"/"+l.name] = l.key
		if l.poolName != "" {
			pe.pools[l.namespace+"/"+l.poolName] = l.key
		}
	}
	failures := o.recentFailures(ctx, client, r.namespace, pe, now.Add(-o.group.recent))
	byKey := map[string][]machineLine{}
	titles := map[string]string{}
	var keys []string
	for _, l := range lines {
		if _, ok := byKey[l.key]; !ok {
			keys = append(keys, l.key)
			titles[l.key] = l.title
		}
		byKey[l.key] = append(byKey[l.key], l.machineLine)
	}
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(titles[a], titles[b]) })
	var roots []*treeNode
	for _, k := range keys {
		roots = append(roots, o.group.node(clean(titles[k]), byKey[k], 0, failures[k], now))
	}
	noHeaders := *o.printFlags.NoHeaders
	return writeTree(roots).write(o.streams.Out, noHeaders, useColor(o.color, o.streams.Out))
}

// recentFailures reads the Events about the Machines of namespace and returns pe.failures of
// those after since; Events that cannot be read are a warning on stderr.
func (o *listOptions) recentFailures(ctx context.Context, client dynamic.Interface, namespace string, pe *poolEvents,
	since time.Time) map[string][]failureCount {
	evs, err := listMachineEvents(ctx, client, namespace)
	if err != nil {
		fmt.Fprintf(o.streams.ErrOut, "warning: cannot read Events, recent failures are not counted: %v\n", err)
	}
	return pe.failures(evs, since)
}

// listAs lists the objects of gvr in namespace that selector selects, each decoded into a T
// (those that do not decode are skipped).
func listAs[T any](ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) ([]T, error) {
	list, err := client.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("cannot list %s: %w", gvr.GroupResource(), err)
	}
	var out []T
	for _, u := range list.Items {
		var t T
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t) == nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// describeCluster is describe cluster/NAME: the Cluster API cluster as a tree.
func (o *describeOptions) describeCluster(ctx context.Context, name string) error {
	if err := o.checkColor(); err != nil {
		return err
	}
	if o.output != OutputText {
		return &UsageError{Msg: "describe cluster/NAME prints a tree: -o text only"}
	}
	namespace, _, err := o.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	client, err := o.dynamicClient()
	if err != nil {
		return err
	}
	u, err := client.Resource(clusterAPIClusters).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("cluster %q not found in namespace %q (clusters.cluster.x-k8s.io)", name, namespace)
	case err != nil:
		return err
	}
	var cluster clusterv1.Cluster
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cluster); err != nil {
		return err
	}
	selector := aggregate.ClusterNameLabel + "=" + name
	mds, errMDs := listAs[clusterv1.MachineDeployment](ctx, client, clusterAPIMachineDeployments, namespace, selector)
	mss, errMSs := listAs[clusterv1.MachineSet](ctx, client, clusterAPIMachineSets, namespace, selector)
	mps, errMPs := listAs[clusterv1.MachinePool](ctx, client, clusterAPIMachinePools, namespace, selector)
	for _, err := range []error{errMDs, errMSs, errMPs} {
		if err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(o.streams.ErrOut, "warning: %v\n", err)
		}
	}
	cp, cpReplicas := o.controlPlane(ctx, client, namespace, cluster.Spec.ControlPlaneRef)

	var machines []machineLine
	targets := []Target{{APIs: []schema.GroupVersionResource{ClusterAPIMachines}}}
	q := Query{Namespace: namespace, Selector: selector, ChunkSize: o.chunkSize}
	err = Visit(ctx, o.config, targets, q, func(obj runtime.Object) error {
		m, d, err := describeObject(obj)
		if err != nil {
			return err
		}
		machines = append(machines, lineOf(m, d, ""))
		return nil
	})
	if err != nil {
		return err
	}

	// A pool's key is its Kind/name: the title of its node.
	pe := newPoolEvents()
	for _, md := range mds {
		pe.pools[namespace+"/"+md.Name] = "MachineDeployment/" + md.Name
	}
	mdOfSet := map[string]string{}
	for _, ms := range mss {
		if _, ok := pe.pools[namespace+"/"+ms.Name]; !ok {
			pe.pools[namespace+"/"+ms.Name] = "MachineSet/" + ms.Name
		}
		if md := ms.Labels[clusterv1.MachineDeploymentNameLabel]; md != "" {
			mdOfSet[ms.Name] = md
		}
	}
	for _, mp := range mps {
		pe.pools[namespace+"/"+mp.Name] = "MachinePool/" + mp.Name
	}
	if cp != "" {
		pe.pools[namespace+"/"+cp] = "ControlPlane/" + cp
	}
	keyOf := func(l machineLine) string {
		switch {
		case l.controlPlane != "":
			return "ControlPlane/" + l.controlPlane
		case l.pool != "" && slices.ContainsFunc(mds, func(md clusterv1.MachineDeployment) bool { return md.Name == l.pool }):
			return "MachineDeployment/" + l.pool
		case l.pool != "" && slices.ContainsFunc(mps, func(mp clusterv1.MachinePool) bool { return mp.Name == l.pool }):
			return "MachinePool/" + l.pool
		case l.set != "" && mdOfSet[l.set] != "":
			return "MachineDeployment/" + mdOfSet[l.set]
		case l.set != "":
			return "MachineSet/" + l.set
		}
		return ""
	}
	byPool := map[string][]machineLine{}
	for _, l := range machines {
		k := keyOf(l)
		pe.live[namespace+"/"+l.name] = k
		byPool[k] = append(byPool[k], l)
	}
	now := o.now()
	failures := o.recentFailures(ctx, client, namespace, pe, now.Add(-o.group.recent))
	pool := func(key string, desired int32) *treeNode {
		return o.group.node(clean(key), byPool[key], desired, failures[key], now)
	}

	root := &treeNode{name: "Cluster/" + clean(name)}
	root.cells[0] = cell{text: clean(cluster.Status.Phase)}
	root.cells[3] = poolSummary(machines, 0, nil, o.group.recent)
	if cp != "" {
		root.children = append(root.children, pool("ControlPlane/"+cp, cpReplicas))
	}
	slices.SortFunc(mds, func(a, b clusterv1.MachineDeployment) int { return strings.Compare(a.Name, b.Name) })
	for _, md := range mds {
		k := "MachineDeployment/" + md.Name
		n := pool(k, ptr.Deref(md.Spec.Replicas, 0))
		// A rollout's MachineSets, each under its deployment.
		sets := map[string][]machineLine{}
		for _, l := range byPool[k] {
			sets[l.set] = append(sets[l.set], l)
		}
		if len(sets) > 1 {
			n.children = nil
			for _, s := range slices.Sorted(maps.Keys(sets)) {
				n.children = append(n.children, o.group.node("MachineSet/"+clean(orNone(s)), sets[s], 0, nil, now))
			}
		}
		root.children = append(root.children, n)
	}
	for _, ms := range mss {
		if mdOfSet[ms.Name] == "" {
			root.children = append(root.children, pool("MachineSet/"+ms.Name, ptr.Deref(ms.Spec.Replicas, 0)))
		}
	}
	for _, mp := range mps {
		root.children = append(root.children, pool("MachinePool/"+mp.Name, ptr.Deref(mp.Spec.Replicas, 0)))
	}
	if others := byPool[""]; len(others) > 0 {
		root.children = append(root.children, o.group.node("Other Machines", others, 0, nil, now))
	}
	return writeTree([]*treeNode{root}).write(o.streams.Out, false, useColor(o.color, o.streams.Out))
}

// controlPlane returns the name and spec.replicas of the control plane ref names (any kind,
// read unstructured), or "" when there is none.
func (o *describeOptions) controlPlane(ctx context.Context, client dynamic.Interface, namespace string, ref clusterv1.ContractVersionedObjectReference) (string, int32) {
	if ref.Name == "" {
		return "", 0
	}
	mapper, err := o.config.ToRESTMapper()
	if err != nil {
		return ref.Name, 0
	}
	mapping, err := mapper.RESTMapping(schema.GroupKind{Group: ref.APIGroup, Kind: ref.Kind})
	if err != nil {
		return ref.Name, 0
	}
	u, err := client.Resource(mapping.Resource).Namespace(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return ref.Name, 0
	}
	replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	return ref.Name, int32(min(replicas, 1<<30)) //nolint:gosec // bounded above
}
