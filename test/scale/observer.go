package scale

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

// observer watches Machines, Nodes and SimMachines and records, at the time each event is
// received, what the measurements need: every distinct status of every Machine, phase changes,
// Node Ready flips and when the infrastructure became provisioned.
type observer struct {
	mu sync.Mutex
	// statusChanges counts, per Machine, the distinct statuses it went through (each change of
	// status.* seen on the watch, the first non-empty status included).
	statusChanges map[string]int
	phase         map[string]v1alpha1.MachinePhase
	// phaseAt is when each Machine last reached each phase.
	phaseAt map[string]map[v1alpha1.MachinePhase]time.Time
	// nodeReadyAt is when each Node's Ready condition last changed to each status.
	nodeReadyAt map[string]map[corev1.ConditionStatus]time.Time
	provisioned map[string]time.Time

	cache cache.Cache
}

func newObserver(cfg *rest.Config, c client.Client, ns string) (*observer, error) {
	ca, err := cache.New(cfg, cache.Options{
		Scheme:            c.Scheme(),
		DefaultNamespaces: map[string]cache.Config{ns: {}},
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create the observer's cache: %w", err)
	}
	return &observer{
		statusChanges: map[string]int{}, phase: map[string]v1alpha1.MachinePhase{},
		phaseAt: map[string]map[v1alpha1.MachinePhase]time.Time{}, nodeReadyAt: map[string]map[corev1.ConditionStatus]time.Time{},
		provisioned: map[string]time.Time{}, cache: ca,
	}, nil
}

// start registers the handlers, starts the informers and waits for them to sync.
func (o *observer) start(ctx context.Context) error {
	handlers := []struct {
		obj client.Object
		h   toolscache.ResourceEventHandlerFuncs
	}{
		{&v1alpha1.Machine{}, toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.machine(nil, obj.(*v1alpha1.Machine)) },
			UpdateFunc: func(old, obj any) { o.machine(old.(*v1alpha1.Machine), obj.(*v1alpha1.Machine)) },
		}},
		{&corev1.Node{}, toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.node(nil, obj.(*corev1.Node)) },
			UpdateFunc: func(old, obj any) { o.node(old.(*corev1.Node), obj.(*corev1.Node)) },
		}},
		{&infrav1.SimMachine{}, toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.sim(obj.(*infrav1.SimMachine)) },
			UpdateFunc: func(_, obj any) { o.sim(obj.(*infrav1.SimMachine)) },
		}},
	}
	for _, h := range handlers {
		inf, err := o.cache.GetInformer(ctx, h.obj)
		if err != nil {
			return fmt.Errorf("cannot watch %T: %w", h.obj, err)
		}
		if _, err := inf.AddEventHandler(h.h); err != nil {
			return err
		}
	}
	go func() { _ = o.cache.Start(ctx) }()
	if !o.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("the observer's cache did not sync")
	}
	return nil
}

func (o *observer) machine(old, m *v1alpha1.Machine) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if old == nil && !equality.Semantic.DeepEqual(m.Status, v1alpha1.MachineStatus{}) ||
		old != nil && !equality.Semantic.DeepEqual(old.Status, m.Status) {
		o.statusChanges[m.Name]++
	}
	if p := m.Status.Phase; p != o.phase[m.Name] {
		o.phase[m.Name] = p
		if o.phaseAt[m.Name] == nil {
			o.phaseAt[m.Name] = map[v1alpha1.MachinePhase]time.Time{}
		}
		o.phaseAt[m.Name][p] = now
	}
}

func (o *observer) node(old, n *corev1.Node) {
	now := time.Now()
	s := readyStatus(n)
	if old != nil && readyStatus(old) == s {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.nodeReadyAt[n.Name] == nil {
		o.nodeReadyAt[n.Name] = map[corev1.ConditionStatus]time.Time{}
	}
	o.nodeReadyAt[n.Name][s] = now
}

func (o *observer) sim(s *infrav1.SimMachine) {
	if s.Status.Initialization == nil || s.Status.Initialization.Provisioned == nil || !*s.Status.Initialization.Provisioned {
		return
	}
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.provisioned[s.Name]; !ok {
		o.provisioned[s.Name] = now
	}
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// countPhase returns how many of names are in phase p.
func (o *observer) countPhase(names []string, p v1alpha1.MachinePhase) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, name := range names {
		if o.phase[name] == p {
			n++
		}
	}
	return n
}

// totalStatusChanges sums the distinct statuses of every Machine.
func (o *observer) totalStatusChanges() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.statusChanges {
		n += c
	}
	return n
}

// lastProvisioned returns when the last of names became provisioned, and how many have.
func (o *observer) lastProvisioned(names []string) (time.Time, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var last time.Time
	n := 0
	for _, name := range names {
		if t, ok := o.provisioned[name]; ok {
			n++
			if t.After(last) {
				last = t
			}
		}
	}
	return last, n
}

// countFlipped returns how many of the Nodes names were seen flipping to nodeStatus at or after
// since.
func (o *observer) countFlipped(names []string, nodeStatus corev1.ConditionStatus, since time.Time) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, name := range names {
		if t, ok := o.nodeReadyAt[name][nodeStatus]; ok && !t.Before(since) {
			n++
		}
	}
	return n
}

// latency is the time from Node name's Ready flip to nodeStatus until its Machine reached phase.
// The Nodes and the Machines come on two watches, each delivered in its own order: on a busy
// host the Machine's change may be received before the Node's that caused it. The phase cannot
// change before the flip, so the latency is then below what the observer resolves, counted as
// 0; it is not dropped.
func (o *observer) latency(name string, nodeStatus corev1.ConditionStatus, phase v1alpha1.MachinePhase) (time.Duration, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	flip, ok1 := o.nodeReadyAt[name][nodeStatus]
	reached, ok2 := o.phaseAt[name][phase]
	if !ok1 || !ok2 {
		return 0, false
	}
	return max(reached.Sub(flip), 0), true
}
