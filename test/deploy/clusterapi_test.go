package deploy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestClusterAPIOverlay renders config/clusterapi (the manager for Cluster API Machines only)
// and checks it: no machinestatus CRD or ClusterRole, a ClusterRole granting exactly what the
// Cluster API mode needs (a list written here) bound to the manager's ServiceAccount, and
// --machine-apis=cluster.x-k8s.io.
func TestClusterAPIOverlay(t *testing.T) {
	objs := renderDir(t, "config/clusterapi")
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind()+" "+o.GetName())
	}
	slices.Sort(kinds)
	want := []string{
		"ClusterRole machinestatus-manager-clusterapi",
		"ClusterRoleBinding machinestatus-manager-clusterapi",
		"Deployment machinestatus-manager",
		"Namespace machinestatus-system",
		"Role machinestatus-leader-election",
		"RoleBinding machinestatus-leader-election",
		"ServiceAccount machinestatus-manager",
	}
	// Objects other helpers may add to config/default (a metrics Service, its RBAC) may be
	// there too; those above must be, and no CRD or machinestatus ClusterRole.
	for _, k := range want {
		if !slices.Contains(kinds, k) {
			t.Errorf("config/clusterapi lacks %s; renders %v", k, kinds)
		}
	}
	for _, k := range kinds {
		if k == "CustomResourceDefinition machines.machinestatus.io" || k == "ClusterRole machinestatus-manager" {
			t.Errorf("config/clusterapi renders %s", k)
		}
	}

	var rendered rbacv1.ClusterRole
	var binding rbacv1.ClusterRoleBinding
	var sa *unstructured.Unstructured
	for _, o := range objs {
		switch o.GetKind() + " " + o.GetName() {
		case "ClusterRole machinestatus-manager-clusterapi":
			fromUnstructured(t, o, &rendered)
		case "ClusterRoleBinding machinestatus-manager-clusterapi":
			fromUnstructured(t, o, &binding)
		case "ServiceAccount machinestatus-manager":
			sa = o
		}
	}
	// What the Cluster API mode does (controllers/clusterapi_*.go), written here, not read from
	// role.yaml: list, watch and get Cluster API Machines (its cache), patch them (the
	// annotation's merge patch), get a Cluster (is it being deleted, when a Machine's deletion
	// starts), and create and patch events (the events API's series). No status subresource,
	// no Nodes, no update or delete. test/clusterapimanager runs the
	// manager under role.yaml itself; this checks what kustomize renders from it.
	wantGrants := []string{
		"cluster.x-k8s.io/clusters get", "cluster.x-k8s.io/machines get", "cluster.x-k8s.io/machines list", "cluster.x-k8s.io/machines patch",
		"cluster.x-k8s.io/machines watch", "events.k8s.io/events create", "events.k8s.io/events patch",
	}
	if diff := cmp.Diff(wantGrants, grants(rendered.Rules)); diff != "" {
		t.Errorf("what the rendered ClusterRole %s grants (-want +got):\n%s", rendered.Name, diff)
	}
	if sa == nil || len(binding.Subjects) != 1 || binding.Subjects[0].Kind != "ServiceAccount" ||
		binding.Subjects[0].Name != sa.GetName() || binding.Subjects[0].Namespace != sa.GetNamespace() ||
		binding.RoleRef.Name != rendered.Name {
		t.Errorf("the ClusterRoleBinding %+v does not bind %s to the manager's ServiceAccount", binding, rendered.Name)
	}
	deployment := find(t, objs, "Deployment")
	containers, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
	args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	if !slices.Contains(args, "--machine-apis=cluster.x-k8s.io") {
		t.Errorf("the manager's args %v lack --machine-apis=cluster.x-k8s.io", args)
	}
}

// grants flattens rules to sorted "group/resource verb" (resource names appended in
// parentheses) and "URL verb" strings, one per verb and object, so that rules are compared
// whatever their grouping and order.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		names := ""
		if len(r.ResourceNames) > 0 {
			names = " (" + strings.Join(r.ResourceNames, ",") + ")"
		}
		for _, v := range r.Verbs {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					out = append(out, fmt.Sprintf("%s/%s %s%s", g, res, v, names))
				}
			}
			for _, u := range r.NonResourceURLs {
				out = append(out, u+" "+v)
			}
		}
	}
	slices.Sort(out)
	return out
}
