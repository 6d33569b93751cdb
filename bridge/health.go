package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/sleep"
)

// Agent health: the states and when they change are the directory's
// (directory/status.go). The bridge feeds it what it sees (answers,
// timeouts, heartbeats, connections coming and going) and tells the world
// of each change: a log line, the bridge_agent_status metric, and an event
// to the topic StatusTopic, which agents of any dialect can subscribe to.

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

// beatStep is the shortest wait between two steps of a heartbeat round.
const beatStep = 20 * time.Millisecond

// heartbeats pings every attached connection that can be pinged once each
// round of interval, until the bridge shuts down. A round's pings are
// spread over it in steps (beatSteps): pinged all at once, 10,000 agents'
// pings and pongs held every other message up for half a second (bench
// --idle 10000 at 1,000 pairs/s: a p99 of 390-500 ms with the heartbeat,
// 2-3 ms without). One goroutine serves all sessions; it sleeps outside
// the runtime's timers (package sleep): measured on BenchmarkHop, one
// long-lived runtime timer in the process made each round trip through the
// bridge about 60 us slower (p50 ~150 us against ~90 us), though it never
// fired during the run. A session that attaches during a round is pinged
// from the next.
func (b *Bridge) heartbeats(interval time.Duration) {
	go func() {
		for {
			round := b.pingable()
			steps := beatSteps(len(round), interval)
			for k := range steps {
				sleep.OutsideRuntime(interval / time.Duration(steps))
				select {
				case <-b.stopped:
					return
				default:
				}
				for _, s := range stepOf(round, k, steps) {
					go b.ping(s, s.link.(Pinger), interval)
				}
			}
		}
	}()
}

// pingable returns the sessions the heartbeat pings: those whose link can
// be pinged and that last longer than one message.
func (b *Bridge) pingable() []*Session {
	all := b.allSessions()
	out := all[:0]
	for _, s := range all {
		if _, ok := s.link.(Pinger); ok && !s.opts.Ephemeral {
			out = append(out, s)
		}
	}
	return out
}

// beatSteps returns in how many steps a heartbeat round of interval pings
// n sessions: one per session, at most one per beatStep, at least one.
func beatSteps(n int, interval time.Duration) int {
	return max(1, min(n, int(interval/beatStep)))
}

// stepOf returns the sessions of round that step k of steps pings: every
// session in exactly one step, the steps' sizes differing by one at most.
func stepOf(round []*Session, k, steps int) []*Session {
	return round[k*len(round)/steps : (k+1)*len(round)/steps]
}

// ping checks one session's peer, counting a miss against its agent.
func (b *Bridge) ping(s *Session, p Pinger, timeout time.Duration) {
	if !b.attached(s) {
		return // gone since its round began
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := p.Ping(ctx)
	cancel()
	a := s.bound()
	if a == nil {
		return
	}
	if err == nil {
		b.dir.HeardFrom(a)
		return
	}
	b.dir.Missed(a, s)
}

// forgetting removes, every so often until the bridge shuts down, the
// agents known only from HTTP requests that sent none for after.
func (b *Bridge) forgetting(after time.Duration) {
	every := min(max(after/4, 10*time.Millisecond), time.Minute)
	go func() {
		for {
			sleep.OutsideRuntime(every)
			select {
			case <-b.stopped:
				return
			default:
			}
			b.dir.Forget(time.Now().Add(-after))
		}
	}()
}
