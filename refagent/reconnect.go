package refagent

import (
	"context"
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

// wentAway reports whether a connection ended with a close that means
// "the bridge went away; come back later": going away (1001, a bridge
// shutting down), service restart (1012) or try again later (1013).
func wentAway(err error) bool {
	switch websocket.CloseStatus(err) {
	case websocket.StatusGoingAway, websocket.StatusServiceRestart, websocket.StatusTryAgainLater:
		return true
	}
	return false
}

// KeepConnected connects to the bridge as Connect does, and stays
// connected: each time the bridge goes away (it closes the connection with
// status 1001 going away, 1012 or 1013), the agent connects again after a
// backoff, retrying until it gets through, and introduces itself and
// subscribes anew. It returns nil when ctx ends, and an error when the
// first connection cannot be made or a connection ends any other way (it
// drops, or the bridge refuses the agent).
func (a *Agent) KeepConnected(ctx context.Context, bridgeURL, token string, b Backoff) error {
	lo, hi := b.bounds()
	conn, err := a.dial(ctx, bridgeURL, token)
	if err != nil || conn == nil {
		return err
	}
	u := a.dialURL(bridgeURL)
	wait := lo
	for {
		began := time.Now()
		err := a.serveWS(ctx, conn, u)
		if err == nil || !wentAway(err) {
			return err
		}
		if time.Since(began) > hi {
			wait = lo // a connection that lasted starts the backoff over
		}
		a.log.Info("agent: the bridge went away; reconnecting", "reason", err.Error())
		conn = nil
		for attempt := 1; conn == nil; attempt++ {
			t := time.NewTimer(jittered(wait))
			wait = min(wait*2, hi)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			if conn, err = a.dial(ctx, bridgeURL, token); err != nil {
				a.log.Warn("agent: cannot reconnect yet", "attempt", attempt, "error", err.Error())
			} else if conn == nil {
				return nil // ctx ended while dialing
			}
		}
		a.log.Info("agent: reconnected", "bridge", u)
	}
}
