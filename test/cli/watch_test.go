package cli

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/internal/describe"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestGetWatchKubectlPlugin: `kubectl machinestatus get ma --watch` (the real kubectl running
// the plugin) lists the Machines under one header, then prints a line for each change (a new
// Machine, its status written, its deletion requested, its deletion) until interrupted, which exits 0; --watch on a
// TYPE naming both Machine APIs is a usage error, as kubectl get --watch on two resources is.
func TestGetWatchKubectlPlugin(t *testing.T) {
	ns := newNamespace(t, "watch")
	createCAPIMachine(t, provisioningCAPIMachine(t, ns, "capi-provisioning"))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := command(ctx, env.Kubeconfig, env.KubectlBin, "machinestatus", "get", "ma", "-n", ns, "--watch")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
	}()
	output := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
	// waitLine waits for a line printed after the first after lines that has every field.
	waitLine := func(after int, what string, fields ...string) int {
		t.Helper()
		found := -1
		harness.Wait(t, 2*time.Minute, what, func(context.Context) (bool, string) {
			out := output()
			for i := after; i < len(out); i++ {
				if hasFields(out[i], fields...) {
					found = i
					return true, ""
				}
			}
			return false, "output so far:\n" + strings.Join(out, "\n") + "\nstderr:\n" + stderr.String()
		})
		return found
	}

	i := waitLine(0, "the listed Machine", "capi-provisioning", "Provisioning", "Create Processing")
	// A finalizer keeps the Machine once its deletion is requested, so that the deletion has a
	// row of its own (Deleting: only a deletionTimestamp gives it); without one, the row of the
	// watch's DELETED event is the Machine's last state, as kubectl's, and reads as any change.
	m := runningCAPIMachine(t, ns, "capi-running")
	m.Finalizers = []string{"test.machinestatus.io/keep"}
	running := createCAPIMachine(t, m)
	i = waitLine(i+1, "the new Machine, Running", "capi-running", "Running", "True", "Create Successful*")
	deleteObject(t, running)
	i = waitLine(i+1, "a line for the requested deletion", "capi-running", "Deleting", "Delete Processing*")
	// Releasing the finalizer deletes the Machine: the watch's DELETED event, its last state.
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if err := env.Client.Patch(context.Background(), running, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	waitLine(i+1, "a line for the deletion", "capi-running", "Deleting", "Delete Processing*")

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-scanned
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Errorf("interrupted, get --watch exited with %v, want 0\nstderr:\n%s", err, stderr.String())
	}
	out := output()
	headers := 0
	for _, line := range out {
		if strings.HasPrefix(line, "NAME ") {
			headers++
		}
	}
	if headers != 1 || !strings.HasPrefix(out[0], "NAME ") {
		t.Errorf("want one header, first:\n%s", strings.Join(out, "\n"))
	}
	// One line per change of capi-running, in order: created (no status yet), its status
	// written, its deletion requested, its deletion. A change printed twice, or a deletion
	// printed as nothing, breaks the sequence.
	var phases []string
	for _, line := range out {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "capi-running" {
			phases = append(phases, f[2])
		}
	}
	if diff := cmp.Diff([]string{"Pending", "Running", "Deleting", "Deleting"}, phases); diff != "" {
		t.Errorf("PHASE of capi-running's lines (-want +got):\n%s\noutput:\n%s", diff, strings.Join(out, "\n"))
	}
	if !strings.Contains(stderr.String(), describe.NoHistoryFootnote) || strings.Count(stderr.String(), describe.NoHistoryFootnote) != 1 {
		t.Errorf("want the no-history footnote once on stderr:\n%s", stderr.String())
	}

	// Both APIs at once: kubectl get --watch watches one resource.
	r := runPlugin(t, "", "get", "machines", "-n", ns, "--watch")
	if r.code != describe.ExitUsage || !strings.Contains(r.stderr, "--watch watches one Machine API at a time") {
		t.Errorf("get machines --watch with both APIs served: want exit %d and the one-API message, got %s", describe.ExitUsage, r)
	}
}

// hasFields reports whether line's whitespace-separated fields include every one of want (a
// want of several words matches consecutive fields).
func hasFields(line string, want ...string) bool {
	f := " " + strings.Join(strings.Fields(line), " ") + " "
	for _, w := range want {
		if !strings.Contains(f, " "+w+" ") {
			return false
		}
	}
	return true
}
