//go:build faults

package faults

import (
	"context"
	"fmt"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

// upKind is a provider kind of the version tests: its CRD's group, kind and plural.
type upKind struct{ group, kind, plural string }

var (
	upMachine = upKind{"infrastructure.cluster.x-k8s.io", "UpMachine", "upmachines"}
	upConfig  = upKind{"bootstrap.cluster.x-k8s.io", "UpConfig", "upconfigs"}
)

func (k upKind) crdName() string { return k.plural + "." + k.group }

// TestProviderAPIVersionChanges changes the API versions of a provider's infrastructure and
// bootstrap kinds while the manager runs, and checks that the Machines follow without a restart
// (package refs' documentation, "Versions from the CRD"):
//   - the instance: both CRDs serve only v1beta1 and up-1 is Provisioned; then v1beta2
//     becomes served and the storage version and v1beta1 is no longer served, up-1's UpMachine
//     reports failureReason HostLost and a new up-2 is ready: up-1 must turn Failed
//     (InfrastructureFailed) and up-2 Provisioned;
//   - the UpMachine CRD deleted: the Machines say KindNotServed, never the deleted objects' state;
//   - re-created (v1beta2 and v1beta3, the contract label naming v1beta2) with new objects: the
//     Machines follow them again;
//   - a kind served later: a Machine referencing a kind without a CRD says KindNotServed and
//     follows its objects once the CRD is installed.
func TestProviderAPIVersionChanges(t *testing.T) {
	fx := newFixture(t, "versions", 0)
	fx.allowErrors(managerlog.Allowed{Contains: "Failed to watch", Why: "the informer of a version the provider just stopped serving can fail a list before the CRD event stops it"})
	c := crdClient(t)
	for _, k := range []upKind{upMachine, upConfig} {
		applyUpCRD(t, c, k, []string{"v1beta1"}, "v1beta1", "")
	}
	up(t, "v1beta1", fx.name, "up-1", map[string]any{"ready": true})
	fx.startManager("")
	fx.waitPhases(map[string]string{"up-1": "Provisioned"})

	for _, k := range []upKind{upMachine, upConfig} {
		applyUpCRD(t, c, k, []string{"v1beta1", "v1beta2"}, "v1beta2", "v1beta1")
	}
	patchStatus(t, upMachine, "v1beta2", fx.name, "up-1", map[string]any{"ready": true, "failureReason": "HostLost", "failureMessage": "the host is gone"})
	up(t, "v1beta2", fx.name, "up-2", map[string]any{"ready": true})
	fx.waitPhases(map[string]string{"up-1": "Failed/InfrastructureFailed", "up-2": "Provisioned"})

	deleteCRD(t, c, upMachine)
	fx.waitPhases(map[string]string{"up-1": "*/InfrastructureKindNotServed", "up-2": "*/InfrastructureKindNotServed"})

	applyUpCRD(t, c, upMachine, []string{"v1beta2", "v1beta3"}, "v1beta3", "", "v1beta2")
	for _, name := range []string{"up-1", "up-2"} {
		createUp(t, upMachine, "v1beta2", fx.name, name, map[string]any{"ready": true})
	}
	fx.waitPhases(map[string]string{"up-1": "Provisioned", "up-2": "Provisioned"})

	later := upKind{"infrastructure.cluster.x-k8s.io", "LaterMachine", "latermachines"}
	createMachine(t, fx.name, "later-1", later, nil)
	fx.waitPhases(map[string]string{"later-1": "*/InfrastructureKindNotServed"})
	applyUpCRD(t, c, later, []string{"v1beta2"}, "v1beta2", "")
	createUp(t, later, "v1beta2", fx.name, "later-1", map[string]any{"ready": true})
	fx.waitPhases(map[string]string{"later-1": "Provisioned"})
}

// crdClient returns an admin client that knows CRDs.
func crdClient(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.CP.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// applyUpCRD creates or updates k's CRD to serve versions (every other listed version in the
// CRD is kept, not served, as a provider's upgrade leaves it), storing storage, with the
// Cluster API contract label cluster.x-k8s.io/v1beta1 = v1beta1Contract and
// cluster.x-k8s.io/v1beta2 = v1beta2Contract[0] when given. It waits until the CRD is
// established and every served version is being served.
func applyUpCRD(t *testing.T, c client.Client, k upKind, served []string, storage, v1beta1Contract string, v1beta2Contract ...string) {
	t.Helper()
	ctx := t.Context()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := c.Get(ctx, client.ObjectKey{Name: k.crdName()}, crd)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	exists := err == nil
	crd.Name = k.crdName()
	crd.Labels = map[string]string{}
	if v1beta1Contract != "" {
		crd.Labels["cluster.x-k8s.io/v1beta1"] = v1beta1Contract
	}
	if len(v1beta2Contract) > 0 {
		crd.Labels["cluster.x-k8s.io/v1beta2"] = v1beta2Contract[0]
	}
	crd.Spec.Group, crd.Spec.Scope = k.group, apiextensionsv1.NamespaceScoped
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Kind: k.kind, ListKind: k.kind + "List", Plural: k.plural, Singular: toLower(k.kind)}
	preserve := true
	versions := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		versions[v.Name] = false
	}
	for _, v := range served {
		versions[v] = true
	}
	crd.Spec.Versions = nil
	for _, v := range []string{"v1beta1", "v1beta2", "v1beta3"} {
		s, ok := versions[v]
		if !ok {
			continue
		}
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: s, Storage: v == storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", XPreserveUnknownFields: &preserve,
			}},
		})
	}
	if exists {
		err = c.Update(ctx, crd)
	} else {
		err = c.Create(ctx, crd)
	}
	if err != nil {
		t.Fatalf("cannot write CRD %s: %v", k.crdName(), err)
	}
	if err := harness.Poll(ctx, time.Minute, func(ctx context.Context) (bool, string) {
		for _, v := range served {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(schema.GroupVersionKind{Group: k.group, Version: v, Kind: k.kind + "List"})
			if err := env.Client.List(ctx, list, client.InNamespace("default")); err != nil {
				return false, fmt.Sprintf("%s %s: %v", k.kind, v, err)
			}
		}
		return true, ""
	}); err != nil {
		t.Fatal(err)
	}
}

func deleteCRD(t *testing.T, c client.Client, k upKind) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: k.crdName()}}
	if err := c.Delete(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	if err := harness.Poll(t.Context(), time.Minute, func(ctx context.Context) (bool, string) {
		err := c.Get(ctx, client.ObjectKeyFromObject(crd), crd)
		return apierrors.IsNotFound(err), fmt.Sprintf("CRD %s: %v", k.crdName(), err)
	}); err != nil {
		t.Fatal(err)
	}
}

// up creates UpMachine and UpConfig name at version v with status, and Machine name using both.
func up(t *testing.T, v, ns, name string, status map[string]any) {
	t.Helper()
	createUp(t, upMachine, v, ns, name, status)
	createUp(t, upConfig, v, ns, name, map[string]any{"ready": true, "dataSecretName": name + "-data"})
	createMachine(t, ns, name, upMachine, &upConfig)
}

// createUp creates object name of kind k at version v with status (no status subresource).
func createUp(t *testing.T, k upKind, v, ns, name string, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"status": status, "spec": map[string]any{"providerID": "fake://" + ns + "/" + name}}}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: k.group, Version: v, Kind: k.kind})
	u.SetNamespace(ns)
	u.SetName(name)
	if err := env.Client.Create(t.Context(), u); err != nil {
		t.Fatalf("cannot create %s %s at %s: %v", k.kind, name, v, err)
	}
}

func patchStatus(t *testing.T, k upKind, v, ns, name string, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: k.group, Version: v, Kind: k.kind})
	u.SetNamespace(ns)
	u.SetName(name)
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if err := env.Client.Update(t.Context(), u); err != nil {
		t.Fatal(err)
	}
}

// createMachine creates Machine name of the fixture's case referencing infra (and bootstrap).
func createMachine(t *testing.T, ns, name string, infra upKind, bootstrap *upKind) {
	t.Helper()
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{caseLabel: ns}},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infra.group, Kind: infra.kind, Name: name},
		},
	}
	if bootstrap != nil {
		m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: bootstrap.group, Kind: bootstrap.kind, Name: name}}
	}
	if err := env.Client.Create(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// waitPhases waits until every named Machine shows its want: "Phase" or
// "Phase/InfrastructureReady's reason" ("*" for any phase).
func (fx *fixture) waitPhases(want map[string]string) {
	fx.t.Helper()
	harness.Wait(fx.t, 2*time.Minute, fmt.Sprint("Machines ", want), func(ctx context.Context) (bool, string) {
		for _, name := range sortedKeys(want) {
			m := &v1alpha1.Machine{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: fx.name, Name: name}, m); err != nil {
				return false, err.Error()
			}
			got := string(m.Status.Phase)
			var reason, msg string
			for _, c := range m.Status.Conditions {
				if c.Type == v1alpha1.MachineInfrastructureReadyCondition {
					reason, msg = c.Reason, c.Message
				}
			}
			if w := want[name]; w != got && w != got+"/"+reason && w != "*/"+reason {
				return false, fmt.Sprintf("%s is %s/%s (%s), want %s", name, got, reason, msg, w)
			}
		}
		return true, ""
	})
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
