package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/health"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Agent health: the states and when they change are the directory's
// (directory/status.go). The bridge feeds it what it sees (answers,
// timeouts, heartbeats (package health), connections coming and going) and
// tells the world of each change: an event.Status on its event stream (the
// message log's line, the bridge_agent_status metric), and an event to the
// topic StatusTopic, which agents of any dialect can subscribe to.

// StatusTopic is the topic agent status changes are published to.
const StatusTopic = "agent-status"

// StatusEvent is the event type of a status change.
const StatusEvent = "agent_status_changed"

// observe tells of a change to the directory.
func (b *Bridge) observe(c Change) {
	switch c.Kind {
	case directory.StatusChanged:
		b.events.Emit(event.Event{Kind: event.Status, Agent: c.Agent.ID, Status: string(c.Agent.Status), Previous: string(c.Previous), Why: c.Reason})
		b.announce(c.Agent.ID, c.Previous, c.Agent.Status, c.Reason)
	case directory.Removed:
		b.events.Emit(event.Event{Kind: event.Status, Agent: c.Agent.ID, Why: c.Reason})
	}
}

// announce publishes a status change to the subscribers of StatusTopic.
func (b *Bridge) announce(id string, old, status Status, reason string) {
	ts := b.dir.Connected(nil, func(a *agent) bool { return a.Follows(StatusTopic) && a.ID() != id })
	if len(ts) == 0 {
		return
	}
	env := &canonical.Envelope{
		Act: canonical.ActEvent, Sender: canonical.Party{ID: b.id},
		Receiver:  canonical.Address{Kind: canonical.AddressTopic, ID: StatusTopic},
		Operation: canonical.Operation{Name: StatusEvent},
		Arguments: canonical.JSON(fmt.Sprintf(`{"agent_id":%q,"status":%q,"previous":%q,"reason":%q}`, id, status, old, reason)),
	}
	b.fanout(env, ts)
}

// heartbeats pings the bridge's connections every interval (package
// health), until the bridge shuts down.
func (b *Bridge) heartbeats(interval time.Duration) {
	health.Heartbeat(interval, b.pingable, b.stopped)
}

// pingable returns the sessions the heartbeat pings: those whose link can
// be pinged and that last longer than one message.
func (b *Bridge) pingable() []health.Target {
	all := b.allSessions()
	out := make([]health.Target, 0, len(all))
	for _, s := range all {
		if p, ok := s.link.(Pinger); ok && !s.opts.Ephemeral {
			out = append(out, &beat{b: b, s: s, p: p})
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

func (t *beat) Ping(ctx context.Context) error {
	if !t.b.attached(t.s) {
		return errGone
	}
	return t.p.Ping(ctx)
}

func (t *beat) Pinged(err error) {
	a := t.s.bound()
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
