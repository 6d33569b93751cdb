package transports

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/child"
)

// Refused is an attachment the bridge refused (the agent's id is taken by
// an agent of another dialect): connecting again cannot help.
type Refused struct{ Err error }

func (e *Refused) Error() string { return e.Err.Error() }
func (e *Refused) Unwrap() error { return e.Err }

// Redial calls connect until ctx ends, again after each return but a
// Refused one, waiting wait's backoff (shorter the longer the connection
// lasted) first. first tells connect its first call. lost, when set, is
// told why a connection ended and how long the wait is; restarts, when
// set, counts the calls after the first. Redial returns the refusal, or
// nil once ctx ends.
func Redial(ctx context.Context, wait *child.Backoff, connect func(ctx context.Context, first bool) error,
	lost func(err error, in time.Duration), restarts *atomic.Int64) error {
	for first := true; ; first = false {
		start := time.Now()
		err := connect(ctx, first)
		var refused *Refused
		if errors.As(err, &refused) {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		d := wait.After(time.Since(start))
		if lost != nil {
			lost(err, d)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if restarts != nil {
			restarts.Add(1)
		}
	}
}
