package agentclient

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/coder/websocket"
)

// Backoff bounds the waits between attempts to reconnect: the first wait
// is Min (default 100 ms), each failed attempt doubles it up to Max
// (default 10 s), and each wait is drawn between half its length and its
// length, so that agents dropped together do not all come back at once.
type Backoff struct {
	Min, Max time.Duration
}

// bounds returns b's bounds with their defaults.
func (b Backoff) bounds() (lo, hi time.Duration) {
	lo, hi = b.Min, b.Max
	if lo <= 0 {
		lo = 100 * time.Millisecond
	}
	if hi < lo {
		hi = max(10*time.Second, lo)
	}
	return lo, hi
}

// jittered returns a wait between d/2 and d.
func jittered(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

// WentAway reports whether err ended a connection with a close that means
// "the bridge went away; come back later": going away (1001, a bridge
// shutting down), service restart (1012) or try again later (1013).
func WentAway(err error) bool {
	switch websocket.CloseStatus(err) {
	case websocket.StatusGoingAway, websocket.StatusServiceRestart, websocket.StatusTryAgainLater:
		return true
	}
	return false
}

// Redialer keeps an agent connected to the bridge: it dials and serves
// the connection, and each time the bridge goes away (WentAway) it dials
// again after a backoff, retrying until it gets through, and serves the
// new connection.
type Redialer struct {
	// Dial opens a connection to the bridge, usually with Dial.
	Dial func(ctx context.Context) (*Conn, error)
	// Serve introduces the agent on a new connection, then serves it until
	// the connection or ctx ends, and closes it. Its error says why the
	// connection ended: nil when ctx did.
	Serve func(ctx context.Context, c *Conn) error
	// Backoff bounds the waits between attempts. The wait starts over from
	// Backoff.Min after a connection that lasted longer than Backoff.Max.
	Backoff Backoff
	// Logger, when set, is told when the bridge goes away, of each attempt
	// that fails, and when the agent is back.
	Logger *slog.Logger
}

// Run dials, serves and redials until ctx ends, when it returns nil. It
// returns an error when the first connection cannot be made or a
// connection ends in a way other than the bridge going away (it drops, or
// the bridge refuses the agent).
func (r *Redialer) Run(ctx context.Context) error {
	log := r.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lo, hi := r.Backoff.bounds()
	c, err := r.Dial(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	wait := lo
	for {
		began := time.Now()
		err := r.Serve(ctx, c)
		if err == nil || !WentAway(err) {
			return err
		}
		if time.Since(began) > hi {
			wait = lo // a connection that lasted starts the backoff over
		}
		log.Info("agent: the bridge went away; reconnecting", "reason", err.Error())
		c = nil
		for attempt := 1; c == nil; attempt++ {
			t := time.NewTimer(jittered(wait))
			wait = min(wait*2, hi)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			if c, err = r.Dial(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				log.Warn("agent: cannot reconnect yet", "attempt", attempt, "error", err.Error())
			}
		}
		log.Info("agent: reconnected")
	}
}
