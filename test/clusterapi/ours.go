package clusterapi

import (
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// ourView is what machinestatus says about a Cluster API Machine: the lastOperation our manager
// keeps in the Machine's machinestatus.io/last-operation annotation, and the phase derived from
// the Machine with it (as `kubectl machinestatus get` and `describe` derive it).
type ourView struct {
	phase v1alpha1.MachinePhase
	op    *v1alpha1.LastOperation
	// settled is true once the manager has written what this version of the Machine gives:
	// deriving again with the annotation as the previous value returns the annotation.
	settled bool
}

// viewOf reads our view of m from what the manager wrote on it. A Machine the manager has not
// annotated yet (or whose annotation cannot be read) is not settled.
func viewOf(m *clusterv1.Machine) ourView {
	kept, err := aggregate.LastOperationFromAnnotations(m.Annotations)
	if err != nil || kept == nil {
		return ourView{}
	}
	phase, op := aggregate.ClusterAPIMachineStatus(m, kept, false, time.Time{})
	return ourView{phase: phase, op: kept, settled: apiequality.Semantic.DeepEqual(op, kept)}
}
