package bridge

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// received logs a message read from s and counts it.
func (b *Bridge) received(s *Session, env *canonical.Envelope, size int, frame []byte) {
	in, _, dialect := s.loggers()
	if env.Act == canonical.ActNeedsInput {
		b.redactor.learn(env)
	}
	b.metrics.Received(dialect, env.Act)
	b.tapArrived(env, frame, dialect)
	if !in.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.String("sender", env.Sender.ID), slog.String("act", string(env.Act)), slog.Int("bytes", size))
	n := noteOf(env)
	attrs = b.appendMessage(n.appendIDs(attrs), frame)
	logInfo(in, "received", attrs)
}

// sent logs a message, noted as n, delivered to the session to and counts
// it. a is the agent to speaks for, nil if none.
func (b *Bridge) sent(n *note, to *Session, a *agent, frame []byte) {
	dest := "anonymous"
	if a != nil {
		dest = a.ID()
	}
	source := n.sender
	b.metrics.Delivered(source, dest, n.act)
	_, out, _ := to.loggers()
	if !out.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.String("sender", source), slog.String("act", string(n.act)), slog.Int("bytes", len(frame)))
	attrs = b.appendMessage(n.appendIDs(attrs), frame)
	logInfo(out, "sent", attrs)
}

// logInfo logs msg with attrs at info level. It hands the line to the
// handler itself: Logger.LogAttrs would also look up its caller's program
// counter, which a handler without AddSource never reads, on every
// message; and serve's handler (logjson) takes the line's parts without a
// record.
func logInfo(l *slog.Logger, msg string, attrs []slog.Attr) {
	h := l.Handler()
	if ln, ok := h.(*logjson.Handler); ok {
		_ = ln.Line(time.Now(), slog.LevelInfo, msg, attrs)
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelInfo, msg, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(context.Background(), r)
}

// note is what the log line of a message says of it: a message's envelope
// may change after it is queued (a retry re-encodes it), its note does
// not, and it is a fraction of the envelope's size.
type note struct {
	sender string
	act    canonical.Act
	// ids are the id, in_reply_to, correlation_id, task_id, trace_id and
	// operation, in the order of noteIDs.
	ids [len(noteIDs)]string
}

// noteIDs name the ids a note keeps.
var noteIDs = [...]string{"id", "in_reply_to", "correlation_id", "task_id", "trace_id", "operation"}

func noteOf(env *canonical.Envelope) note {
	return note{sender: env.Sender.ID, act: env.Act, ids: [len(noteIDs)]string{
		env.ID, env.InReplyTo, env.CorrelationID, env.TaskID, env.Trace.TraceID, opName(env.Operation),
	}}
}

// sessionLogs are a session's loggers, its own attributes rendered once:
// in for what it sends the bridge, out for what the bridge sends it.
type sessionLogs struct {
	dialect, agent string
	in, out        *slog.Logger
}

// loggers returns the session's loggers and dialect, made again when the
// dialect or the agent it speaks for became known.
func (s *Session) loggers() (in, out *slog.Logger, dialect string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dialect = s.dialect
	agent := "anonymous"
	if s.agent != nil {
		agent = s.agent.ID()
	}
	l := &s.logs
	if l.in == nil || l.dialect != dialect || l.agent != agent {
		base := s.b.log.With(slog.String("dialect", dialect), slog.String("transport", s.link.Transport()))
		l.dialect, l.agent = dialect, agent
		l.in = base
		l.out = base.With(slog.String("receiver", agent))
	}
	return l.in, l.out, dialect
}

// appendIDs adds the message's ids that are set.
func (n *note) appendIDs(attrs []slog.Attr) []slog.Attr {
	for i, v := range n.ids {
		if v != "" {
			attrs = append(attrs, slog.String(noteIDs[i], v))
		}
	}
	return attrs
}

// appendMessage adds the message itself, redacted, at debug level.
func (b *Bridge) appendMessage(attrs []slog.Attr, frame []byte) []slog.Attr {
	if frame == nil || !b.log.Enabled(context.Background(), slog.LevelDebug) {
		return attrs
	}
	return append(attrs, slog.String("message", string(b.redactor.redact(frame))))
}

// lost logs, at debug level, what the receiver's dialect could not hold.
func (b *Bridge) lost(env *canonical.Envelope, to string, res translate.Result) {
	if len(res.Losses) == 0 || !b.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	for _, l := range res.Losses {
		// The loss's own text quotes values, which may be secret: only
		// its kind and field are logged.
		b.log.Debug("translation loss", "to", to, "act", env.Act, "kind", l.Kind.String(), "concept", l.Concept.String(), "field", l.Path)
	}
}
