package controllers

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/status"
)

// statusApply is the part of a Machine this controller owns: the status fields it derives and
// the condition types it sets (see ownedTypes). Server-side apply with list-map semantics on
// status.conditions keeps every other writer's conditions.
type statusApply struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Status struct {
		Conditions         []metav1.Condition                 `json:"conditions"`
		Phase              v1alpha1.MachinePhase              `json:"phase,omitempty"`
		LastOperation      *v1alpha1.LastOperation            `json:"lastOperation,omitempty"`
		NodeRef            *v1alpha1.MachineNodeReference     `json:"nodeRef,omitempty"`
		HealthCheck        *v1alpha1.MachineHealthCheckStatus `json:"healthCheck,omitempty"`
		ProviderID         string                             `json:"providerID,omitempty"`
		ObservedGeneration int64                              `json:"observedGeneration,omitempty"`
	} `json:"status"`
}

// ownedStatus extracts the fields of m's status this controller owns, as an apply configuration.
func ownedStatus(m *v1alpha1.Machine) (*unstructured.Unstructured, error) {
	a := statusApply{}
	a.APIVersion = v1alpha1.GroupVersion.String()
	a.Kind = "Machine"
	a.Metadata.Name, a.Metadata.Namespace = m.Name, m.Namespace
	owned := status.OwnedTypes(m)
	a.Status.Conditions = []metav1.Condition{}
	for _, c := range m.Status.Conditions {
		if owned[c.Type] {
			a.Status.Conditions = append(a.Status.Conditions, c)
		}
	}
	a.Status.Phase = m.Status.Phase
	a.Status.LastOperation = m.Status.LastOperation
	a.Status.NodeRef = m.Status.NodeRef
	a.Status.HealthCheck = m.Status.HealthCheck
	a.Status.ProviderID = m.Status.ProviderID
	a.Status.ObservedGeneration = m.Status.ObservedGeneration
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&a)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the status of Machine %s/%s: %w", m.Namespace, m.Name, err)
	}
	return &unstructured.Unstructured{Object: u}, nil
}

// applyStatus writes the owned part of m's status with server-side apply and returns the
// resourceVersion the API server stored.
func (r *MachineReconciler) applyStatus(ctx context.Context, m *v1alpha1.Machine) (string, error) {
	u, err := ownedStatus(m)
	if err != nil {
		return "", err
	}
	err = r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		fieldOwner(r.FieldOwner), client.ForceOwnership)
	if err != nil {
		return "", fmt.Errorf("cannot apply the status of Machine %s/%s: %w", m.Namespace, m.Name, err)
	}
	return u.GetResourceVersion(), nil
}
