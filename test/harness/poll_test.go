package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	t.Run("done on the third call", func(t *testing.T) {
		calls := 0
		err := Poll(t.Context(), time.Minute, func(context.Context) (bool, string) {
			calls++
			return calls == 3, fmt.Sprintf("call %d", calls)
		})
		if err != nil || calls != 3 {
			t.Fatalf("Poll = %v after %d calls, want nil after 3", err, calls)
		}
	})
	t.Run("timeout names the last explanation", func(t *testing.T) {
		calls := 0
		err := Poll(t.Context(), time.Millisecond, func(context.Context) (bool, string) {
			calls++
			return false, "still pending"
		})
		if err == nil || !strings.Contains(err.Error(), "still pending") || !strings.Contains(err.Error(), "not within 1ms") {
			t.Fatalf("Poll = %v, want an error naming the timeout and the last explanation", err)
		}
		if calls == 0 {
			t.Fatal("done was never called")
		}
	})
	t.Run("cancelled context names its cause", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("the manager exited")
		err := Poll(ctx, time.Minute, func(context.Context) (bool, string) {
			cancel(stop)
			return false, "no Lease yet"
		})
		if !errors.Is(err, stop) || !strings.Contains(err.Error(), "no Lease yet") {
			t.Fatalf("Poll = %v, want %v and the last explanation", err, stop)
		}
	})
}
