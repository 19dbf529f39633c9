// Command bench-scale runs the scale harness (package test/scale) with N Machines, prints the
// table, checks the goals and, with -write-docs, records the table in docs/benchmarks.md.
// `make bench-scale N=1000` runs it; it exits non-zero naming any goal not met.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/docblock"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/repo"
	"github.com/machinestatus/machinestatus/test/scale"
)

func main() {
	os.Exit(run())
}

// run is the command; it returns the exit code (0, or 1 on a failure or a goal not met) so
// that its deferred calls run before main exits.
func run() int {
	n := flag.Int("n", 1000, "Number of Machines.")
	steady := flag.Duration("steady", 2*time.Minute, "How long the fleet is held steady while idle writes are counted.")
	workers := flag.Int("max-concurrent-reconciles", 4, "Passed to the manager.")
	writeDocs := flag.Bool("write-docs", false, "Record the table in docs/benchmarks.md.")
	apis := flag.String("machine-apis", "machinestatus.io", "The manager's Machine API: machinestatus.io (kwok Nodes, the simulated provider) or cluster.x-k8s.io (Cluster API Machines whose status the harness writes and rewrites).")
	baseline := flag.String("baseline-commit", "", "With machinestatus.io: a commit whose manager is built and measured beside this one for the metrics' cost (series, scrape size and time, RSS), with a remediation loop's series churn.")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	o := scale.Options{N: *n, Steady: *steady, StateDir: ".scale", MaxConcurrentReconciles: *workers, Out: os.Stdout}
	var (
		table      string
		goals      []scale.Goal
		key, title = fmt.Sprintf("N=%d", *n), fmt.Sprintf("Fleet scale, N = %d", *n)
		cmd        = fmt.Sprintf("make bench-scale N=%d", *n)
		metrics    string
		load       string
	)
	switch *apis {
	case "machinestatus.io":
		if *baseline != "" {
			bin, cleanup, err := buildManagerAt(*baseline)
			if err != nil {
				fmt.Fprintf(os.Stderr, "bench-scale: %v\n", err)
				return 1
			}
			defer cleanup()
			o.BaselineManager = bin
		}
		res, err := scale.Run(ctx, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench-scale FAILED: %v (logs in .scale/)\n", err)
			return 1
		}
		table, goals = res.Table(), res.Goals()
		if *baseline != "" {
			metrics = res.MetricsTable(*baseline)
			load = fmt.Sprintf("%.1f–%.1f", res.LoadLow, res.LoadHigh)
			cmd += " METRICS_BASELINE=" + *baseline
		}
	case "cluster.x-k8s.io":
		res, err := scale.RunClusterAPI(ctx, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench-scale FAILED: %v (logs in .scale/)\n", err)
			return 1
		}
		table, goals = res.Table(), res.Goals()
		key, title = "clusterapi-"+key, fmt.Sprintf("Cluster API mode, N = %d", *n)
		cmd += " MACHINE_APIS=cluster.x-k8s.io"
	default:
		fmt.Fprintf(os.Stderr, "bench-scale: unknown -machine-apis %q: machinestatus.io or cluster.x-k8s.io\n", *apis)
		return 2
	}
	fmt.Printf("\n%s\n", table)
	failed := 0
	for _, g := range goals {
		mark := "ok  "
		if !g.Met {
			mark, failed = "FAIL", failed+1
		}
		fmt.Printf("%s %-40s %s\n", mark, g.Name, g.Figure)
	}
	if metrics != "" {
		fmt.Printf("\n%s\n", metrics)
	}
	if *writeDocs {
		if err := record(key, title, cmd, table, time.Since(start)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if metrics != "" {
			if err := recordMetrics(*n, cmd, load, metrics); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Println("\nrecorded in docs/benchmarks.md")
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "%d goal(s) not met\n", failed)
		return 1
	}
	return 0
}

// record writes the generated block scale-<key> of docs/benchmarks.md (key "N=1000" or
// "clusterapi-N=1000"), titled title.
func record(key, title, cmd, table string, took time.Duration) error {
	return writeBlock("scale-"+key, fmt.Sprintf("### %s\n\n`%s` on %s (%d cores, %s); the whole run took %s.\n\n%s",
		title, cmd, host.CPUModel(), runtime.NumCPU(), runtime.Version(), took.Round(time.Second), table))
}

// recordMetrics writes the metrics cost table into the generated block scale-metrics-N=<n> of
// docs/benchmarks.md.
func recordMetrics(n int, cmd, load, table string) error {
	return writeBlock(fmt.Sprintf("scale-metrics-N=%d", n), fmt.Sprintf("### Metrics cost, N = %d\n\n`%s` on %s (%d cores, %s), 1-minute load average %s during the run (a shared machine: compare the ratios, not the times). Each manager is started fresh, with no Machine and then on the N Running Machines, and measured once it has reconciled them all.\n\n%s",
		n, cmd, host.CPUModel(), runtime.NumCPU(), runtime.Version(), load, table))
}

// writeBlock replaces the generated block name of docs/benchmarks.md with content, appending the
// block when the page has none.
func writeBlock(name, content string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	path := filepath.Join(root, "docs", "benchmarks.md")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := string(old)
	if _, err := docblock.Get(doc, name); err != nil {
		doc = strings.TrimRight(doc, "\n") + fmt.Sprintf("\n\n<!-- %s begin (generated by make bench-scale; do not edit) -->\n<!-- %s end -->\n", name, name)
	}
	if doc, err = docblock.Replace(doc, name, content); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}

// buildManagerAt builds the manager of commit (git archive of this repository, go build) into a
// temporary directory and returns the binary and a function removing the directory.
func buildManagerAt(commit string) (string, func(), error) {
	root, err := repo.Root()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "bench-scale-baseline-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		cleanup()
		return "", nil, err
	}
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		cleanup()
		return "", nil, err
	}
	untar.Stdin = pipe
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		cleanup()
		return "", nil, err
	}
	if err := archive.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("git archive %s: %w", commit, err)
	}
	if err := untar.Wait(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("extracting %s: %w", commit, err)
	}
	bin := filepath.Join(dir, "manager")
	fmt.Printf("building the manager of %s into %s...\n", commit, bin)
	build := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	build.Dir, build.Stdout, build.Stderr = src, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("go build of %s's manager: %w", commit, err)
	}
	return bin, cleanup, nil
}
