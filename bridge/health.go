package bridge

import (
	"context"
	"errors"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/health"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
)

// Agent health: the states and when they change are the directory's
// (directory/status.go). The bridge feeds it what it sees (answers,
// timeouts, heartbeats (package health), connections coming and going);
// the router tells the world of each change (route/status.go).

// StatusTopic is the topic agent status changes are published to.
const StatusTopic = route.StatusTopic

// StatusEvent is the event type of a status change.
const StatusEvent = route.StatusEvent

// heartbeats pings the bridge's connections every interval (package
// health), until the bridge shuts down.
func (b *Bridge) heartbeats(interval time.Duration) {
	health.Heartbeat(interval, b.pingable, b.stopped)
}

// restEvery is how often the writers of the queues that emptied since
// are let go (an idle agent holds no writer goroutine; a busy one starts
// one a round): a burst of agents' introductions starts
// writers for hundreds of agents, whose stacks the collector's goal then
// counts for as long as they live (docs/performance.md, "What one idle
// agent holds").
const restEvery = time.Second

// resting lets the queues' writers go once their queues are empty, every
// restEvery, until the bridge shuts down.
func (b *Bridge) resting() {
	health.Every(restEvery, b.restWriters, b.stopped)
}

// restWriters asks every session's queue to let its writer go once it is
// empty (delivery.Queue.Rest); a queue without a writer does nothing.
func (b *Bridge) restWriters() {
	for _, s := range b.allSessions() {
		s.out.Rest()
	}
}

// pingable returns the sessions the heartbeat pings: those whose link can
// be pinged and that last longer than one message.
func (b *Bridge) pingable() []health.Target {
	all := b.allSessions()
	out := make([]health.Target, 0, len(all))
	// One array for the round's beats rather than one allocation each: it
	// has room for all, so that a beat never moves.
	beats := make([]beat, 0, len(all))
	for _, s := range all {
		if p, ok := s.link.(Pinger); ok && !s.opts.ephemeral {
			beats = append(beats, beat{b: b, s: s, p: p})
			out = append(out, &beats[len(beats)-1])
		}
	}
	return out
}

// beat is one session as a heartbeat's target: a miss counts against its
// agent, an answer is news from it.
type beat struct {
	b *Bridge
	s *Session
	p Pinger
}

// errGone is what a session that left since its round began answers.
var errGone = errors.New("detached")

// Ping pings the session's peer.
func (t *beat) Ping(ctx context.Context) error {
	if !t.b.attached(t.s) {
		return errGone
	}
	return t.p.Ping(ctx)
}

func (t *beat) Pinged(err error) {
	a := t.s.Bound()
	if a == nil || err == errGone {
		return
	}
	if err == nil {
		t.b.dir.HeardFrom(a)
		return
	}
	t.b.dir.Missed(a, t.s)
}

// forgetting removes, every so often until the bridge shuts down, the
// agents known only from HTTP requests that sent none for after.
func (b *Bridge) forgetting(after time.Duration) {
	health.Forgetting(after, func(before time.Time) { b.dir.Forget(before) }, b.stopped)
}
