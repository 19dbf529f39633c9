// Command run-embedded is the development loop without a cluster (`make run-embedded`): it
// starts kube-apiserver and etcd from bin/k8s (controller-runtime's envtest, through
// test/embedded), installs the Machine CRD, writes an admin kubeconfig and runs the
// production manager binary (bin/manager) against it with the flags given after `--`. Ctrl-C
// (SIGINT) or SIGTERM stops the manager, then the control plane.
//
// It lives here, not in cmd/manager, so that the binary that ships never links the test
// harness: the manager is run as its own process, exactly as it runs in a cluster.
//
//	go run ./hack/run-embedded [-manager bin/manager] [-write-kubeconfig .machinestatus/kubeconfig] -- [manager flags]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/test/embedded"
)

// managerStopGrace is how long the manager may take to exit after SIGTERM before SIGKILL.
const managerStopGrace = 15 * time.Second

// signalGrace is how long after the manager's exit a Ctrl-C it shared with us may still arrive
// here, so that stopping both is not reported as the manager failing.
const signalGrace = time.Second

func main() {
	manager := flag.String("manager", filepath.Join("bin", "manager"), "The manager binary to run (built by `make build`).")
	kubeconfig := flag.String("write-kubeconfig", filepath.Join(".machinestatus", "kubeconfig"), "Where to write the control plane's admin kubeconfig.")
	assets := flag.String("assets", "", "Directory holding kube-apiserver and etcd (default $KUBEBUILDER_ASSETS, else bin/k8s).")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: %s [flags] [-- manager flags]\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*manager, *kubeconfig, *assets, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "run-embedded:", err)
		os.Exit(1)
	}
}

// run starts the control plane, runs the manager with args until it exits or a signal comes,
// and stops both. It returns the manager's failure (not its exit on our signal) or a start error.
func run(manager, kubeconfig, assets string, args []string) (err error) {
	bin, err := filepath.Abs(manager)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("no manager binary (run `make build`): %w", err)
	}
	path, err := filepath.Abs(kubeconfig)
	if err != nil {
		return err
	}
	crds, err := embedded.LoadCRDs(crd.Bases)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cp, err := embedded.Start(embedded.Options{AssetsDir: assets, CRDs: crds, KubeconfigPath: path})
	if err != nil {
		return err
	}
	defer func() {
		if serr := cp.Stop(); serr != nil {
			err = errors.Join(err, fmt.Errorf("cannot stop the control plane: %w", serr))
		}
	}()
	if err := addScraper(ctx, cp); err != nil {
		return err
	}
	fmt.Printf("Embedded kube-apiserver at %s. Use it with:\n  export KUBECONFIG=%s\n  bin/k8s/kubectl get machines\n", cp.Config.Host, path)
	fmt.Printf("Metrics (HTTPS, a token allowed to get /metrics; docs/operating.md):\n  curl -sk -H \"Authorization: Bearer $(bin/k8s/kubectl create token -n %s %s)\" https://127.0.0.1:8443/metrics\n", scraperNamespace, scraperName)

	cmd := exec.Command(bin, append([]string{"--kubeconfig", path}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %s: %w", bin, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// Ctrl-C reaches the manager (same process group) as it reaches us: it may exit before
		// our signal handler has run. Its exit is a failure only if no signal follows at once.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(signalGrace):
		}
		if err != nil {
			return fmt.Errorf("the manager exited: %w", err)
		}
		return errors.New("the manager exited")
	case <-ctx.Done():
	}
	// Ctrl-C reaches the manager too (same process group); SIGTERM covers a signal sent to us alone.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		_ = err // the manager's exit on our signal is no failure
	case <-time.After(managerStopGrace):
		_ = cmd.Process.Kill()
		err := <-done
		_ = err // killed: its exit status says nothing
	}
	return nil
}

// The ServiceAccount addScraper creates for reading the metrics.
const (
	scraperNamespace = "default"
	scraperName      = "metrics-scraper"
)

// addScraper creates config/rbac's metrics-reader ClusterRole and the ServiceAccount
// scraperNamespace/scraperName bound to it, so that its token reads the manager's metrics as a
// Prometheus would in a cluster. It returns the API server's first error.
func addScraper(ctx context.Context, cp *embedded.ControlPlane) error {
	roles, err := embedded.LoadRoles(rbac.MetricsReader)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	for _, role := range roles.ClusterRoles {
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot create ClusterRole %s: %w", role.Name, err)
		}
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: scraperName},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: scraperNamespace, Name: scraperName}},
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot bind ClusterRole %s: %w", role.Name, err)
		}
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: scraperNamespace, Name: scraperName}}
	if _, err := cs.CoreV1().ServiceAccounts(scraperNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("cannot create ServiceAccount %s/%s: %w", scraperNamespace, scraperName, err)
	}
	return nil
}
