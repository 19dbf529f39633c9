package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestForbiddenKind: Machines whose infrastructure and bootstrap references name kinds the
// manager's role does not cover (group example.com, CRDs installed, objects present) get
// InfrastructureReady / BootstrapConfigReady Unknown with reasons InfrastructureForbidden /
// BootstrapConfigForbidden and a bounded message naming the resource, the namespace and what to
// grant. The
// manager sends no list or watch for those kinds (no informer that could only fail), and asks
// the API server about them at most once per retry interval however many Machines reference
// them; the Machines' other conditions are still reconciled. Once an admin grants read access,
// the Machines move on by themselves.
func TestForbiddenKind(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	suffix := kindSuffix(utilrand.String(6))
	infra := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Forbidden" + suffix + "Machine"}
	boot := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Forbidden" + suffix + "Config"}
	admin := crdRBACAdmin(t)
	for _, gvk := range []schema.GroupVersionKind{infra, boot} {
		crd := preservingCRD(gvk)
		if err := admin.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), crd) })
	}
	createLater(t, infra, ns, "fm", map[string]any{"initialization": map[string]any{"provisioned": true}})
	createLater(t, boot, ns, "fm", map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": "fm-data"})

	isReview := func(method, path string) bool {
		return method == "POST" && strings.HasSuffix(path, "/selfsubjectaccessreviews")
	}
	reviewsBefore, start := managerRequests.count(isReview), time.Now()
	const machines = 5
	for i := range machines {
		m := harness.NewMachine(ns, fmt.Sprintf("fm-%d", i))
		m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: infra.Group, Kind: infra.Kind, Name: "fm"}
		m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: boot.Group, Kind: boot.Kind, Name: "fm"}}
		env.Create(t, m)
	}
	infraPlural, bootPlural := strings.ToLower(infra.Kind)+"s", strings.ToLower(boot.Kind)+"s"
	for i := range machines {
		name := fmt.Sprintf("fm-%d", i)
		for _, want := range []struct{ condition, reason, plural string }{
			{v1alpha1.MachineInfrastructureReadyCondition, v1alpha1.MachineInfrastructureForbiddenReason, infraPlural},
			{v1alpha1.MachineBootstrapConfigReadyCondition, v1alpha1.MachineBootstrapConfigForbiddenReason, bootPlural},
		} {
			kind := infra.Kind
			if want.plural == bootPlural {
				kind = boot.Kind
			}
			msg := fmt.Sprintf("cannot read %s fm: RBAC forbids the manager to list and watch %s.example.com in namespace %s nor in all namespaces; grant it get, list and watch on them in %s (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 2s",
				kind, want.plural, ns, ns)
			waitCondition(t, ns, name, want.condition, func(c *metav1.Condition) string {
				if c.Status != metav1.ConditionUnknown || c.Reason != want.reason || c.Message != msg {
					return c.Reason + ": " + c.Message
				}
				return ""
			})
		}
		got := env.GetMachine(t, ns, name)
		checkStatusLimits(t, got)
		if got.Status.Phase != v1alpha1.MachinePhasePending {
			t.Fatalf("%s: phase %s, want Pending: %s", name, got.Status.Phase, harness.Describe(got))
		}
	}

	// Not stuck: a spec change of such a Machine is reconciled.
	env.UpdateMachine(t, ns, "fm-0", func(m *v1alpha1.Machine) { m.Spec.Standby = true })
	env.WaitPhase(t, ns, "fm-0", v1alpha1.MachinePhaseStandby)

	// No list or watch of the forbidden kinds was ever sent, and the access reviews stayed
	// within one pair (list, watch) per kind, scope (all namespaces, the Machines' namespace)
	// and retry interval, not one per Machine.
	kindRequests := func() int {
		return managerRequests.count(func(_, path string) bool {
			return strings.HasSuffix(path, "/"+infraPlural) || strings.HasSuffix(path, "/"+bootPlural)
		})
	}
	if n := kindRequests(); n != 0 {
		t.Fatalf("the manager sent %d requests for the forbidden kinds, want 0", n)
	}
	elapsed := time.Since(start)
	reviews := managerRequests.count(isReview) - reviewsBefore
	if limit := 2 * 2 * 2 * (int(elapsed/(2*time.Second)) + 2); reviews > limit {
		t.Fatalf("%d access reviews in %s for 2 kinds in 2 scopes (retried every 2s), want at most %d", reviews, elapsed.Round(time.Second), limit)
	}

	// The fix an operator applies: a ClusterRole reading the group, bound to the manager.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "example-reader-" + strings.ToLower(suffix)},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: harness.ManagerUser}},
	}
	for _, o := range []client.Object{role, binding} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), o) })
	}
	env.UpdateMachine(t, ns, "fm-0", func(m *v1alpha1.Machine) { m.Spec.Standby = false })
	for i := range machines {
		name := fmt.Sprintf("fm-%d", i)
		var got *v1alpha1.Machine
		harness.Wait(t, badRefTimeout, name+" to read its references once allowed", func(context.Context) (bool, string) {
			got = env.GetMachine(t, ns, name)
			if got.Status.Phase != v1alpha1.MachinePhaseProvisioned {
				return false, harness.Describe(got)
			}
			if r := conditions.GetReason(got, v1alpha1.MachineBootstrapConfigReadyCondition); r != v1alpha1.MachineBootstrapDataSecretCreatedReason {
				return false, harness.Describe(got)
			}
			return true, ""
		})
	}
	// The informers exist now, and their requests are counted: the zero above meant something.
	if n := kindRequests(); n == 0 {
		t.Fatal("no request for the kinds recorded after access was granted: the request log sees nothing")
	}
}

// crdRBACAdmin returns an admin client of CRDs and RBAC objects.
func crdRBACAdmin(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(rbacv1.AddToScheme(s))
	admin, err := client.New(env.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return admin
}
