package route

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// StatusTopic is the topic agent status changes are published to.
const StatusTopic = "agent-status"

// StatusEvent is the event type of a status change.
const StatusEvent = "agent_status_changed"

// observe tells of a change to the directory: an event.Status on the
// event stream (the message log's line, the bridge_agent_status metric),
// and an event to the topic StatusTopic, which agents of any dialect can
// subscribe to.
func (c *controller) observe(ch directory.Change) {
	switch ch.Kind {
	case directory.StatusChanged:
		c.r.events.Emit(event.Event{Kind: event.Status, Agent: ch.Agent.ID, Change: &event.Change{Status: string(ch.Agent.Status), Previous: string(ch.Previous), Why: ch.Reason}})
		c.announce(ch.Agent.ID, ch.Previous, ch.Agent.Status, ch.Reason)
	case directory.Removed:
		c.r.events.Emit(event.Event{Kind: event.Status, Agent: ch.Agent.ID, Change: &event.Change{Why: ch.Reason}})
	}
}

// announce publishes a status change to the subscribers of StatusTopic
// but the agent itself.
func (c *controller) announce(id string, old, status directory.Status, reason string) {
	ts := c.r.dir.Connected(nil, func(a *Agent) bool { return a.Follows(StatusTopic) && a.ID() != id })
	if len(ts) == 0 {
		return
	}
	env := &canonical.Envelope{
		Act: canonical.ActEvent, Sender: canonical.Party{ID: c.r.id},
		Receiver:  canonical.Address{Kind: canonical.AddressTopic, ID: StatusTopic},
		Operation: canonical.Operation{Name: StatusEvent},
		Arguments: canonical.JSON(fmt.Sprintf(`{"agent_id":%q,"status":%q,"previous":%q,"reason":%q}`, id, status, old, reason)),
	}
	c.r.fanout(env, ts)
}
