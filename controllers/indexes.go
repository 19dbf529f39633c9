package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/refs"
)

// Field indexes registered by SetupWithManager.
const (
	// nodeProviderIDIndex indexes Nodes by spec.providerID.
	nodeProviderIDIndex = "spec.providerID"
	// machineProviderIDIndex indexes Machines by spec.providerID and status.providerID.
	machineProviderIDIndex = "machinestatus.io/providerID"
	// machineNodeNameIndex indexes Machines by status.nodeRef.name.
	machineNodeNameIndex = "machinestatus.io/nodeName"
	// machineRefIndex indexes Machines by the objects they reference, as refKey values.
	machineRefIndex = "machinestatus.io/ref"
	// machineRefKindIndex indexes Machines by the group and kind of the objects they
	// reference, as groupKindKey values.
	machineRefKindIndex = "machinestatus.io/refKind"
)

// groupKindKey is the index value of a referenced kind.
func groupKindKey(gk schema.GroupKind) string { return gk.Group + "/" + gk.Kind }

// refKey is the index value of a referenced object in the Machine's namespace.
func refKey(group, kind, name string) string { return group + "/" + kind + "/" + name }

func setupIndexes(ctx context.Context, idx client.FieldIndexer) error {
	indexes := []struct {
		obj   client.Object
		field string
		fn    client.IndexerFunc
	}{
		{&corev1.Node{}, nodeProviderIDIndex, func(o client.Object) []string {
			if id := o.(*corev1.Node).Spec.ProviderID; id != "" {
				return []string{id}
			}
			return nil
		}},
		{&v1alpha1.Machine{}, machineProviderIDIndex, func(o client.Object) []string {
			m := o.(*v1alpha1.Machine)
			var out []string
			for _, id := range []string{m.Spec.ProviderID, m.Status.ProviderID} {
				if id != "" && (len(out) == 0 || out[0] != id) {
					out = append(out, id)
				}
			}
			return out
		}},
		{&v1alpha1.Machine{}, machineNodeNameIndex, func(o client.Object) []string {
			if ref := o.(*v1alpha1.Machine).Status.NodeRef; ref != nil {
				return []string{ref.Name}
			}
			return nil
		}},
		{&v1alpha1.Machine{}, machineRefIndex, func(o client.Object) []string {
			m := o.(*v1alpha1.Machine)
			ir := m.Spec.InfrastructureRef
			out := []string{refKey(ir.APIGroup, ir.Kind, ir.Name)}
			if b := m.Spec.Bootstrap; b != nil && b.ConfigRef != nil {
				out = append(out, refKey(b.ConfigRef.APIGroup, b.ConfigRef.Kind, b.ConfigRef.Name))
			}
			return out
		}},
		{&v1alpha1.Machine{}, machineRefKindIndex, func(o client.Object) []string {
			m := o.(*v1alpha1.Machine)
			ir := m.Spec.InfrastructureRef
			out := []string{groupKindKey(schema.GroupKind{Group: ir.APIGroup, Kind: ir.Kind})}
			if b := m.Spec.Bootstrap; b != nil && b.ConfigRef != nil {
				out = append(out, groupKindKey(schema.GroupKind{Group: b.ConfigRef.APIGroup, Kind: b.ConfigRef.Kind}))
			}
			return out
		}},
	}
	for _, i := range indexes {
		if err := idx.IndexField(ctx, i.obj, i.field, i.fn); err != nil {
			return fmt.Errorf("cannot index %T by %s: %w", i.obj, i.field, err)
		}
	}
	return refs.SetupIndexes(ctx, idx)
}
