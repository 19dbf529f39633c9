package describe

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// Machine is one Machine read from the server: exactly one of the fields is set.
type Machine struct {
	// Machinestatus is a machines.machinestatus.io/v1alpha1 Machine.
	Machinestatus *v1alpha1.Machine
	// ClusterAPI is a machines.cluster.x-k8s.io/v1beta2 Machine.
	ClusterAPI *clusterv1.Machine
}

// Query says where Fetch looks.
type Query struct {
	// Namespace is the namespace to read; empty means every namespace (only without names).
	Namespace string
	// Selector is a label selector for Targets without a name (e.g. "pool=a"); empty selects all.
	Selector string
}

// Fetch reads the Machines each target names through client, target by target, each target's
// APIs in order: a named Machine with GET (it may exist in several of the target's APIs; each
// one found is returned), every Machine with LIST (in the server's order, namespace then name).
//
// It returns a *NotFoundError when a named Machine exists in none of its target's APIs, a
// *NotInstalledError when none of a target's APIs is served (a 404 for the resource itself,
// e.g. a CRD removed since discovery was cached), or the API server's error as it is (e.g.
// Forbidden: apierrors.IsForbidden reports it). It never returns a partial result with an error.
func Fetch(ctx context.Context, client dynamic.Interface, targets []Target, q Query) ([]Machine, error) {
	var out []Machine
	for _, t := range targets {
		var found []Machine
		var installed []schema.GroupVersionResource
		for _, api := range t.APIs {
			machines, served, err := fetchOne(ctx, client.Resource(api).Namespace(q.Namespace), api, t.Name, q.Selector)
			if err != nil {
				return nil, err
			}
			if served {
				installed = append(installed, api)
			}
			found = append(found, machines...)
		}
		switch {
		case len(installed) == 0:
			return nil, notInstalled(t.APIs)
		case t.Name != "" && len(found) == 0:
			return nil, &NotFoundError{Name: t.Name, Namespace: q.Namespace, Resources: apiNames(installed)}
		}
		out = append(out, found...)
	}
	return out, nil
}

// fetchOne reads the Machine name (every Machine matching selector when name is empty) of
// one API. served is false when the server answers 404 for the resource itself.
func fetchOne(ctx context.Context, client dynamic.ResourceInterface, api schema.GroupVersionResource, name, selector string) (machines []Machine, served bool, err error) {
	if name == "" {
		list, err := client.List(ctx, metav1.ListOptions{LabelSelector: selector})
		switch {
		case apierrors.IsNotFound(err):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		}
		for i := range list.Items {
			m, err := convert(&list.Items[i], api)
			if err != nil {
				return nil, false, err
			}
			machines = append(machines, m)
		}
		return machines, true, nil
	}
	u, err := client.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// The object's 404 names it; the resource's own 404 names nothing.
		var status *apierrors.StatusError
		objectMissing := errors.As(err, &status) && status.ErrStatus.Details != nil && status.ErrStatus.Details.Name != ""
		return nil, objectMissing, nil
	case err != nil:
		return nil, false, err
	}
	m, err := convert(u, api)
	if err != nil {
		return nil, false, err
	}
	return []Machine{m}, true, nil
}

// convert decodes u, read from api, into its typed Machine.
func convert(u *unstructured.Unstructured, api schema.GroupVersionResource) (Machine, error) {
	var m Machine
	var into any
	switch api {
	case ClusterAPIMachines:
		m.ClusterAPI = &clusterv1.Machine{}
		into = m.ClusterAPI
	case MachinestatusMachines:
		m.Machinestatus = &v1alpha1.Machine{}
		into = m.Machinestatus
	default:
		return Machine{}, fmt.Errorf("cannot read %s: not a Machine API", api.GroupResource())
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), into); err != nil {
		return Machine{}, fmt.Errorf("cannot read %s %s/%s: %w", api.GroupResource(), u.GetNamespace(), u.GetName(), err)
	}
	return m, nil
}
