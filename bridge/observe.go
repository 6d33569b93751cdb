package bridge

import (
	"strings"
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

// received tells of a message read from s, its frame (nil for a link of
// envelopes) of size bytes.
func (b *Bridge) received(s *Session, env *canonical.Envelope, size int, frame []byte) {
	if env.Act == canonical.ActNeedsInput {
		b.redactor.Learn(env)
	}
	if !b.events.Active() {
		return
	}
	agent, dialect := s.labels()
	b.events.Emit(event.Event{Kind: event.Received, Env: env, Frame: frame, Size: size, Agent: agent, Dialect: dialect, Transport: s.link.Transport()})
}

// copied tells that to is a copy of env on its way (a request under its
// token, an answer in its requester's terms), for whoever pairs a message
// with its arrival.
func (b *Bridge) copied(env, to *canonical.Envelope) {
	if b.events.Wants(event.Copies) {
		b.events.Emit(event.Event{Kind: event.Copied, Env: env, Copy: to})
	}
}

// report puts losses in words, when a subscriber wants it, at once: a
// loss's text is made from the envelope it was found in, which its
// deliverer may reuse once the message is encoded.
func (b *Bridge) report(losses []dialects.Loss) []event.Loss {
	if len(losses) == 0 || !b.events.Wants(event.Reports) {
		return nil
	}
	out := make([]event.Loss, 0, len(losses))
	for _, l := range losses {
		tl := event.Loss{Kind: l.Kind.String(), Concept: l.Concept.String(), Field: l.Path, Hint: l.Hint}
		if b.secretLoss(l) {
			tl.Message = l.Kind.String() + " " + l.Path + " (its value is not shown: it may be secret)"
		} else {
			tl.Message = l.Message()
		}
		out = append(out, tl)
	}
	return out
}

// secretLoss reports whether the text of a loss may quote a secret: an
// authentication value, or a member named like a credential.
func (b *Bridge) secretLoss(l dialects.Loss) bool {
	if l.Concept == canonical.CAuthentication || l.Concept == canonical.CInputs {
		return true
	}
	for _, seg := range strings.FieldsFunc(l.Path, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		if b.redactor.Secret(seg) {
			return true
		}
	}
	return false
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
func (b *Bridge) handled(start time.Time, r Receipt) {
	if b.events.Active() {
		b.events.Emit(event.Event{Kind: event.Handled, Duration: time.Since(start), Err: r.Err})
	}
}
