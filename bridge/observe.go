package bridge

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// What watches the bridge (the message log, the metrics, the console's
// tap) subscribes to its event stream (package event): the core emits an
// event at each step of a message, here and where the step is taken.

// Subscribe adds s to the bridge's event stream until stop is called.
func (b *Bridge) Subscribe(s event.Subscriber) (stop func()) { return b.events.Subscribe(s) }

// Redactor returns what the bridge knows of secrets, for whatever shows
// its messages: credentials by name, and the inputs agents asked for as
// sensitive.
func (b *Bridge) Redactor() *redact.Redactor { return b.redactor }

// received tells of a message read from the session at start, its frame
// (nil for a link of envelopes) of size bytes; when traced is not nil
// (spans are wanted), the span slots are env's trace and traced.
func (s *Session) received(env *canonical.Envelope, size int, frame []byte, start time.Time, traced *func(*canonical.Error)) {
	b := s.b
	if env.Act == canonical.ActNeedsInput {
		b.redactor.Learn(env)
	}
	if !b.events.Active() {
		return
	}
	agent, dialect := s.labels()
	e := event.Event{Kind: event.Received, Time: start, Env: env, Frame: frame, Size: size, Agent: agent, Dialect: dialect, Transport: s.link.Transport()}
	if traced != nil {
		e.Span = &event.Span{Trace: &env.Trace, End: traced}
	}
	b.events.Emit(e)
}

// report puts losses in words when a subscriber wants it
// (event.ReportOf).
func (s *Session) report(losses []dialects.Loss) []event.Loss {
	b := s.b
	if len(losses) == 0 || !b.events.Wants(event.Reports) {
		return nil
	}
	return event.ReportOf(losses, b.redactor.Secret)
}

// idOf returns a's id, "" for none.
func idOf(a *agent) string {
	if a == nil {
		return ""
	}
	return a.ID()
}

// handled tells that routing a message received at start is done, with
// the refusal it got, if any.
func (s *Session) handled(start time.Time, r Receipt) {
	b := s.b
	if b.events.Active() {
		b.events.Emit(event.Event{Kind: event.Handled, Duration: time.Since(start), Err: r.Err})
	}
}
