package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestNamespacedGrant: an infrastructure kind the manager may read only through a RoleBinding in
// namespace A (a Role there, nothing cluster-wide).
//   - A Machine in A reads its object and follows its changes (a watch of that namespace: a
//     readable reference is not polled), while a Machine in B, where no grant exists, is
//     InfrastructureForbidden naming B. The manager never lists or watches the kind in all
//     namespaces, nor in B.
//   - The RoleBinding deleted (access revoked after the watch started): the Machine in A reports
//     InfrastructureForbidden naming A within the retry interval plus a reconcile (bounded by
//     badRefTimeout here, the interval being 2 s).
//   - The RoleBinding created again: the Machine in A reads its object again.
func TestNamespacedGrant(t *testing.T) {
	ctx := context.Background()
	a, b := env.Namespace(t), env.Namespace(t)
	infra, admin, binding := namespaceGrantedKind(t, a, "Granted", "v1")
	plural := strings.ToLower(infra.Kind) + "s"
	notProvisioned := map[string]any{"initialization": map[string]any{"provisioned": false}}
	for _, ns := range []string{a, b} {
		createLater(t, infra, ns, "m", notProvisioned)
		m := harness.NewMachine(ns, "m")
		m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: infra.Group, Kind: infra.Kind, Name: "m"}
		env.Create(t, m)
	}
	forbiddenIn := func(ns string) func(*metav1.Condition) string {
		msg := fmt.Sprintf("cannot read %s m: RBAC forbids the manager to list and watch %s.%s in namespace %s nor in all namespaces; grant it get, list and watch on them in %s (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (a ClusterRole and a ClusterRoleBinding); checking again every 2s",
			infra.Kind, plural, infra.Group, ns, ns)
		return func(c *metav1.Condition) string {
			if c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.MachineInfrastructureForbiddenReason || c.Message != msg {
				return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
			}
			return ""
		}
	}
	readable := func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.MachineInfrastructureNotProvisionedReason {
			return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
		}
		return ""
	}

	waitCondition(t, a, "m", v1alpha1.MachineInfrastructureReadyCondition, readable)
	waitCondition(t, b, "m", v1alpha1.MachineInfrastructureReadyCondition, forbiddenIn(b))
	// A change of the object in A reaches its Machine through the namespace's watch.
	env.SetStatus(t, infra, a, "m", map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.WaitPhase(t, a, "m", v1alpha1.MachinePhaseProvisioned)
	requests := func(where string) int {
		return managerRequests.count(func(method, path string) bool {
			return method == "GET" && strings.HasSuffix(path, where+"/"+plural)
		})
	}
	everywhere, inA, inB := "/apis/"+infra.Group+"/"+infra.Version, "/namespaces/"+a, "/namespaces/"+b
	if n := requests(everywhere); n != 0 {
		t.Errorf("%d list or watch requests for %s in all namespaces, want 0", n, plural)
	}
	if n := requests(inB); n != 0 {
		t.Errorf("%d list or watch requests for %s in %s (no grant), want 0", n, plural, b)
	}
	if n := requests(inA); n == 0 {
		t.Errorf("no list or watch request for %s in %s recorded: the request log sees nothing", plural, a)
	}

	// Revoked after the watch started.
	if err := admin.Delete(ctx, binding()); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, a, "m", v1alpha1.MachineInfrastructureReadyCondition, forbiddenIn(a))

	// Granted again.
	if err := admin.Create(ctx, binding()); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, a, "m", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
		}
		return ""
	})
}

// namespaceGrantedKind installs the CRD of a new namespaced kind of group example.com at
// version (its name starting with prefix), which the manager may read only in namespace ns (a
// Role and a RoleBinding there; nothing cluster-wide). It returns the kind, an admin client of
// CRDs and RBAC, and a function returning a new copy of the RoleBinding (to delete or create
// again). The CRD is deleted when the test ends.
func namespaceGrantedKind(t *testing.T, ns, prefix, version string) (schema.GroupVersionKind, client.Client, func() *rbacv1.RoleBinding) {
	t.Helper()
	ctx := context.Background()
	gvk := schema.GroupVersionKind{Group: "example.com", Version: version, Kind: prefix + kindSuffix(utilrand.String(6)) + "Machine"}
	admin := crdRBACAdmin(t)
	crd := preservingCRD(gvk)
	if err := admin.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), crd) })
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "infra-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{gvk.Group}, Resources: []string{crd.Spec.Names.Plural}, Verbs: []string{"get", "list", "watch"}}},
	}
	binding := func() *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manager-infra-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: harness.ManagerUser}},
		}
	}
	for _, o := range []client.Object{role, binding()} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return gvk, admin, binding
}
