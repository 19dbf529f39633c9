package api

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/test/embedded"
	"github.com/machinestatus/machinestatus/test/harness"
)

// access is one (verb, group, resource[/subresource]) request; namespace "" is cluster-wide.
type access struct {
	verb, group, resource, namespace string
}

func (a access) String() string {
	ns := a.namespace
	if ns == "" {
		ns = "cluster-wide"
	}
	return fmt.Sprintf("%s %s.%s (%s)", a.verb, a.resource, a.group, ns)
}

// allowed asks the API server's authorizer (SubjectAccessReview, as the admin) whether
// harness.ManagerUser may do a.
func allowed(t *testing.T, a access) bool {
	t.Helper()
	res, sub, _ := strings.Cut(a.resource, "/")
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   harness.ManagerUser,
		Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: res, Subresource: sub, Namespace: a.namespace,
		},
	}}
	if err := k8s.Create(context.Background(), sar); err != nil {
		t.Fatalf("SubjectAccessReview %s: %v", a, err)
	}
	return sar.Status.Allowed
}

// TestManagerRBACIsEnforced checks what the API server lets harness.ManagerUser do: everything the
// controller needs, and nothing of a sample of what it must not do — through the authorizer
// and through real requests with the manager's credentials, which must get 403 Forbidden.
func TestManagerRBACIsEnforced(t *testing.T) {
	ns := env.Namespace(t)
	for _, a := range []access{
		{"list", v1alpha1.GroupVersion.Group, "machines", ""},
		{"watch", v1alpha1.GroupVersion.Group, "machines", ""},
		{"patch", v1alpha1.GroupVersion.Group, "machines/status", ns},
		{"watch", "", "nodes", ""},
		{"list", harness.InfraGroup, "fakemachines", ""},
		{"list", "bootstrap.cluster.x-k8s.io", "kubeadmconfigs", ""},
		{"create", "events.k8s.io", "events", ns},
		{"patch", "events.k8s.io", "events", ns},
		{"update", "coordination.k8s.io", "leases", harness.ManagerNamespace},
		{"create", "", "events", harness.ManagerNamespace},
		{"create", "authentication.k8s.io", "tokenreviews", ""},
		{"create", "authorization.k8s.io", "subjectaccessreviews", ""},
	} {
		if !allowed(t, a) {
			t.Errorf("%s is denied; the controller needs it", a)
		}
	}
	for _, a := range []access{
		{"update", v1alpha1.GroupVersion.Group, "machines", ns},
		{"patch", v1alpha1.GroupVersion.Group, "machines", ns},
		{"delete", v1alpha1.GroupVersion.Group, "machines", ns},
		{"update", v1alpha1.GroupVersion.Group, "machines/status", ns},
		{"get", v1alpha1.GroupVersion.Group, "machines/status", ns},
		{"create", "", "nodes", ""},
		{"patch", "", "nodes", ""},
		{"patch", "", "nodes/status", ""},
		{"get", "", "secrets", ns},
		{"list", "", "secrets", ""},
		{"list", "", "pods", ""},
		{"patch", harness.InfraGroup, "fakemachines", ns},
		{"update", harness.InfraGroup, "fakemachines/status", ns},
		{"list", "example.com", "examplemachines", ""},
		{"create", "", "events", ns},
		{"delete", "events.k8s.io", "events", ns},
		{"update", "coordination.k8s.io", "leases", ns},
		{"delete", "coordination.k8s.io", "leases", harness.ManagerNamespace},
		{"list", "coordination.k8s.io", "leases", harness.ManagerNamespace},
		{"create", "rbac.authorization.k8s.io", "clusterrolebindings", ""},
		{"create", "apiextensions.k8s.io", "customresourcedefinitions", ""},
		{"create", "authentication.k8s.io", "tokenrequests", ""},
		{"create", "", "serviceaccounts/token", ns},
	} {
		if allowed(t, a) {
			t.Errorf("%s is allowed; the manager's role must not grant it", a)
		}
	}

	// Real requests with the manager's credentials.
	c, err := client.New(managerConfig, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env.Create(t, harness.NewMachine(ns, "m"))
	m := &v1alpha1.Machine{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m"}, m); err != nil {
		t.Fatalf("the manager cannot read a Machine: %v", err)
	}
	m.Spec.ProviderID = "fake://changed"
	forbidden(t, "update a Machine's spec", c.Update(ctx, m))
	forbidden(t, "delete a Machine", c.Delete(ctx, m))
	forbidden(t, "create a Node", c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-rogue"}}))
	forbidden(t, "read a Secret", c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "any"}, &corev1.Secret{}))
	forbidden(t, "list Secrets", c.List(ctx, &corev1.SecretList{}))
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(harness.InfraGVK)
	u.SetNamespace(ns)
	u.SetName("rogue")
	forbidden(t, "create a FakeMachine", c.Create(ctx, u))
}

func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("the manager may %s: got %v, want 403 Forbidden", what, err)
	}
}

// TestLeaderElectionWithItsRole: the manager holds its Lease in harness.ManagerNamespace and records
// the "became leader" event there, with nothing but the leader election Role.
func TestLeaderElectionWithItsRole(t *testing.T) {
	ctx := context.Background()
	harness.Wait(t, time.Minute, "the manager's Lease", func(context.Context) (bool, string) {
		l := &coordinationv1.Lease{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: harness.ManagerNamespace, Name: leaderElectionID}, l); err != nil {
			return false, err.Error()
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return false, "no holder"
		}
		return true, ""
	})
	harness.Wait(t, time.Minute, "the LeaderElection event", func(context.Context) (bool, string) {
		evs := &corev1.EventList{}
		if err := k8s.List(ctx, evs, client.InNamespace(harness.ManagerNamespace)); err != nil {
			return false, err.Error()
		}
		for _, e := range evs.Items {
			if e.Reason == "LeaderElection" && e.InvolvedObject.Name == leaderElectionID {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events, none with reason LeaderElection", len(evs.Items))
	})
}

// TestRoleIsMinimal pins the rules of config/rbac: any widening (a verb, a resource, a group)
// has to change this list on purpose, and no rule may name every verb.
func TestRoleIsMinimal(t *testing.T) {
	roles, err := embedded.LoadRoles(rbac.Manifests)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cr := range roles.ClusterRoles {
		got = append(got, rules("ClusterRole "+cr.Name, cr.Rules)...)
	}
	for _, r := range roles.Roles {
		got = append(got, rules("Role "+r.Name, r.Rules)...)
	}
	slices.Sort(got)
	want := []string{
		"ClusterRole manager: apiextensions.k8s.io/customresourcedefinitions get",
		"ClusterRole manager: apiextensions.k8s.io/customresourcedefinitions list",
		"ClusterRole manager: apiextensions.k8s.io/customresourcedefinitions watch",
		"ClusterRole manager: bootstrap.cluster.x-k8s.io/* get",
		"ClusterRole manager: bootstrap.cluster.x-k8s.io/* list",
		"ClusterRole manager: bootstrap.cluster.x-k8s.io/* watch",
		"ClusterRole manager: core/nodes get",
		"ClusterRole manager: core/nodes list",
		"ClusterRole manager: core/nodes watch",
		"ClusterRole manager: events.k8s.io/events create",
		"ClusterRole manager: events.k8s.io/events patch",
		"ClusterRole manager: infrastructure.cluster.x-k8s.io/* get",
		"ClusterRole manager: infrastructure.cluster.x-k8s.io/* list",
		"ClusterRole manager: infrastructure.cluster.x-k8s.io/* watch",
		"ClusterRole manager: machinestatus.io/machines get",
		"ClusterRole manager: machinestatus.io/machines list",
		"ClusterRole manager: machinestatus.io/machines watch",
		"ClusterRole manager: machinestatus.io/machines/status patch",
		"ClusterRole metrics-auth: authentication.k8s.io/tokenreviews create",
		"ClusterRole metrics-auth: authorization.k8s.io/subjectaccessreviews create",
		"Role leader-election: coordination.k8s.io/leases create",
		"Role leader-election: coordination.k8s.io/leases get",
		"Role leader-election: coordination.k8s.io/leases update",
		"Role leader-election: core/events create",
		"Role leader-election: core/events patch",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("config/rbac grants\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// rules flattens policy rules into "<role>: <group>/<resource> <verb>" lines; resourceNames and
// nonResourceURLs are reported as such so that they fail the comparison.
func rules(role string, rs []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rs {
		if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
			out = append(out, fmt.Sprintf("%s: unexpected resourceNames %v / nonResourceURLs %v", role, r.ResourceNames, r.NonResourceURLs))
		}
		for _, g := range r.APIGroups {
			if g == "" {
				g = "core"
			}
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, fmt.Sprintf("%s: %s/%s %s", role, g, res, v))
				}
			}
		}
	}
	return out
}
