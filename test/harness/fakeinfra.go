package harness

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The FakeMachine kind is an infrastructure kind in the Cluster API group: any schema, a status
// subresource, written by the tests as its provider would.
const (
	InfraGroup = "infrastructure.cluster.x-k8s.io"
	InfraKind  = "FakeMachine"
)

// InfraGVK is the FakeMachine's group, version and kind.
var InfraGVK = schema.GroupVersionKind{Group: InfraGroup, Version: "v1beta2", Kind: InfraKind}

// FakeMachineCRD returns the FakeMachine CRD (namespaced, status subresource, any fields).
func FakeMachineCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "fakemachines." + InfraGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: InfraGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "fakemachines", Singular: "fakemachine", Kind: InfraKind, ListKind: InfraKind + "List",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: InfraGVK.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

// CreateInfra creates FakeMachine ns/name with spec and, when not nil, status.
func (e *Env) CreateInfra(t testing.TB, ns, name string, spec, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(InfraGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	e.Create(t, u)
	if status != nil {
		e.SetStatus(t, InfraGVK, ns, name, status)
	}
}

// GetInfra reads FakeMachine ns/name.
func (e *Env) GetInfra(t testing.TB, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(InfraGVK)
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// DeleteInfra deletes FakeMachine ns/name.
func (e *Env) DeleteInfra(t testing.TB, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(InfraGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := e.Client.Delete(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

// SetStatus replaces the status of the gvk object ns/name, as its provider would.
func (e *Env) SetStatus(t testing.TB, gvk schema.GroupVersionKind, ns, name string, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if err := e.Client.Status().Update(context.Background(), u); err != nil {
		t.Fatalf("update %s status: %v", gvk.Kind, err)
	}
}
