//go:build faults

package faults

import (
	"context"

	"github.com/machinestatus/machinestatus/test/internal/metricstest"
)

// apiStatusWrites reads the API server's own request counter (apiserver_request_total) and
// returns how many writes (APPLY, PATCH, UPDATE, POST) of machines/status it has served, with
// any response code, since it started (the counter restarts with the API server).
func apiStatusWrites(ctx context.Context) (int, error) {
	fams, err := metricstest.APIServer(ctx, env.CP.Config)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, verb := range []string{"APPLY", "PATCH", "UPDATE", "POST"} {
		total += fams.Sum("apiserver_request_total", map[string]string{
			"group": "machinestatus.io", "resource": "machines", "subresource": "status", "verb": verb,
		})
	}
	return int(total), nil
}
