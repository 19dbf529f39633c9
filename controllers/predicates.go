package controllers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// nodeView is the part of a Node the status computation reads. Heartbeats (lastHeartbeatTime,
// leases, images, resource usage) are not part of it, so they trigger no reconcile.
type nodeView struct {
	ProviderID     string
	Unschedulable  bool
	KubeletVersion string
	Deleting       bool
	Conditions     []nodeConditionView
}

type nodeConditionView struct {
	Type, Status, Reason, Message string
	LastTransitionTime            int64
}

func viewOf(n *corev1.Node) nodeView {
	v := nodeView{
		ProviderID:     n.Spec.ProviderID,
		Unschedulable:  n.Spec.Unschedulable,
		KubeletVersion: n.Status.NodeInfo.KubeletVersion,
		Deleting:       n.DeletionTimestamp != nil,
	}
	for _, c := range n.Status.Conditions {
		v.Conditions = append(v.Conditions, nodeConditionView{
			string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Unix(),
		})
	}
	return v
}

// nodeChangePredicate passes Node creations and deletions, and updates that change what the
// status computation reads.
func nodeChangePredicate() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*corev1.Node)
			n, ok2 := e.ObjectNew.(*corev1.Node)
			if !ok1 || !ok2 {
				return true
			}
			return !equality.Semantic.DeepEqual(viewOf(o), viewOf(n))
		},
	}
}
