package deploy

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestMakeDeployUndeploy runs `make deploy IMG=…` and `make undeploy` against the test API
// server through KUBECONFIG, as a user would against any cluster: deploy installs every object
// of config/default with IMG as the manager's image, deploying again changes the image in
// place, undeploy removes everything and succeeds again when nothing is left. No tracked file
// changes on the way.
func TestMakeDeployUndeploy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	objs := render(t)
	configBefore := snapshot(t, filepath.Join(root, "config"))
	deployment := find(t, objs, "Deployment")

	for _, img := range []string{
		"registry.example.com:5000/team/machinestatus-manager:v0.1.0",
		"registry.example.com/machinestatus-manager@sha256:" + strings.Repeat("ab", 32),
	} {
		runMake(t, ctx, "deploy", "IMG="+img)
		for _, o := range objs {
			if got, err := live(ctx, o); err != nil || got == nil {
				t.Errorf("after make deploy IMG=%s: %s not found (err %v)", img, describe(o), err)
			}
		}
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(deployment), d); err != nil {
			t.Fatalf("cannot read the manager Deployment: %v", err)
		}
		if got := d.Spec.Template.Spec.Containers[0].Image; got != img {
			t.Errorf("after make deploy IMG=%s the manager's image is %s", img, got)
		}
	}

	// Deleting the namespace needs the namespace controller, which envtest lacks.
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go finalizeNamespaces(fctx, namespacesOf(objs))
	runMake(t, ctx, "undeploy")
	waitGone(t, objs)
	runMake(t, ctx, "undeploy") // nothing left: --ignore-not-found

	if after := snapshot(t, filepath.Join(root, "config")); !maps.Equal(configBefore, after) {
		t.Error("make deploy/undeploy changed files under config/")
	}
}

// runMake runs `make -C <root> args...` with KUBECONFIG pointing at the test API server and
// fails the test, with make's output, when it fails.
func runMake(t *testing.T, ctx context.Context, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "make", append([]string{"-C", root, "--no-print-directory"}, args...)...)
	cmd.Env = append(environWithout("KUBECONFIG", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"),
		"KUBECONFIG="+env.Kubeconfig,
		"KUBECACHEDIR="+t.TempDir(), // kubectl's discovery cache, not the user's ~/.kube
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("make %s (%s):\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out.String())
}

// environWithout returns this process's environment without the named variables.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			env = append(env, kv)
		}
	}
	return env
}

// snapshot returns the content of every file under dir, by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
