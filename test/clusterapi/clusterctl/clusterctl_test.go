package clusterctl

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/repository"

	"github.com/machinestatus/machinestatus/test/internal/repo"
)

const (
	version = "v0.1.0"
	image   = "registry.example.com/team/machinestatus-manager:" + version
)

// TestClusterctlReadsRepository declares machinestatus as an AddonProvider in a clusterctl
// configuration file pointing at `make clusterctl`'s local repository, and reads it with
// clusterctl's repository client: the versions, the metadata (release series 0.1 on contract
// v1beta2, which clusterctl checks the version against), the components processed as for
// `clusterctl init` (target namespace, images, every object labeled by clusterctl as the
// provider's), and the same repository refused under another provider's name.
func TestClusterctlReadsRepository(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	cmd := exec.CommandContext(ctx, "make", "-C", root, "--no-print-directory", "clusterctl", "DIST="+dist, "VERSION="+version, "RELEASE_IMG="+image)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("make clusterctl: %v\n%s", err, out.String())
	}
	// clusterctl reads its configuration and overrides from the home directory: a clean one.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	url := "file://" + filepath.Join(dist, "clusterctl", "addon-machinestatus", version, "addon-components.yaml")
	cfgFile := filepath.Join(home, "clusterctl.yaml")
	if err := os.WriteFile(cfgFile, []byte("providers:\n- name: machinestatus\n  url: "+url+"\n  type: AddonProvider\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.New(ctx, cfgFile)
	if err != nil {
		t.Fatalf("clusterctl config: %v", err)
	}
	provider, err := cfg.Providers().Get("machinestatus", clusterctlv1.AddonProviderType)
	if err != nil {
		t.Fatalf("clusterctl does not find the provider of %s: %v", cfgFile, err)
	}
	if provider.ManifestLabel() != "addon-machinestatus" {
		t.Errorf("provider label %q, want addon-machinestatus", provider.ManifestLabel())
	}
	r, err := repository.New(ctx, provider, cfg)
	if err != nil {
		t.Fatalf("clusterctl cannot open the repository: %v", err)
	}
	if versions, err := r.GetVersions(ctx); err != nil || !reflect.DeepEqual(versions, []string{version}) {
		t.Errorf("versions %q (%v), want [%s]", versions, err, version)
	}
	md, err := r.Metadata(version).Get(ctx)
	if err != nil {
		t.Fatalf("clusterctl cannot read metadata.yaml: %v", err)
	}
	series := md.GetReleaseSeriesForVersion(utilversion.MustParseSemantic(version))
	if series == nil || series.Contract != "v1beta2" {
		t.Errorf("metadata.yaml: release series of %s %+v, want contract v1beta2", version, series)
	}
	c, err := r.Components().Get(ctx, repository.ComponentsOptions{Version: version})
	if err != nil {
		t.Fatalf("clusterctl cannot read the components: %v", err)
	}
	if c.TargetNamespace() != "machinestatus-system" || !reflect.DeepEqual(c.Images(), []string{image}) || len(c.Variables()) != 0 {
		t.Errorf("components: target namespace %q, images %q, variables %q; want machinestatus-system, [%s], none",
			c.TargetNamespace(), c.Images(), c.Variables(), image)
	}
	var kinds []string
	for _, o := range c.Objs() {
		kinds = append(kinds, o.GetKind()+" "+o.GetName())
		if _, ok := o.GetLabels()[clusterctlv1.ClusterctlLabel]; !ok || o.GetLabels()[clusterv1ProviderLabel] != "addon-machinestatus" {
			t.Errorf("%s %s: labels %v, want %s=addon-machinestatus and clusterctl's", o.GetKind(), o.GetName(), o.GetLabels(), clusterv1ProviderLabel)
		}
	}
	sort.Strings(kinds)
	want := []string{
		"ClusterRole machinestatus-manager-clusterapi", "ClusterRole machinestatus-metrics-auth", "ClusterRole machinestatus-metrics-reader",
		"ClusterRoleBinding machinestatus-manager-clusterapi", "ClusterRoleBinding machinestatus-metrics-auth",
		"Deployment machinestatus-manager", "Namespace machinestatus-system", "Role machinestatus-leader-election",
		"RoleBinding machinestatus-leader-election", "Service machinestatus-manager-metrics", "ServiceAccount machinestatus-manager",
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("components hold %q\nwant %q", kinds, want)
	}

	// The same files under another provider's name: clusterctl refuses the path.
	other := config.NewProvider("other", url, clusterctlv1.AddonProviderType)
	if _, err := repository.New(ctx, other, cfg); err == nil {
		t.Error("clusterctl opens addon-machinestatus/ as provider other: the layout check proves nothing")
	}
}

// clusterv1ProviderLabel is the label clusterctl finds a provider's objects by.
const clusterv1ProviderLabel = "cluster.x-k8s.io/provider"
