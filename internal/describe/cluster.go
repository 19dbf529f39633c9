package describe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
)

// Cluster API's other resources the tree reads, at v1beta2.
var (
	clusterAPIClusters            = clusterv1.GroupVersion.WithResource("clusters")
	clusterAPIMachineDeployments  = clusterv1.GroupVersion.WithResource("machinedeployments")
	clusterAPIMachineSets         = clusterv1.GroupVersion.WithResource("machinesets")
	clusterAPIMachinePools        = clusterv1.GroupVersion.WithResource("machinepools")
	clusterAPIMachineHealthChecks = clusterv1.GroupVersion.WithResource("machinehealthchecks")
)

// Cluster API's labels naming a Machine's MachineSet and control plane.
const (
	setNameLabel          = "cluster.x-k8s.io/set-name"
	controlPlaneNameLabel = "cluster.x-k8s.io/control-plane-name"
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
	order := []string{"Create", "Update", "DrainNode", "HealthCheck", "Delete"}
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
		m, err := machineOf(obj)
		if err != nil {
			return err
		}
		d, err := Describe(m)
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
	now := o.now()
	pe := newPoolEvents()
	for _, l := range lines {
		pe.live[l.namespace+"/"+l.name] = l.key
		if l.poolName != "" {
			pe.pools[l.namespace+"/"+l.poolName] = l.key
		}
	}
	var failures map[string][]failureCount
	if client, err := o.dynamicClient(); err == nil {
		evs, err := listMachineEvents(ctx, client, r.namespace)
		if err != nil {
			fmt.Fprintf(o.streams.ErrOut, "warning: cannot read Events, recent failures are not counted: %v\n", err)
		}
		failures = pe.failures(evs, now.Add(-o.group.recent))
	}
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
		n := &treeNode{name: clean(titles[k])}
		n.cells[3] = poolSummary(byKey[k], 0, failures[k], o.group.recent)
		n.children = machineNodes(byKey[k], o.group.expand, now)
		roots = append(roots, n)
	}
	noHeaders := *o.printFlags.NoHeaders
	return writeTree(roots, noHeaders).write(o.streams.Out, noHeaders, useColor(o.color, o.streams.Out))
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
	list := func(gvr schema.GroupVersionResource) []unstructured.Unstructured {
		l, err := client.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			if !apierrors.IsNotFound(err) {
				fmt.Fprintf(o.streams.ErrOut, "warning: cannot list %s: %v\n", gvr.GroupResource(), err)
			}
			return nil
		}
		return l.Items
	}
	var mds []clusterv1.MachineDeployment
	for _, it := range list(clusterAPIMachineDeployments) {
		var md clusterv1.MachineDeployment
		if runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &md) == nil {
			mds = append(mds, md)
		}
	}
	var mss []clusterv1.MachineSet
	for _, it := range list(clusterAPIMachineSets) {
		var ms clusterv1.MachineSet
		if runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &ms) == nil {
			mss = append(mss, ms)
		}
	}
	var mps []clusterv1.MachinePool
	for _, it := range list(clusterAPIMachinePools) {
		var mp clusterv1.MachinePool
		if runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &mp) == nil {
			mps = append(mps, mp)
		}
	}
	cp, cpReplicas := o.controlPlane(ctx, client, namespace, cluster.Spec.ControlPlaneRef)

	type lineOfSet struct {
		machineLine
		set, cp string
	}
	var machines []lineOfSet
	r := resolved{namespace: namespace, targets: []Target{{APIs: []schema.GroupVersionResource{ClusterAPIMachines}}}}
	q := Query{Namespace: namespace, Selector: selector, ChunkSize: o.chunkSize}
	_ = r
	err = Visit(ctx, o.config, r.targets, q, func(obj runtime.Object) error {
		m, err := machineOf(obj)
		if err != nil {
			return err
		}
		d, err := Describe(m)
		if err != nil {
			return err
		}
		ls := m.object().GetLabels()
		machines = append(machines, lineOfSet{machineLine: lineOf(m, d, ""), set: ls[setNameLabel], cp: ls[controlPlaneNameLabel]})
		return nil
	})
	if err != nil {
		return err
	}

	now := o.now()
	pe := newPoolEvents()
	poolKey := func(kind, n string) string { return kind + "/" + n }
	for _, md := range mds {
		pe.pools[namespace+"/"+md.Name] = poolKey("MachineDeployment", md.Name)
	}
	for _, ms := range mss {
		if _, ok := pe.pools[namespace+"/"+ms.Name]; !ok {
			pe.pools[namespace+"/"+ms.Name] = poolKey("MachineSet", ms.Name)
		}
	}
	for _, mp := range mps {
		pe.pools[namespace+"/"+mp.Name] = poolKey("MachinePool", mp.Name)
	}
	if cp != "" {
		pe.pools[namespace+"/"+cp] = poolKey("ControlPlane", cp)
	}
	mdOfSet := map[string]string{}
	for _, ms := range mss {
		if md := ms.Labels["cluster.x-k8s.io/deployment-name"]; md != "" {
			mdOfSet[ms.Name] = md
		}
	}
	keyOf := func(l lineOfSet) string {
		switch {
		case l.cp != "":
			return poolKey("ControlPlane", l.cp)
		case l.pool != "" && slices.ContainsFunc(mds, func(md clusterv1.MachineDeployment) bool { return md.Name == l.pool }):
			return poolKey("MachineDeployment", l.pool)
		case l.pool != "" && slices.ContainsFunc(mps, func(mp clusterv1.MachinePool) bool { return mp.Name == l.pool }):
			return poolKey("MachinePool", l.pool)
		case l.set != "":
			if md := mdOfSet[l.set]; md != "" {
				return poolKey("MachineDeployment", md)
			}
			return poolKey("MachineSet", l.set)
		}
		return ""
	}
	byPool := map[string][]lineOfSet{}
	for _, l := range machines {
		k := keyOf(l)
		pe.live[namespace+"/"+l.name] = k
		byPool[k] = append(byPool[k], l)
	}
	var evs []eventRecord
	if evs, err = listMachineEvents(ctx, client, namespace); err != nil {
		fmt.Fprintf(o.streams.ErrOut, "warning: cannot read Events, recent failures are not counted: %v\n", err)
	}
	failures := pe.failures(evs, now.Add(-o.group.recent))
	lines := func(ls []lineOfSet) []machineLine {
		out := make([]machineLine, len(ls))
		for i, l := range ls {
			out[i] = l.machineLine
		}
		return out
	}

	all := lines(machines)
	root := &treeNode{name: "Cluster/" + clean(name)}
	root.cells[0] = cell{text: clean(cluster.Status.Phase)}
	root.cells[3] = poolSummary(all, 0, nil, o.group.recent)
	if cp != "" {
		k := poolKey("ControlPlane", cp)
		n := &treeNode{name: "ControlPlane/" + clean(cp)}
		n.cells[3] = poolSummary(lines(byPool[k]), cpReplicas, failures[k], o.group.recent)
		n.children = machineNodes(lines(byPool[k]), o.group.expand, now)
		root.children = append(root.children, n)
	}
	slices.SortFunc(mds, func(a, b clusterv1.MachineDeployment) int { return strings.Compare(a.Name, b.Name) })
	for _, md := range mds {
		k := poolKey("MachineDeployment", md.Name)
		n := &treeNode{name: "MachineDeployment/" + clean(md.Name)}
		var desired int32
		if md.Spec.Replicas != nil {
			desired = *md.Spec.Replicas
		}
		n.cells[3] = poolSummary(lines(byPool[k]), desired, failures[k], o.group.recent)
		sets := map[string][]lineOfSet{}
		var setNames []string
		for _, l := range byPool[k] {
			if _, ok := sets[l.set]; !ok {
				setNames = append(setNames, l.set)
			}
			sets[l.set] = append(sets[l.set], l)
		}
		if len(setNames) > 1 {
			slices.Sort(setNames)
			for _, s := range setNames {
				sn := &treeNode{name: "MachineSet/" + clean(orNone(s))}
				sn.cells[3] = poolSummary(lines(sets[s]), 0, nil, o.group.recent)
				sn.children = machineNodes(lines(sets[s]), o.group.expand, now)
				n.children = append(n.children, sn)
			}
		} else {
			n.children = machineNodes(lines(byPool[k]), o.group.expand, now)
		}
		root.children = append(root.children, n)
	}
	for _, ms := range mss {
		k := poolKey("MachineSet", ms.Name)
		if len(byPool[k]) == 0 && mdOfSet[ms.Name] != "" {
			continue
		}
		if mdOfSet[ms.Name] != "" {
			continue
		}
		n := &treeNode{name: "MachineSet/" + clean(ms.Name)}
		var desired int32
		if ms.Spec.Replicas != nil {
			desired = *ms.Spec.Replicas
		}
		n.cells[3] = poolSummary(lines(byPool[k]), desired, failures[k], o.group.recent)
		n.children = machineNodes(lines(byPool[k]), o.group.expand, now)
		root.children = append(root.children, n)
	}
	for _, mp := range mps {
		k := poolKey("MachinePool", mp.Name)
		n := &treeNode{name: "MachinePool/" + clean(mp.Name)}
		var desired int32
		if mp.Spec.Replicas != nil {
			desired = *mp.Spec.Replicas
		}
		n.cells[3] = poolSummary(lines(byPool[k]), desired, failures[k], o.group.recent)
		n.children = machineNodes(lines(byPool[k]), o.group.expand, now)
		root.children = append(root.children, n)
	}
	if others := byPool[""]; len(others) > 0 {
		n := &treeNode{name: "Other Machines"}
		n.cells[3] = poolSummary(lines(others), 0, nil, o.group.recent)
		n.children = machineNodes(lines(others), o.group.expand, now)
		root.children = append(root.children, n)
	}
	return writeTree([]*treeNode{root}, false).write(o.streams.Out, false, useColor(o.color, o.streams.Out))
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
