package metrics

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
)

// callTransport is the call API's name as a transport: what it hands
// over is not a delivery to an agent, and is not counted as one.
const callTransport = "call"

// Handle counts what e tells: the messages received and delivered, the
// errors, the requests answered and how long they took, how long each
// message took to handle, late answers, duplicates, and each agent's
// status.
func (m *Metrics) Handle(e event.Event) {
	switch e.Kind {
	case event.Received:
		m.Received(e.Dialect, e.Env.Act)
	case event.Handled:
		m.Handled(e.Duration)
	case event.Delivered:
		if e.Transport != callTransport {
			m.Delivered(e.Note.Sender, orAnonymous(e.Agent), e.Note.Act)
		}
	case event.Refused:
		m.Errored(e.Agent, e.Err.Code)
	case event.Answered:
		if e.ByBridge && e.Err != nil {
			m.Errored(e.Agent, e.Err.Code)
		}
		m.RequestDone(e.Agent, e.To, e.Duration)
	case event.Late:
		m.Late()
	case event.Duplicate:
		m.Duplicate()
	case event.Status:
		if e.Change.Status == "" {
			m.Forget(e.Agent)
			return
		}
		m.Status(e.Agent, e.Change.Status)
	}
}

// Kinds picks the events the metrics count.
func (m *Metrics) Kinds() event.Kinds {
	return event.KindsOf(event.Received, event.Handled, event.Delivered, event.Refused, event.Answered,
		event.Late, event.Duplicate, event.Status)
}

func orAnonymous(id string) string {
	if id == "" {
		return "anonymous"
	}
	return id
}

var _ event.Subscriber = (*Metrics)(nil)
