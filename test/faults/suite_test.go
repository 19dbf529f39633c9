//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// env is the control plane, kwok and the simulated provider every test shares; no manager runs
// between tests (each starts its own, for its own Machines, with --machine-selector).
var env *fleet.Fleet

// auditLog is the API server's audit log of machines/status writes (see auditPolicy).
var auditLog string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "machinestatus-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	keep := os.Getenv("FAULTS_KEEP_LOGS") != ""
	defer func() {
		if keep {
			fmt.Fprintf(os.Stderr, "faults: logs kept in %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	auditLog = filepath.Join(dir, "audit.log")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	env, err = fleet.Start(ctx, fleet.Options{
		StateDir:            dir,
		Manager:             "bin/manager",
		NoManager:           true,
		ProviderConcurrency: 4,
		APIServerFlags: map[string]string{
			"audit-policy-file": policy, "audit-log-path": auditLog,
			// Stop within seconds of SIGTERM: drain the short requests, then close the
			// connections after 2 s, instead of waiting up to a minute for the watches.
			"shutdown-send-retry-after": "true",
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "faults: cannot start the fleet: %v\n", err)
		return 1
	}
	defer env.Stop()
	figures.setupTook = time.Since(start)
	code := m.Run()
	figures.suiteTook = time.Since(start)
	if code == 0 && os.Getenv("FAULTS_WRITE_DOCS") == "1" {
		if err := figures.writeDocs(env.Root); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if code != 0 {
		keep = true
	}
	return code
}
