package describe

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// DefaultChunkSize is --chunk-size's default: LISTs are paged by this many objects, as kubectl
// get pages them.
const DefaultChunkSize = 500

// Machine is one Machine read from the server: exactly one of the fields is set.
type Machine struct {
	// Machinestatus is a machines.machinestatus.io/v1alpha1 Machine.
	Machinestatus *v1alpha1.Machine
	// ClusterAPI is a machines.cluster.x-k8s.io/v1beta2 Machine.
	ClusterAPI *clusterv1.Machine
}

// object returns the Machine as a metav1.Object.
func (m Machine) object() metav1.Object {
	if m.ClusterAPI != nil {
		return m.ClusterAPI
	}
	return m.Machinestatus
}

// api returns the Machine API m belongs to.
func (m Machine) api() schema.GroupVersionResource {
	if m.ClusterAPI != nil {
		return ClusterAPIMachines
	}
	return MachinestatusMachines
}

// scheme holds the types the CLI decodes: both Machine APIs and Cluster API's other kinds.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.AddToScheme, clusterv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Query says where to look and how to read.
type Query struct {
	// Namespace is the namespace to read; ignored with AllNamespaces.
	Namespace string
	// AllNamespaces reads every namespace (only without names).
	AllNamespaces bool
	// Selector is a label selector for Targets without a name (e.g. "pool=a"); empty selects all.
	Selector string
	// ChunkSize pages each LIST (0: one request).
	ChunkSize int64
	// Raw reads *unstructured.Unstructured objects, exactly as the server returned them (for
	// -o json, yaml, name, templates); otherwise typed Machines.
	Raw bool
}

// Visit reads the Machines each target names (config gives the connection), target by target,
// each target's APIs in order, and calls fn with each one as it arrives, keeping nothing: a
// typed *v1alpha1.Machine or *clusterv1.Machine, or with q.Raw an *unstructured.Unstructured.
// Every Machine of an API is streamed (streamList); where the API server does not stream, and
// for named Machines, cli-runtime's resource.Builder reads them (a LIST paged by q.ChunkSize).
// A named Machine may exist in several of its target's APIs: each one found is visited.
//
// It returns a *NotFoundError when a named Machine exists in none of its target's APIs, a
// *NotInstalledError when none of a target's APIs is served (a 404 for the resource itself,
// e.g. a CRD removed since discovery was cached), fn's error, or the API server's error as it
// is (e.g. Forbidden: apierrors.IsForbidden reports it).
func Visit(ctx context.Context, config genericclioptions.RESTClientGetter, targets []Target, q Query, fn func(runtime.Object) error) error {
	for _, t := range targets {
		var installed []schema.GroupVersionResource
		found := false
		for _, api := range t.APIs {
			n, served, err := visitOne(ctx, config, api, t.Name, q, fn)
			if err != nil {
				return err
			}
			if served {
				installed = append(installed, api)
			}
			found = found || n > 0
		}
		switch {
		case len(installed) == 0:
			return notInstalled(t.APIs)
		case t.Name != "" && !found:
			ns := q.Namespace
			return &NotFoundError{Name: t.Name, Namespace: ns, Resources: apiNames(installed)}
		}
	}
	return nil
}

// visitOne visits the Machine name (every Machine matching q's selector when name is empty)
// of one API and returns how many it visited. served is false when the server answers 404 for
// the resource itself.
func visitOne(ctx context.Context, config genericclioptions.RESTClientGetter, api schema.GroupVersionResource, name string, q Query,
	fn func(runtime.Object) error) (n int, served bool, err error) {
	if name == "" {
		n, err := streamList(ctx, config, api, q, fn)
		if !errors.Is(err, errNotStreamed) {
			return n, true, err
		}
	}
	b := resource.NewBuilder(config)
	if q.Raw {
		b = b.Unstructured()
	} else {
		b = b.WithScheme(scheme, v1alpha1.GroupVersion, clusterv1.GroupVersion)
	}
	args := []string{api.Resource + "." + api.Version + "." + api.Group}
	if name != "" {
		args = append(args, name)
	}
	r := b.NamespaceParam(q.Namespace).DefaultNamespace().AllNamespaces(q.AllNamespaces && name == "").
		LabelSelectorParam(q.Selector).
		RequestChunksOf(q.ChunkSize).
		ResourceTypeOrNameArgs(true, args...).
		Do()
	// A page's items are visited straight from the list (not Flatten: it maps every item anew).
	err = r.Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		if info.Object == nil {
			return nil
		}
		if meta.IsListType(info.Object) {
			return meta.EachListItem(info.Object, func(obj runtime.Object) error {
				n++
				return fn(obj)
			})
		}
		n++
		return fn(info.Object)
	})
	if err == nil {
		return n, true, nil
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) && len(agg.Errors()) == 1 {
		err = agg.Errors()[0]
	}
	if apierrors.IsNotFound(err) {
		// The object's 404 names it; the resource's own 404 names nothing.
		var status apierrors.APIStatus
		objectMissing := errors.As(err, &status) && status.Status().Details != nil && status.Status().Details.Name != ""
		return n, objectMissing, nil
	}
	return n, false, err
}

// machineOf returns the Machine obj is: a typed Machine, or an unstructured one decoded.
func machineOf(obj runtime.Object) (Machine, error) {
	switch m := obj.(type) {
	case *v1alpha1.Machine:
		return Machine{Machinestatus: m}, nil
	case *clusterv1.Machine:
		return Machine{ClusterAPI: m}, nil
	case *unstructured.Unstructured:
		gv, err := schema.ParseGroupVersion(m.GetAPIVersion())
		if err != nil {
			return Machine{}, err
		}
		return convert(m, gv.WithResource("machines"))
	}
	return Machine{}, fmt.Errorf("cannot read a %T as a Machine", obj)
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
