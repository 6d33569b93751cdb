package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// ErrShuttingDown refuses connections attached after Shutdown began.
var ErrShuttingDown = errors.New("bridge: shutting down")

// ShutdownEvent names the event that tells agents the bridge is going
// away (specs/collab.md section 4.3).
const ShutdownEvent = "SystemShutdown"

// Shutdown stops the bridge gracefully: new connections are refused and
// new requests answered with a retryable unavailable error; every
// connected agent is told, in its dialect, with an event (collab's
// SystemShutdown broadcast, a swarm notification, a fuse event; dialects
// without events are skipped with a log line); requests in flight get
// their answers until ctx ends, and those still open then are answered
// with an unavailable error; queued messages are delivered until ctx ends;
// finally every connection is closed, and Shutdown returns once the peers
// have had their close (at most closeGrace later). No accepted request is
// left unanswered.
func (b *Bridge) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	if b.r.Closing() {
		b.mu.Unlock()
		return nil
	}
	b.r.Close()
	close(b.stopped)
	b.mu.Unlock()
	countdown := 0
	if d, ok := ctx.Deadline(); ok {
		countdown = int(math.Ceil(time.Until(d).Seconds()))
	}
	b.log.Info("shutting down", "open_requests", b.pending.Count(), "countdown_s", countdown)
	for _, s := range b.agentSessions() {
		if a := s.Bound(); a != nil {
			b.dir.SetStatus(a, StatusStopping, "the bridge is shutting down")
		}
		notice := &canonical.Envelope{
			Act: canonical.ActEvent, Sender: canonical.Party{ID: b.id},
			Receiver:  canonical.Address{Kind: canonical.AddressBroadcast},
			Operation: canonical.Operation{Name: ShutdownEvent},
			Arguments: canonical.JSON(fmt.Sprintf(`{"event":%q,"countdown":%d}`, ShutdownEvent, countdown)),
			Priority:  canonical.PriorityCritical,
		}
		if _, err := s.Deliver(&route.Outgoing{Env: notice, ByBridge: true, Failure: route.FailureFunc(func(error) {})}); err != nil {
			b.log.Info("shutdown notice not sent", "agent", s.AgentID(), "dialect", s.Dialect(), "reason", err.Message)
		}
	}
	// Answers may come until shortly before the deadline; the rest of the
	// time is for delivering the errors that replace the missing ones.
	answerCtx := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		answerCtx, cancel = context.WithDeadline(ctx, d.Add(-flushReserve(time.Until(d))))
		defer cancel()
	}
	waitFor(answerCtx, func() bool { return b.pending.Count() == 0 })
	for _, p := range b.pending.TakeAll() {
		b.r.Fail(p, canonical.ErrUnavailable, "the bridge is shutting down")
	}
	sessions := b.allSessions()
	waitFor(ctx, func() bool {
		for _, s := range sessions {
			if s.out.Len() > 0 {
				return false
			}
		}
		return true
	})
	// The links close at once, and Shutdown waits for their closing
	// handshakes: the process may exit as soon as it returns, and a peer
	// must get its close frame (WebSocket 1001), not a bare end of stream.
	var closing sync.WaitGroup
	for _, s := range sessions {
		if c, ok := s.link.(Closer); ok {
			closing.Go(func() { _ = c.Close("the bridge is shutting down") })
		}
	}
	closed := make(chan struct{})
	go func() { closing.Wait(); close(closed) }()
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	select {
	case <-closed:
	case <-grace.C:
		b.log.Warn("connections still closing", "after", closeGrace)
	}
	b.writers.Stop()
	b.log.Info("shut down")
	return nil
}

// closeGrace bounds how long Shutdown waits for its connections' closing
// handshakes, whatever time ctx had left: a peer that stops answering
// must not hold up the exit.
const closeGrace = 2 * time.Second

// flushReserve is the part of a shutdown's time kept for delivering the
// errors of requests still open: a fifth, at most a second.
func flushReserve(left time.Duration) time.Duration {
	return min(left/5, time.Second)
}

// ShuttingDown reports whether Shutdown has begun.
func (b *Bridge) ShuttingDown() bool { return b.r.Closing() }

// agentSessions returns the sessions that deliver to an agent.
func (b *Bridge) agentSessions() []*Session {
	var out []*Session
	for _, ep := range b.dir.Endpoints() {
		if s, ok := ep.(*Session); ok {
			out = append(out, s)
		}
	}
	return out
}

func (b *Bridge) allSessions() []*Session {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]*Session, 0, len(b.sessions))
	for s := range b.sessions {
		out = append(out, s)
	}
	return out
}

// attached reports whether s is still attached to the bridge.
func (b *Bridge) attached(s *Session) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	_, ok := b.sessions[s]
	return ok
}

// waitFor polls done until it holds or ctx ends.
func waitFor(ctx context.Context, done func() bool) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
