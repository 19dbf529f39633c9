package clusterapi

import (
	"context"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/watch"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ourView is what machinestatus says about a Cluster API Machine.
type ourView struct {
	phase v1alpha1.MachinePhase
	op    *v1alpha1.LastOperation
	// settled is true once our side has caught up with this version of the Machine.
	settled bool
}

// ourSide derives machinestatus's view of Cluster API Machines.
type ourSide interface {
	view(m *clusterv1.Machine) ourView
}

// deriver is our side in this process, as a manager without the annotation would be: it
// watches every Machine version and calls aggregate.ClusterAPIMachineStatus with the
// lastOperation it returned last time for the same Machine.
type deriver struct {
	mu       sync.Mutex
	previous map[string]*v1alpha1.LastOperation
	seen     map[string]string // resourceVersion last derived from, per Machine
}

// startDeriver watches Machines until ctx ends.
func startDeriver(ctx context.Context, c client.WithWatch) (*deriver, error) {
	w, err := c.Watch(ctx, &clusterv1.MachineList{}, client.InNamespace(namespace))
	if err != nil {
		return nil, err
	}
	d := &deriver{previous: map[string]*v1alpha1.LastOperation{}, seen: map[string]string{}}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			m, ok := ev.Object.(*clusterv1.Machine)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			d.mu.Lock()
			_, op := aggregate.ClusterAPIMachineStatus(m, d.previous[m.Name])
			d.previous[m.Name], d.seen[m.Name] = op, m.ResourceVersion
			d.mu.Unlock()
		}
	}()
	return d, nil
}

func (d *deriver) view(m *clusterv1.Machine) ourView {
	d.mu.Lock()
	defer d.mu.Unlock()
	phase, op := aggregate.ClusterAPIMachineStatus(m, d.previous[m.Name])
	return ourView{phase: phase, op: op, settled: d.seen[m.Name] == m.ResourceVersion &&
		apiequality.Semantic.DeepEqual(op, d.previous[m.Name])}
}

// annotations is our side as the manager keeps it (--machine-apis=cluster.x-k8s.io): the
// lastOperation in the Machine's annotation, the phase derived from the Machine with it.
type annotations struct{}

func (annotations) view(m *clusterv1.Machine) ourView {
	kept, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil || kept == nil {
		return ourView{}
	}
	phase, op := aggregate.ClusterAPIMachineStatus(m, kept)
	// Settled once the manager has written what this version of the Machine gives.
	return ourView{phase: phase, op: kept, settled: apiequality.Semantic.DeepEqual(op, kept)}
}

// ourSide returns our side: the manager's annotation when our manager runs as a process, else
// a deriver in this process.
func (h *harness) ourSide(ctx context.Context, manager bool) (ourSide, error) {
	if manager {
		return annotations{}, nil
	}
	wc, err := client.NewWithWatch(h.fleet.CP.Config, client.Options{Scheme: h.scheme})
	if err != nil {
		return nil, err
	}
	return startDeriver(ctx, wc)
}
