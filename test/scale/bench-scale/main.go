// Command bench-scale runs the scale harness (package test/scale) with N Machines, prints the
// table, checks the goals and, with -write-docs, records the table in docs/benchmarks.md.
// `make bench-scale N=1000` runs it; it exits non-zero naming any goal not met.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

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
	)
	switch *apis {
	case "machinestatus.io":
		res, err := scale.Run(ctx, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench-scale FAILED: %v (logs in .scale/)\n", err)
			return 1
		}
		table, goals = res.Table(), res.Goals()
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
	if *writeDocs {
		if err := record(key, title, cmd, table, time.Since(start)); err != nil {
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

// record replaces (or appends) the generated block scale-<key> of docs/benchmarks.md (key
// "N=1000" or "clusterapi-N=1000"), titled title.
func record(key, title, cmd, table string, took time.Duration) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	path := filepath.Join(root, "docs", "benchmarks.md")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	begin, end := fmt.Sprintf("<!-- scale-%s begin -->", key), fmt.Sprintf("<!-- scale-%s end -->", key)
	section := fmt.Sprintf("%s\n### %s\n\n`%s` on %s (%d cores, %s), %s; the whole run took %s.\n\n%s%s",
		begin, title, cmd, host.CPUModel(), runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02"),
		took.Round(time.Second), table, end)
	re := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(begin) + `.*?` + regexp.QuoteMeta(end))
	var out string
	if re.Match(old) {
		out = re.ReplaceAllLiteralString(string(old), section)
	} else {
		out = strings.TrimRight(string(old), "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
