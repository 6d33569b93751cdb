package transports

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/child"
)

// TestRedial: a connection that ends is made again after the backoff,
// each time told and counted; a refusal ends Redial at once with it; the
// end of ctx ends it with nil.
func TestRedial(t *testing.T) {
	refusal := &Refused{Err: errors.New("id taken")}
	var calls, losses int
	var firsts []bool
	var restarts atomic.Int64
	err := Redial(context.Background(), child.NewBackoff(time.Millisecond, time.Millisecond),
		func(_ context.Context, first bool) error {
			calls++
			firsts = append(firsts, first)
			if calls == 3 {
				return refusal
			}
			return errors.New("dropped")
		},
		func(err error, d time.Duration) {
			losses++
			if err.Error() != "dropped" || d <= 0 {
				t.Errorf("told %v after %s", err, d)
			}
		}, &restarts)
	if !errors.Is(err, refusal) {
		t.Fatalf("Redial returned %v, want the refusal", err)
	}
	if calls != 3 || losses != 2 || restarts.Load() != 2 || !firsts[0] || firsts[1] || firsts[2] {
		t.Errorf("%d calls (first %v), %d losses told, %d restarts; want 3 (the first only), 2, 2", calls, firsts, losses, restarts.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = Redial(ctx, child.NewBackoff(time.Hour, time.Hour), func(context.Context, bool) error {
		cancel()
		return errors.New("dropped")
	}, nil, nil)
	if err != nil {
		t.Errorf("Redial after ctx ended returned %v, want nil", err)
	}
}
