// Command bench-scale runs Cluster API's real Machine, MachineSet and MachineDeployment
// controllers (with the Cluster and MachineHealthCheck ones) as a process of their own and our
// manager as another on one API server, takes N Machines in MachineDeployments through a
// scale-up, a rollout and a scale-down, and compares what each wrote (from the API server's audit
// log), their CPU time and memory, and our lag; it checks the goals and, with -write-docs,
// records the block clusterapi-scale of docs/benchmarks.md. `make bench-clusterapi-scale N=200`
// runs it; it exits non-zero naming any goal not met.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/machinestatus/machinestatus/test/clusterapi"
	"github.com/machinestatus/machinestatus/test/internal/docblock"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

func main() {
	os.Exit(run())
}

func run() int {
	n := flag.Int("n", 200, "Machines in the MachineDeployments after the scale-up (they start and end at N/2).")
	poolSize := flag.Int("pool-size", 20, "Machines per MachineDeployment after the scale-up.")
	idle := flag.Duration("idle", time.Minute, "How long the fleet is left alone at the end while writes are counted.")
	writeDocs := flag.Bool("write-docs", false, "Record the block clusterapi-scale of docs/benchmarks.md.")
	controllers := flag.String("cluster-api-controllers", "", "Run only Cluster API's controllers against the cluster of this kubeconfig (how the run starts them).")
	flag.Parse()
	if *controllers != "" {
		if err := clusterapi.ServeClusterAPIControllers(*controllers); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := clusterapi.RunScale(ctx, clusterapi.ScaleOptions{
		N: *n, PoolSize: *poolSize, Idle: *idle, StateDir: ".clusterapi-scale",
		Controllers: []string{self, "-cluster-api-controllers"}, Out: os.Stdout,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-clusterapi-scale FAILED: %v (logs in .clusterapi-scale/)\n", err)
		return 1
	}
	table := res.Table()
	fmt.Printf("\n%s\n", table)
	failed := 0
	var goals []string
	for _, g := range res.Goals() {
		mark := "met"
		if !g.Met {
			mark, failed = "NOT MET", failed+1
		}
		fmt.Printf("%-8s %-40s %s\n", mark, g.Name, g.Figure)
		goals = append(goals, fmt.Sprintf("- %s: %s — %s", g.Name, g.Figure, mark))
	}
	if *writeDocs {
		if err := record(*n, *poolSize, table, strings.Join(goals, "\n"), res.Took); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("\nrecorded in docs/benchmarks.md")
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "%d goal(s) not met\n", failed)
		return 1
	}
	return 0
}

// record replaces the block clusterapi-scale of docs/benchmarks.md.
func record(n, poolSize int, table, goals string, took time.Duration) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	path := filepath.Join(root, "docs", "benchmarks.md")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	content := fmt.Sprintf("`make bench-clusterapi-scale N=%d` (%d Machines per MachineDeployment) on %s (%d cores, %s); the whole run took %s.\n\n%s\n%s\n",
		n, poolSize, host.CPUModel(), runtime.NumCPU(), runtime.Version(), took.Round(time.Second), table, goals)
	doc, err := docblock.Replace(string(old), "clusterapi-scale", content)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
