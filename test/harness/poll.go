package harness

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// PollInterval is how often Poll and Wait call their condition.
const PollInterval = 200 * time.Millisecond

// Condition reports whether what a test waits for is there; when it is not, it says why not yet
// (an error of a read is an explanation too: the API server may be away for a while).
type Condition func(ctx context.Context) (done bool, why string)

// Poll calls done at once and then every PollInterval (apimachinery's
// wait.PollUntilContextTimeout) until it reports true. It returns nil then, or, when timeout
// passes or ctx ends first, an error naming the cause and done's last explanation. timeout is a
// bound, never a measurement: pick it generous (the machine may be shared and slow).
func Poll(ctx context.Context, timeout time.Duration, done Condition) error {
	why := "not checked yet"
	err := wait.PollUntilContextTimeout(ctx, PollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		ok, w := done(ctx)
		why = w
		return ok, nil
	})
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%w: %s", cause, why)
	}
	return fmt.Errorf("not within %s: %s", timeout, why)
}

// Wait is Poll for a test: it fails t (Fatalf) naming what and done's last explanation when
// done is not true within timeout. It may run in a t.Cleanup function (its context is not
// t.Context(), which ends before those run).
func Wait(t testing.TB, timeout time.Duration, what string, done Condition) {
	t.Helper()
	if err := Poll(context.Background(), timeout, done); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
