package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

// badRefTimeout is generous: the machine running the tests is shared and slow.
const badRefTimeout = 90 * time.Second

// Limits of the Machine CRD a written status must stay within.
const (
	maxConditionMessage  = 32768
	maxDescription       = 1024
	maxForeignConditions = 3*1024 + 512 // a condition quoting another object: a few bounded parts
)

// TestBadInfrastructureStatus: for each malformed infrastructure status the Machine gets
// InfrastructureReady=Unknown with reason InfrastructureContractViolation and a bounded message
// naming the field, and once the provider fixes the object the Machine moves on. A broken entry of
// a conditions list is not a violation (conditions.FromUnstructured skips it):
// the adapter skips it and the rest of the object is read (field "": InfrastructureNotProvisioned).
func TestBadInfrastructureStatus(t *testing.T) {
	ns := env.Namespace(t)
	cases := []struct {
		name   string
		spec   map[string]any
		status map[string]any
		field  string // the start of the message after "FakeMachine <name> does not follow the contract: "; "" for a skipped entry
	}{
		{"provisioned is a string", nil, map[string]any{"initialization": map[string]any{"provisioned": "yes"}},
			"status.initialization.provisioned: must be a boolean, not a string"},
		{"ready is a number", nil, map[string]any{"ready": 1},
			"status.ready: must be a boolean, not a number"},
		{"initialization is a list", nil, map[string]any{"initialization": []any{true}},
			"status.initialization: must be an object, not a list"},
		{"providerID is a list", map[string]any{"providerID": []any{"a"}}, map[string]any{"ready": true},
			"spec.providerID: must be a string, not a list"},
		{"failureReason is an object", nil, map[string]any{"failureReason": map[string]any{"code": 7}},
			"status.failureReason: must be a string, not an object"},
		{"deprecated failureMessage is a boolean", nil, map[string]any{"deprecated": map[string]any{"v1beta1": map[string]any{"failureMessage": false}}},
			"status.deprecated.v1beta1.failureMessage: must be a string, not a boolean"},
		{"conditions is a string", nil, map[string]any{"ready": true, "conditions": "all good"},
			"status.conditions: must be a list, not a string"},
		{"conditions holds a number (skipped)", nil, map[string]any{"conditions": []any{42}}, ""},
		{"condition status is a number (skipped)", nil, map[string]any{"conditions": []any{map[string]any{
			"type": "Ready", "status": 1, "lastTransitionTime": "2026-05-01T12:00:00Z"}}}, ""},
		{"condition without lastTransitionTime (skipped)", nil, map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}}, ""},
		{"v1beta2 conditions is an object", nil, map[string]any{"v1beta2": map[string]any{"conditions": map[string]any{"Ready": true}}},
			"status.v1beta2.conditions: must be a list, not an object"},
		{"deeply nested junk where a boolean belongs", nil, map[string]any{"initialization": map[string]any{"provisioned": nested(200)}},
			"status.initialization.provisioned: must be a boolean, not an object"},
		{"huge string where a boolean belongs", nil, map[string]any{"ready": strings.Repeat("y", 512*1024)},
			"status.ready: must be a boolean, not a string"},
	}
	for i, tc := range cases {
		name := fmt.Sprintf("bad-%d", i)
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env.CreateInfra(t, ns, name, orEmpty(tc.spec), tc.status)
			env.Create(t, harness.NewMachine(ns, name))
			prefix := "FakeMachine " + name + " does not follow the contract: " + tc.field
			wantStatus, wantReason := metav1.ConditionUnknown, v1alpha1.MachineInfrastructureContractViolationReason
			if tc.field == "" {
				wantStatus, wantReason, prefix = metav1.ConditionFalse, v1alpha1.MachineInfrastructureNotProvisionedReason, ""
			}
			c := waitCondition(t, ns, name, v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
				if c.Status != wantStatus || c.Reason != wantReason {
					return string(c.Status) + " " + c.Reason + ": " + c.Message
				}
				if !strings.HasPrefix(c.Message, prefix) {
					return "message " + c.Message
				}
				return ""
			})
			if len(c.Message) > 1024 {
				t.Errorf("message of %d bytes, want at most 1024", len(c.Message))
			}

			// The provider fixes its object: the Machine moves on, nothing restarted.
			u := env.GetInfra(t, ns, name)
			spec := map[string]any{"providerID": "fake://" + ns + "/" + name}
			u.Object["spec"] = spec
			if err := k8s.Update(context.Background(), u); err != nil {
				t.Fatal(err)
			}
			env.SetStatus(t, harness.InfraGVK, ns, name, map[string]any{"initialization": map[string]any{"provisioned": true}})
			waitCondition(t, ns, name, v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
				if c.Reason != v1alpha1.MachineInfrastructureProvisionedReason {
					return c.Reason + ": " + c.Message
				}
				return ""
			})
			checkStatusLimits(t, env.GetMachine(t, ns, name))
		})
	}
}

// TestHugeMessagesFromReferencedObjects: a 1 MiB failureMessage or Ready condition message on
// the infrastructure object ends in bounded messages everywhere in the Machine's status.
func TestHugeMessagesFromReferencedObjects(t *testing.T) {
	ns := env.Namespace(t)
	huge := strings.Repeat("é", 512*1024) // 1 MiB of two-byte runes: a cut must respect UTF-8

	env.CreateInfra(t, ns, "failed", map[string]any{}, map[string]any{"failureReason": huge[:2048], "failureMessage": huge})
	env.Create(t, harness.NewMachine(ns, "failed"))
	m := env.WaitPhase(t, ns, "failed", v1alpha1.MachinePhaseFailed)
	if r := conditions.GetReason(m, v1alpha1.MachineInfrastructureReadyCondition); r != v1alpha1.MachineInfrastructureFailedReason {
		t.Fatalf("InfrastructureReady reason %q: %s", r, harness.Describe(m))
	}
	checkStatusLimits(t, m)

	env.CreateInfra(t, ns, "slow", map[string]any{}, map[string]any{
		"initialization": map[string]any{"provisioned": false},
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "Waiting", "message": huge, "lastTransitionTime": "2026-05-01T12:00:00Z",
		}},
	})
	env.Create(t, harness.NewMachine(ns, "slow"))
	// The object is created, then its status is set: wait for the status.
	waitCondition(t, ns, "slow", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Reason != v1alpha1.MachineInfrastructureNotProvisionedReason ||
			!strings.HasPrefix(c.Message, "FakeMachine slow is not provisioned yet: éé") || !strings.HasSuffix(c.Message, conditions.TruncationMarker) {
			return fmt.Sprintf("%s: %.100q…", c.Reason, c.Message)
		}
		return ""
	})
	checkStatusLimits(t, env.GetMachine(t, ns, "slow"))
}

// TestMissingReferencedObjects: a missing infrastructure object or bootstrap config is
// …DoesNotExist (Unknown), and creating it moves the Machine on.
func TestMissingReferencedObjects(t *testing.T) {
	ns := env.Namespace(t)
	m := harness.NewMachine(ns, "later")
	m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: harness.InfraGroup, Kind: harness.InfraKind, Name: "later-boot"}}
	env.Create(t, m)
	waitCondition(t, ns, "later", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.MachineInfrastructureDoesNotExistReason || c.Message != "FakeMachine later does not exist" {
			return c.Reason + ": " + c.Message
		}
		return ""
	})
	waitCondition(t, ns, "later", v1alpha1.MachineBootstrapConfigReadyCondition, func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.MachineBootstrapConfigDoesNotExistReason {
			return c.Reason + ": " + c.Message
		}
		return ""
	})

	env.CreateInfra(t, ns, "later-boot", map[string]any{}, map[string]any{"ready": "yes"})
	waitCondition(t, ns, "later", v1alpha1.MachineBootstrapConfigReadyCondition, func(c *metav1.Condition) string {
		if c.Reason != v1alpha1.MachineBootstrapConfigContractViolationReason ||
			c.Message != "FakeMachine later-boot does not follow the contract: status.ready: must be a boolean, not a string" {
			return c.Reason + ": " + c.Message
		}
		return ""
	})
	env.SetStatus(t, harness.InfraGVK, ns, "later-boot", map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": "later-data"})
	env.CreateInfra(t, ns, "later", map[string]any{"providerID": "fake://" + ns + "/later"}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	m = env.WaitPhase(t, ns, "later", v1alpha1.MachinePhaseProvisioned)
	if r := conditions.GetReason(m, v1alpha1.MachineBootstrapConfigReadyCondition); r != v1alpha1.MachineBootstrapDataSecretCreatedReason {
		t.Fatalf("BootstrapConfigReady reason %q: %s", r, harness.Describe(m))
	}
}

// TestKindInstalledLater: references to kinds the API server does not serve, one in a served
// group (infrastructure) and one in a group it does not know (bootstrap), are …KindNotServed;
// once the CRDs are installed the Machine moves on by itself, without a change to the Machine
// or a restart of the manager.
func TestKindInstalledLater(t *testing.T) {
	ns := env.Namespace(t)
	// Fresh kinds on every run (-count=N); the groups are those the manager's role may read.
	suffix := utilrand.String(6)
	infra := schema.GroupVersionKind{Group: harness.InfraGroup, Version: "v1beta2", Kind: "Late" + kindSuffix(suffix) + "Machine"}
	boot := schema.GroupVersionKind{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "Late" + kindSuffix(suffix) + "Config"}

	m := harness.NewMachine(ns, "late")
	m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: infra.Group, Kind: infra.Kind, Name: "late"}
	m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: boot.Group, Kind: boot.Kind, Name: "late"}}
	env.Create(t, m)
	crdScheme := runtime.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(crdScheme))
	crds, err := client.New(env.Config, client.Options{Scheme: crdScheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ condition, reason, kind, group string }{
		{v1alpha1.MachineInfrastructureReadyCondition, v1alpha1.MachineInfrastructureKindNotServedReason, infra.Kind, infra.Group},
		{v1alpha1.MachineBootstrapConfigReadyCondition, v1alpha1.MachineBootstrapConfigKindNotServedReason, boot.Kind, boot.Group},
	} {
		msg := fmt.Sprintf("cannot read %s late: the API server serves no kind %s in group %s (is its CRD installed?); checking again every 2s",
			want.kind, want.kind, want.group)
		waitCondition(t, ns, "late", want.condition, func(c *metav1.Condition) string {
			if c.Status != metav1.ConditionUnknown || c.Reason != want.reason || c.Message != msg {
				return c.Reason + ": " + c.Message
			}
			return ""
		})
	}
	if p := env.GetMachine(t, ns, "late").Status.Phase; p != v1alpha1.MachinePhasePending {
		t.Fatalf("phase %s, want Pending", p)
	}

	for _, gvk := range []schema.GroupVersionKind{infra, boot} {
		crd := preservingCRD(gvk)
		if err := crds.Create(context.Background(), crd); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = crds.Delete(context.Background(), crd) })
	}
	createLater(t, infra, ns, "late", map[string]any{"initialization": map[string]any{"provisioned": true}})
	createLater(t, boot, ns, "late", map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": "late-data"})

	var got *v1alpha1.Machine
	// The CRD watch notices each kind at once, possibly before its object exists: wait for both.
	harness.Wait(t, badRefTimeout, "the Machine to notice the new kinds", func(context.Context) (bool, string) {
		got = env.GetMachine(t, ns, "late")
		if got.Status.Phase != v1alpha1.MachinePhaseProvisioned ||
			conditions.GetReason(got, v1alpha1.MachineBootstrapConfigReadyCondition) != v1alpha1.MachineBootstrapDataSecretCreatedReason {
			return false, harness.Describe(got)
		}
		return true, ""
	})
	if r := conditions.GetReason(got, v1alpha1.MachineBootstrapConfigReadyCondition); r != v1alpha1.MachineBootstrapDataSecretCreatedReason {
		t.Fatalf("BootstrapConfigReady reason %q: %s", r, harness.Describe(got))
	}

	// The new kinds are watched: a change to the object reaches the Machine at once.
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(infra)
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "late"}, u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = map[string]any{"failureReason": "OutOfCapacity"}
	if err := k8s.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	env.WaitPhase(t, ns, "late", v1alpha1.MachinePhaseFailed)
}

// waitCondition waits until the Machine has a condition of type ct for which check returns "",
// and returns it.
func waitCondition(t *testing.T, ns, name, ct string, check func(*metav1.Condition) string) *metav1.Condition {
	t.Helper()
	var c *metav1.Condition
	harness.Wait(t, badRefTimeout, ct, func(context.Context) (bool, string) {
		m := env.GetMachine(t, ns, name)
		if c = conditions.Get(m, ct); c == nil {
			return false, harness.Describe(m)
		}
		if why := check(c); why != "" {
			return false, ct + " " + string(c.Status) + " " + why
		}
		return true, ""
	})
	return c
}

// checkStatusLimits fails when a status field is beyond the CRD's limits, or a condition message
// written from another object's text is beyond the controller's own bound.
func checkStatusLimits(t *testing.T, m *v1alpha1.Machine) {
	t.Helper()
	for _, c := range m.Status.Conditions {
		if err := conditions.Validate(c); err != nil {
			t.Errorf("condition %s: %v", c.Type, err)
		}
		if len(c.Message) > maxConditionMessage || len(c.Message) > maxForeignConditions {
			t.Errorf("condition %s: message of %d bytes", c.Type, len(c.Message))
		}
	}
	if op := m.Status.LastOperation; op != nil && len(op.Description) > maxDescription {
		t.Errorf("lastOperation.description of %d bytes", len(op.Description))
	}
}

// preservingCRD is a namespaced CRD for gvk with any schema and a status subresource.
func preservingCRD(gvk schema.GroupVersionKind) *apiextensionsv1.CustomResourceDefinition {
	crd := harness.FakeMachineCRD()
	plural := strings.ToLower(gvk.Kind) + "s"
	crd.Name = plural + "." + gvk.Group
	crd.Spec.Group = gvk.Group
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{
		Plural: plural, Singular: strings.ToLower(gvk.Kind), Kind: gvk.Kind, ListKind: gvk.Kind + "List",
	}
	crd.Spec.Versions[0].Name = gvk.Version
	return crd
}

// createLater creates an object of a kind whose CRD was just created, retrying until the API
// server serves it, and sets its status.
func createLater(t *testing.T, gvk schema.GroupVersionKind, ns, name string, status map[string]any) {
	t.Helper()
	// A providerID, as every provisioned infrastructure object reports one (harmless elsewhere).
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"providerID": "fake://" + ns + "/" + name}}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	harness.Wait(t, badRefTimeout, gvk.Kind+" served", func(context.Context) (bool, string) {
		if err := k8s.Create(context.Background(), u.DeepCopy()); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if err := k8s.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

// nested is an object nested depth levels deep.
func nested(depth int) map[string]any {
	m := map[string]any{"leaf": "junk"}
	for range depth {
		m = map[string]any{"a": m, "b": []any{1, "x", nil}}
	}
	return m
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// kindSuffix makes a random lower-case string usable inside a CamelCase kind.
func kindSuffix(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
