package deploy

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/config/clusterapi"
	"github.com/machinestatus/machinestatus/internal/embedded"
)

// TestClusterAPIOverlay renders config/clusterapi (the manager for Cluster API Machines only)
// and checks it: no machinestatus CRD or ClusterRole, the ClusterRole of config/clusterapi
// (the one test/clusterapimanager runs the manager with) bound to the manager's
// ServiceAccount, and --machine-apis=cluster.x-k8s.io.
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

	roles, err := embedded.LoadRoles(clusterapi.Manifests)
	if err != nil || len(roles.ClusterRoles) != 1 {
		t.Fatalf("config/clusterapi/role.yaml: %v, %d ClusterRoles", err, len(roles.ClusterRoles))
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
	if diff := cmp.Diff(roles.ClusterRoles[0].Rules, rendered.Rules); diff != "" {
		t.Errorf("rendered ClusterRole rules differ from config/clusterapi/role.yaml (-want +got):\n%s", diff)
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
