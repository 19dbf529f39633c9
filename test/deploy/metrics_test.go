package deploy

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestMetricsServiceRendered checks the rendered metrics endpoint: the manager serves HTTPS with
// authentication on :8443 (no --metrics-secure=false), the Service in its namespace selects the
// manager Pods and exposes port https 8443 onto that container port, and the RBAC: the manager's
// ServiceAccount is bound to exactly tokenreviews and subjectaccessreviews create (the filter's
// reviews), and the metrics-reader ClusterRole grants get on /metrics only and is bound to no one
// (scrapers bind it).
func TestMetricsServiceRendered(t *testing.T) {
	objs := render(t)
	d := &appsv1.Deployment{}
	fromUnstructured(t, find(t, objs, "Deployment"), d)
	c := d.Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--metrics-bind-address=:8443") {
		t.Errorf("args %q do not bind the metrics endpoint to :8443", c.Args)
	}
	for _, a := range c.Args {
		if a == "--metrics-secure=false" || a == "--metrics-secure=0" || a == "--enable-http2" {
			t.Errorf("args %q contain %s", c.Args, a)
		}
	}
	svc := &corev1.Service{}
	fromUnstructured(t, find(t, objs, "Service"), svc)
	type port struct {
		Name, Protocol string
		Port, Target   int32
	}
	var got []port
	for _, p := range svc.Spec.Ports {
		got = append(got, port{p.Name, string(p.Protocol), p.Port, portNumber(c, p.TargetPort)})
	}
	if d := cmp.Diff([]port{{"https", "TCP", 8443, 8443}}, got); d != "" {
		t.Errorf("Service %s ports (-want +got):\n%s", svc.Name, d)
	}
	if svc.Namespace != d.Namespace || svc.Name != "machinestatus-manager-metrics" {
		t.Errorf("Service %s/%s, want %s/machinestatus-manager-metrics", svc.Namespace, svc.Name, d.Namespace)
	}
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("Service selector %v does not select the manager Pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
	}

	sa := find(t, objs, "ServiceAccount")
	roles := map[string][]rbacv1.PolicyRule{}
	bound := map[string][]string{} // ClusterRole → subjects
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterRole":
			r := &rbacv1.ClusterRole{}
			fromUnstructured(t, o, r)
			roles[r.Name] = r.Rules
		case "ClusterRoleBinding":
			b := &rbacv1.ClusterRoleBinding{}
			fromUnstructured(t, o, b)
			for _, s := range b.Subjects {
				bound[b.RoleRef.Name] = append(bound[b.RoleRef.Name], s.Kind+" "+s.Namespace+"/"+s.Name)
			}
		}
	}
	wantRoles := map[string][]rbacv1.PolicyRule{
		"machinestatus-metrics-auth": {
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		},
		"machinestatus-metrics-reader": {{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
	for name, want := range wantRoles {
		if d := cmp.Diff(want, roles[name]); d != "" {
			t.Errorf("ClusterRole %s rules (-want +got):\n%s", name, d)
		}
	}
	manager := fmt.Sprintf("ServiceAccount %s/%s", sa.GetNamespace(), sa.GetName())
	if d := cmp.Diff([]string{manager}, bound["machinestatus-metrics-auth"]); d != "" {
		t.Errorf("machinestatus-metrics-auth bound to (-want +got):\n%s", d)
	}
	if got := bound["machinestatus-metrics-reader"]; len(got) != 0 {
		t.Errorf("machinestatus-metrics-reader is bound to %v; only scrapers may be", got)
	}
}

// checkMetricsAccess asks the API server (SubjectAccessReviews, as the admin), once
// config/default is applied, what the manager's ServiceAccount and a scraper may do about
// metrics: the manager may review tokens and access but not read /metrics; a ServiceAccount
// bound to machinestatus-metrics-reader may get /metrics and nothing else asked here.
func checkMetricsAccess(t *testing.T, ctx context.Context, objs []*unstructured.Unstructured) {
	t.Helper()
	sa := find(t, objs, "ServiceAccount")
	managerUser := "system:serviceaccount:" + sa.GetNamespace() + ":" + sa.GetName()
	scraper := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sa.GetNamespace(), Name: "test-scraper"}}
	if err := k8s.Create(ctx, scraper); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), scraper) })
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-scraper-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "machinestatus-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: scraper.Namespace, Name: scraper.Name}},
	}
	if err := k8s.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), binding) })
	scraperUser := "system:serviceaccount:" + scraper.Namespace + ":" + scraper.Name

	type ask struct{ user, what string }
	review := func(a ask) bool {
		spec := authorizationv1.SubjectAccessReviewSpec{User: a.user, Groups: []string{"system:authenticated", "system:serviceaccounts"}}
		switch a.what {
		case "get /metrics":
			spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/metrics"}
		case "create tokenreviews":
			spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: "create", Group: "authentication.k8s.io", Resource: "tokenreviews"}
		case "create subjectaccessreviews":
			spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: "create", Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}
		default:
			t.Fatalf("unknown question %q", a.what)
		}
		sar := &authorizationv1.SubjectAccessReview{Spec: spec}
		if err := k8s.Create(ctx, sar); err != nil {
			t.Fatalf("SubjectAccessReview %v: %v", a, err)
		}
		return sar.Status.Allowed
	}
	want := map[ask]bool{
		{managerUser, "create tokenreviews"}:         true,
		{managerUser, "create subjectaccessreviews"}: true,
		{managerUser, "get /metrics"}:                false,
		{scraperUser, "get /metrics"}:                true,
		{scraperUser, "create tokenreviews"}:         false,
		{scraperUser, "create subjectaccessreviews"}: false,
	}
	got := map[ask]bool{}
	for a := range want {
		got[a] = review(a)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("access after applying config/default (-want +got):\n%s", d)
	}
}

func fromUnstructured(t *testing.T, u *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		t.Fatalf("%s: %v", describe(u), err)
	}
}
