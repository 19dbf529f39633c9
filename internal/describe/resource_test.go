package describe

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mapper is a RESTMapper of a server that serves pods, both Machine APIs (Cluster API at
// v1beta1 and v1beta2) and, if withClusterAPI is false, no Cluster API at all.
func mapper(withClusterAPI bool, clusterAPIVersions ...string) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	m.Add(MachinestatusMachines.GroupVersion().WithKind("Machine"), meta.RESTScopeNamespace)
	if withClusterAPI {
		for _, v := range clusterAPIVersions {
			m.Add(ClusterAPIMachines.GroupResource().WithVersion(v).GroupVersion().WithKind("Machine"), meta.RESTScopeNamespace)
		}
	}
	return m
}

func TestParseArgs(t *testing.T) {
	both := []schema.GroupVersionResource{MachinestatusMachines, ClusterAPIMachines}
	ms := []schema.GroupVersionResource{MachinestatusMachines}
	capi := []schema.GroupVersionResource{ClusterAPIMachines}
	tests := []struct {
		name string
		args []string
		want []Target
	}{
		{"nothing: every Machine", nil, []Target{{APIs: both}}},
		{"machines", []string{"machines"}, []Target{{APIs: both}}},
		{"Machine, as a kind", []string{"Machine"}, []Target{{APIs: both}}},
		{"TYPE NAME...", []string{"machine", "a", "b"}, []Target{{APIs: both, Name: "a"}, {APIs: both, Name: "b"}}},
		{"TYPE/NAME...", []string{"machines.cluster.x-k8s.io/a", "machine.machinestatus.io/b"},
			[]Target{{APIs: capi, Name: "a"}, {APIs: ms, Name: "b"}}},
		{"group and version", []string{"machines.v1beta2.cluster.x-k8s.io/a"}, []Target{{APIs: capi, Name: "a"}}},
		{"machinestatus", []string{"machines.machinestatus.io"}, []Target{{APIs: ms}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseArgs(tt.args, mapper(true, "v1beta1", "v1beta2"))
			if err != nil {
				t.Fatalf("ParseArgs(%q) error = %v", tt.args, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseArgs(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	var usage *UsageError
	var notInstalled *NotInstalledError
	tests := []struct {
		name   string
		args   []string
		mapper meta.RESTMapper
		as     any
		want   string // how the message starts
	}{
		{"not a Machine", []string{"pods"}, mapper(true, "v1beta2"), &usage, `"pods" is pods, not a Machine`},
		{"unknown type", []string{"worker-0"}, mapper(true, "v1beta2"), &usage, `unknown resource type "worker-0"`},
		{"TYPE/NAME mixed with NAME", []string{"machine/a", "b"}, mapper(true, "v1beta2"), &usage, `"b" is not TYPE/NAME`},
		{"NAME with a slash", []string{"machine", "a/b"}, mapper(true, "v1beta2"), &usage, `"a/b" is not a Machine name`},
		{"empty name", []string{"machine/"}, mapper(true, "v1beta2"), &usage, `"machine/" is not TYPE/NAME`},
		{"a version describe does not read", []string{"machines.v1beta1.cluster.x-k8s.io"}, mapper(true, "v1beta1", "v1beta2"), &usage,
			"describe reads machines.cluster.x-k8s.io at v1beta2 only, not v1beta1"},
		{"Cluster API not installed", []string{"machines.cluster.x-k8s.io/a"}, mapper(false), &notInstalled,
			"the server does not serve machines.cluster.x-k8s.io: install Cluster API v1.11 or later"},
		{"Cluster API served at v1beta1 only", []string{"machines.cluster.x-k8s.io"}, mapper(true, "v1beta1"), &notInstalled,
			"the server does not serve machines.cluster.x-k8s.io: machines.cluster.x-k8s.io is served at v1beta1, describe reads v1beta2"},
		{"short name of an API not installed", []string{"ma/a"}, mapper(false), &notInstalled,
			"the server does not serve machines.cluster.x-k8s.io: install Cluster API v1.11 or later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArgs(tt.args, tt.mapper)
			if err == nil {
				t.Fatalf("ParseArgs(%q) = nil error, want %q", tt.args, tt.want)
			}
			if !errors.As(err, tt.as) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ParseArgs(%q) error = %T %q, want %T %q", tt.args, err, err, tt.as, tt.want)
			}
		})
	}
}

// With only machinestatus installed, "machine" means machinestatus Machines.
func TestParseArgsOneAPIInstalled(t *testing.T) {
	got, err := ParseArgs([]string{"machine/a"}, mapper(false))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Target{{APIs: []schema.GroupVersionResource{MachinestatusMachines}, Name: "a"}}, got); diff != "" {
		t.Errorf("ParseArgs (-want +got):\n%s", diff)
	}
}
