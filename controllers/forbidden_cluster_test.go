package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestForbiddenClusterScopedKind: an infrastructure kind that is cluster-scoped and not in the
// manager's role. A Role and RoleBinding in the Machine's namespace cannot grant it, so the
// Machine stays InfrastructureForbidden with a message advising a ClusterRole and a
// ClusterRoleBinding, never a RoleBinding; once those are created, it reads its object.
func TestForbiddenClusterScopedKind(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Cluster" + kindSuffix(utilrand.String(6)) + "Machine"}
	admin := crdRBACAdmin(t)
	crd := preservingCRD(gvk)
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	if err := admin.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), crd) }) // and its objects
	plural := crd.Spec.Names.Plural
	name := "c-" + strings.ToLower(utilrand.String(6))
	createLater(t, gvk, "", name, map[string]any{"initialization": map[string]any{"provisioned": true}})

	// What does not help: a Role and a RoleBinding in the Machine's namespace.
	rules := []rbacv1.PolicyRule{{APIGroups: []string{gvk.Group}, Resources: []string{plural}, Verbs: []string{"get", "list", "watch"}}}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: harness.ManagerUser}}
	for _, o := range []client.Object{
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reader"}, Rules: rules},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reader"}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"}},
	} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	m := harness.NewMachine(ns, "m")
	m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
	env.Create(t, m)
	msg := fmt.Sprintf("cannot read %s %s: RBAC forbids the manager to list and watch %s.%s (cluster-scoped); grant it get, list and watch on them with a ClusterRole and a ClusterRoleBinding (a RoleBinding cannot grant a cluster-scoped kind); checking again every 2s",
		gvk.Kind, name, plural, gvk.Group)
	waitCondition(t, ns, "m", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.MachineInfrastructureForbiddenReason || c.Message != msg {
			return c.Reason + ": " + c.Message
		}
		return ""
	})

	// What the message advises.
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(gvk.Kind) + "-reader"}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}}
	for _, o := range []client.Object{role, binding} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), o) })
	}
	env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseProvisioned)
}
