package bridge

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Refuse answers the sender of env (nil when the frame could not be
// decoded) with e, in the session's dialect, and counts it.
func (s *Session) Refuse(env *canonical.Envelope, e *canonical.Error) Receipt {
	return s.refuseFrame(nil, env, e)
}

// refuseFrame is refuse for a frame refused as it is read, before the
// bridge remembers its arrival: the taps see it as received.
func (s *Session) refuseFrame(received []byte, env *canonical.Envelope, e *canonical.Error) Receipt {
	b := s.b
	s.mu.Lock()
	codec, label, a := s.currentCodec(), s.dialect, s.agent
	s.mu.Unlock()
	reply := route.ErrorReply(env, e)
	source := "unknown"
	switch {
	case a != nil:
		source = a.ID()
	case env != nil && env.Sender.ID != "":
		source = env.Sender.ID
	}
	// The failure handler outlives the frame, whose memory env's strings
	// share: keep a copy, not the frame.
	source = strings.Clone(source)
	var frame []byte
	dialect := "auto"
	var asEnv *canonical.Envelope
	switch {
	case s.opts.envelopes:
		dialect = label
		reply.Sender = canonical.Party{ID: b.r.ID()}
		asEnv = reply
	case codec != nil:
		dialect = codec.Name()
		frame = b.r.EncodeError(codec, reply)
	default:
		frame = route.PlainError(e)
	}
	b.events.Emit(event.Event{Kind: event.Refused, Env: env, Input: received, Frame: frame, Err: e, Agent: source, Dialect: dialect, Transport: s.link.Transport()})
	// The answer is queued like any message to the sender, but past the
	// agent's bound: a sender whose queue is full must still hear why.
	it := &delivery.Item{
		Out:   Outbound{Frame: frame, Env: asEnv, Act: reply.Act, Code: e.Code, Final: true, Trace: reply.Trace, ByBridge: true},
		Level: delivery.NormalLevel, Force: true,
		Failed: func(reason error) {
			b.log.Warn("error reply not delivered", "dialect", dialect, "agent", source, "error", reason.Error())
		},
	}
	if err := s.out.Put(it); err != nil {
		it.Fail(err)
	}
	return Receipt{Err: e}
}

// ErrorFrame returns the error e as the bridge answers a sender of the
// dialect about frame, for what a transport refuses before a session
// reads it (an HTTP request whose agent's token is wrong): in the
// dialect, correlated with frame when frame decodes (ErrorFrame takes
// ownership of it; it may be nil), and as {"error": {"code", "message"}}
// when the dialect is unknown or cannot write the error.
func (b *Bridge) ErrorFrame(dialect string, frame []byte, e *canonical.Error) []byte {
	return b.r.ErrorFrame(dialect, frame, e)
}
