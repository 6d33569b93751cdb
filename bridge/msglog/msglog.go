// Package msglog writes the bridge's message log: a line for each message
// received and sent, each refusal, drop and late answer, and each change
// of an agent's status, at info level; at debug level the messages
// themselves, their secrets redacted, and what their translations lost.
// It is a subscriber of the core's event stream (package event).
package msglog

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
)

// Log writes the message log to a logger.
type Log struct {
	log *slog.Logger
	red *redact.Redactor
	// fast is l's handler when it is serve's (logjson), which writes the
	// lines of every message member by member.
	fast *logjson.Handler
}

// New returns the message log written to l, with the secrets red knows
// redacted from the messages logged at debug level.
func New(l *slog.Logger, red *redact.Redactor) *Log {
	fast, _ := l.Handler().(*logjson.Handler)
	return &Log{log: l, red: red, fast: fast}
}

// The names of the members of the lines of every message, written once.
var (
	keyDialect   = logjson.NewKey("dialect")
	keyTransport = logjson.NewKey("transport")
	keySender    = logjson.NewKey("sender")
	keyReceiver  = logjson.NewKey("receiver")
	keyAct       = logjson.NewKey("act")
	keyBytes     = logjson.NewKey("bytes")
	keyIDs       = func() (ks [len(event.NoteIDs)]logjson.Key) {
		for i, id := range event.NoteIDs {
			ks[i] = logjson.NewKey(id)
		}
		return ks
	}()
)

// callTransport is the call API's name as a transport: what it hands
// over is no connection's, and is not logged.
const callTransport = "call"

// Handle logs what e tells.
func (l *Log) Handle(e event.Event) {
	switch e.Kind {
	case event.Received:
		if !l.log.Enabled(context.Background(), slog.LevelInfo) {
			return
		}
		n := event.NoteOf(e.Env)
		at := e.When()
		if ln, ok := l.start(at, "received"); ok {
			ln.String(keyDialect, e.Dialect)
			ln.String(keyTransport, e.Transport)
			ln.String(keySender, e.Env.Sender.ID)
			ln.String(keyAct, string(e.Env.Act))
			ln.Int(keyBytes, e.Size)
			if l.end(&ln, &n) {
				return
			}
		}
		attrs := make([]slog.Attr, 0, 12)
		attrs = append(attrs, slog.String("dialect", e.Dialect), slog.String("transport", e.Transport),
			slog.String("sender", e.Env.Sender.ID), slog.String("act", string(e.Env.Act)), slog.Int("bytes", e.Size))
		attrs = l.appendMessage(appendIDs(attrs, &n), e.Frame)
		l.line(at, "received", attrs)
	case event.Delivered:
		if e.Transport == callTransport || !l.log.Enabled(context.Background(), slog.LevelInfo) {
			return
		}
		at := e.When()
		if ln, ok := l.start(at, "sent"); ok {
			ln.String(keyDialect, e.Dialect)
			ln.String(keyTransport, e.Transport)
			ln.String(keyReceiver, orAnonymous(e.Agent))
			ln.String(keySender, e.Note.Sender)
			ln.String(keyAct, string(e.Note.Act))
			ln.Int(keyBytes, len(e.Frame))
			if l.end(&ln, &e.Note) {
				return
			}
		}
		attrs := make([]slog.Attr, 0, 13)
		attrs = append(attrs, slog.String("dialect", e.Dialect), slog.String("transport", e.Transport), slog.String("receiver", orAnonymous(e.Agent)),
			slog.String("sender", e.Note.Sender), slog.String("act", string(e.Note.Act)), slog.Int("bytes", len(e.Frame)))
		attrs = l.appendMessage(appendIDs(attrs, &e.Note), e.Frame)
		l.line(at, "sent", attrs)
	case event.Translated:
		l.lost(e)
	case event.Dropped:
		reason := ""
		if len(e.Losses) > 0 {
			reason = e.Losses[0].Message()
		}
		l.log.Info("dropped by mapping policy", "act", e.Env.Act, "dialect", e.Dialect, "reason", reason)
	case event.Refused:
		if e.Transport == callTransport {
			return
		}
		inReplyTo := ""
		if e.Env != nil {
			inReplyTo = firstOf(e.Env.ReplyWith, e.Env.ID, e.Env.TaskID, e.Env.CorrelationID)
		}
		l.log.Warn("refused", "dialect", e.Dialect, "transport", e.Transport, "agent", e.Agent, "code", e.Err.Code, "problem", e.Err.Message, "in_reply_to", inReplyTo)
	case event.Late:
		l.log.Info("late answer dropped", "sender", e.Agent, "act", e.Env.Act, "in_reply_to", e.Env.InReplyTo, "correlation_id", e.Env.CorrelationID, "task_id", e.Env.TaskID)
	case event.Duplicate:
		l.log.Info("duplicate", "sender", e.Env.Sender.ID, "act", e.Env.Act, "id", e.Env.ID, "task_id", e.Env.TaskID)
	case event.Status:
		if e.Change.Status == "" {
			l.log.Info("agent forgotten", "agent", e.Agent, "reason", e.Change.Why)
			return
		}
		l.log.Info("agent status", "agent", e.Agent, "status", e.Change.Status, "was", e.Change.Previous, "reason", e.Change.Why)
	}
}

// Kinds picks the events the message log writes of.
func (l *Log) Kinds() event.Kinds {
	return event.KindsOf(event.Received, event.Delivered, event.Translated, event.Dropped, event.Refused,
		event.Late, event.Duplicate, event.Status)
}

// line logs msg with attrs at info level. It hands the line to the
// handler itself: Logger.LogAttrs would also look up its caller's program
// counter, which a handler without AddSource never reads, on every
// message; and serve's handler (logjson) takes the line's parts without a
// record.
func (l *Log) line(at time.Time, msg string, attrs []slog.Attr) {
	h := l.log.Handler()
	if ln, ok := h.(*logjson.Handler); ok {
		_ = ln.Line(at, slog.LevelInfo, msg, attrs)
		return
	}
	r := slog.NewRecord(at, slog.LevelInfo, msg, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(context.Background(), r)
}

// start begins the info line msg, made at at, member by member with
// serve's handler; false when another handler writes the log, or when the
// line carries the message itself (at debug level), which goes as
// attributes.
func (l *Log) start(at time.Time, msg string) (logjson.Builder, bool) {
	if l.fast == nil || l.log.Enabled(context.Background(), slog.LevelDebug) {
		return logjson.Builder{}, false
	}
	return l.fast.Start(at, slog.LevelInfo, msg), true
}

// end adds the ids of n that are set to ln and writes it; false when the
// handler could not write the line itself, and wrote nothing.
func (l *Log) end(ln *logjson.Builder, n *event.Note) bool {
	for i, v := range n.IDs {
		if v != "" {
			ln.String(keyIDs[i], v)
		}
	}
	return ln.End()
}

// appendIDs adds the message's ids that are set.
func appendIDs(attrs []slog.Attr, n *event.Note) []slog.Attr {
	for i, v := range n.IDs {
		if v != "" {
			attrs = append(attrs, slog.String(event.NoteIDs[i], v))
		}
	}
	return attrs
}

// appendMessage adds the message itself, redacted, at debug level.
func (l *Log) appendMessage(attrs []slog.Attr, frame []byte) []slog.Attr {
	if frame == nil || !l.log.Enabled(context.Background(), slog.LevelDebug) {
		return attrs
	}
	return append(attrs, slog.String("message", string(l.red.Redact(frame))))
}

// lost logs, at debug level, what the receiver's dialect could not hold.
func (l *Log) lost(e event.Event) {
	if len(e.Losses) == 0 || !l.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	for _, x := range e.Losses {
		// The loss's own text quotes values, which may be secret: only
		// its kind and field are logged.
		l.log.Debug("translation loss", "to", e.Dialect, "act", e.Env.Act, "kind", x.Kind.String(), "concept", x.Concept.String(), "field", x.Path)
	}
}

func orAnonymous(id string) string {
	if id == "" {
		return "anonymous"
	}
	return id
}

// firstOf returns the first of vs that is not empty.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

var _ event.Subscriber = (*Log)(nil)
