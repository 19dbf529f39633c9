package install

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/helm/internal/render"
)

// skipped are the command lines of docs/install.md the test cannot run, and why; each must be
// in the doc, so that this list follows it.
var skipped = map[string]string{
	"crane push dist/image registry.example.com/machinestatus-manager:v0.1.0":                                       "no registry here",
	"skopeo copy --multi-arch all oci:dist/image:v0.1.0 docker://registry.example.com/machinestatus-manager:v0.1.0": "no registry here",
	"kubectl -n machinestatus-system rollout status deployment/machinestatus-manager":                               "no scheduler: the manager is started as in TestInstallUpgradeRun instead",
	"clusterctl init --config clusterctl.yaml --addon machinestatus":                                                "clusterctl init installs cert-manager from the internet",
}

// TestInstallDoc runs the shell blocks of docs/install.md, one section at a time in a directory
// of its own (make runs in the repository with DIST there), against a control plane of its own
// where the section installs the manager: helm is the helm command built from the SDK's module,
// kubectl bin/k8s/kubectl with bin/kubectl-krew as its plugin. Where a section installed the
// manager, bin/manager is then run as in TestInstallUpgradeRun (the Deployment's arguments, its
// ServiceAccount's token) and must reconcile a Machine. Images and plugins are built for this
// platform only.
func TestInstallDoc(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("docs/install.md names the linux/amd64 archive")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	b, err := os.ReadFile(filepath.Join(env.Root, "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := shellBlocks(string(b))
	tools := t.TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(tools, "helm"), "helm.sh/helm/v4/cmd/helm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build helm: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(env.Root, "bin", "kubectl-krew"), filepath.Join(tools, "kubectl-krew")); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, title := range []string{"1. The image", "2. The release manifest", "3. Helm", "4. clusterctl and the Cluster API Operator", "5. The kubectl plugin"} {
		script, ok := sections[title]
		if !ok {
			t.Fatalf("docs/install.md has no section %q with a sh block", title)
		}
		t.Run(title, func(t *testing.T) {
			var lines []string
			for _, line := range strings.Split(script, "\n") {
				if _, skip := skipped[strings.TrimSpace(line)]; skip {
					seen[strings.TrimSpace(line)] = true
					continue
				}
				lines = append(lines, line)
			}
			e := env
			if strings.Contains(script, "kubectl apply") || strings.Contains(script, "helm install") {
				var err error
				if e, err = harness.Start(harness.Options{Dir: t.TempDir()}); err != nil {
					t.Fatal(err)
				}
				defer e.Stop()
			}
			dir := t.TempDir()
			out := runDoc(t, ctx, e, dir, tools, strings.Join(lines, "\n"))
			switch {
			case strings.HasPrefix(title, "1."):
				checkFile(t, filepath.Join(dir, "dist", "image", "index.json"))
			case strings.HasPrefix(title, "4."):
				checkFile(t, filepath.Join(dir, "dist", "clusterctl", "addon-machinestatus", "v0.1.0", "addon-components.yaml"))
				checkFile(t, filepath.Join(dir, "clusterctl.yaml"))
			case strings.HasPrefix(title, "5."):
				if !strings.Contains(out, "kubectl machinestatus v0.1.0 (revision ") {
					t.Errorf("kubectl machinestatus version printed no version line:\n%s", out)
				}
			default:
				runInstalled(t, ctx, e)
			}
		})
	}
	for line := range skipped {
		if !seen[line] {
			t.Errorf("docs/install.md no longer has %q: update the test's skipped lines", line)
		}
	}
}

// shellBlocks returns the ```sh blocks of a Markdown document by the title of their "## " section.
func shellBlocks(doc string) map[string]string {
	blocks := map[string]string{}
	var title string
	var block []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			title = strings.TrimPrefix(line, "## ")
		case line == "```sh":
			in, block = true, nil
		case line == "```" && in:
			in = false
			blocks[title] += strings.Join(block, "\n") + "\n"
		case in:
			block = append(block, line)
		}
	}
	return blocks
}

// runDoc runs script with bash in dir against e and returns its output: make runs in the
// repository with DIST=dir/dist and the release version, dist/chart is copied into dir.
func runDoc(t *testing.T, ctx context.Context, e *harness.Env, dir, tools, script string) string {
	t.Helper()
	if err := os.CopyFS(filepath.Join(dir, "dist", "chart"), os.DirFS(render.ChartDir(env.Root))); err != nil {
		t.Fatal(err)
	}
	preamble := `set -euo pipefail
make() { command make -C "$REPO" --no-print-directory DIST="$PWD/dist" "$@"; }
`
	cmd := exec.CommandContext(ctx, "bash", "-c", preamble+script)
	cmd.Dir = dir
	// HOME is the section's directory; Go's caches stay the user's.
	goEnv, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	goVars := strings.Fields(string(goEnv))
	if len(goVars) != 3 {
		t.Fatalf("go env printed %q", goEnv)
	}
	krewRoot := filepath.Join(dir, "krew")
	cmd.Env = append(environWithout("PATH", "KUBECONFIG", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "HOME", "VERSION", "GOCACHE", "GOMODCACHE", "GOPATH"),
		"REPO="+env.Root, "HOME="+dir, "KUBECONFIG="+e.Kubeconfig, "KUBECACHEDIR="+filepath.Join(dir, "kubecache"),
		"GOCACHE="+goVars[0], "GOMODCACHE="+goVars[1], "GOPATH="+goVars[2],
		"KREW_ROOT="+krewRoot, "KREW_NO_UPGRADE_CHECK=1", "VERSION=v0.1.0",
		"IMAGE_PLATFORMS=linux/amd64", "RELEASE_PLATFORMS=linux/amd64",
		"PATH="+strings.Join([]string{filepath.Join(krewRoot, "bin"), tools, filepath.Join(env.Root, "bin", "k8s"), os.Getenv("PATH")}, string(os.PathListSeparator)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("docs/install.md's commands: %v\n%s\n---\n%s", err, script, out.String())
	}
	return out.String()
}

// runInstalled runs bin/manager as the Deployment machinestatus-manager the doc installed in
// machinestatus-system (its arguments, its ServiceAccount) and waits for it to reconcile a Machine.
func runInstalled(t *testing.T, ctx context.Context, e *harness.Env) {
	t.Helper()
	const ns = "machinestatus-system"
	args := liveArgs(t, ctx, e, ns)
	kubeconfig := serviceAccountKubeconfig(t, ctx, e, ns, "machinestatus-manager")
	mgr := startManager(t, e, "manager", kubeconfig, ns, args, freePort(t))
	defer mgr.Stop(harness.ManagerStopGrace)
	machineNS := e.Namespace(t)
	harness.Wait(t, time.Minute, "the Machine CRD to be served", func(ctx context.Context) (bool, string) {
		if err := e.Client.Create(ctx, harness.NewMachine(machineNS, "worker-0")); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if m := waitStatus(t, e, machineNS, "worker-0"); m.Status.Phase != "Pending" {
		t.Errorf("Machine worker-0: %s, want phase Pending", harness.Describe(m))
	}
}

func checkFile(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("%s: %v", path, err)
	}
}

// environWithout returns this process's environment without the named variables.
func environWithout(names ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
