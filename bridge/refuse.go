package bridge

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// actFor returns the act an error of code is sent as: a message the
// receiver could not read is not understood, one it may not send is
// refused, anything else failed.
func actFor(code canonical.ErrorCode) canonical.Act {
	switch code {
	case canonical.ErrInvalidMessage, canonical.ErrTooLarge:
		return canonical.ActNotUnderstood
	case canonical.ErrUnauthorized, canonical.ErrRejected:
		return canonical.ActRefuse
	}
	return canonical.ActFailure
}

// refuse answers the sender of env (nil when the frame could not be
// decoded) with e, in the session's dialect, and counts it.
func (s *Session) refuse(env *canonical.Envelope, e *canonical.Error) Receipt {
	return s.refuseFrame(nil, env, e)
}

// refuseFrame is refuse for a frame refused as it is read, before the
// bridge remembers its arrival: the taps see it as received.
func (s *Session) refuseFrame(received []byte, env *canonical.Envelope, e *canonical.Error) Receipt {
	b := s.b
	s.mu.Lock()
	codec, label, a := s.currentCodec(), s.dialect, s.agent
	s.mu.Unlock()
	reply := errorReply(env, e)
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
	case s.opts.Envelopes:
		dialect = label
		reply.Sender = canonical.Party{ID: b.id}
		asEnv = reply
	case codec != nil:
		dialect = codec.Name()
		frame = b.encodeError(codec, reply)
	default:
		frame = plainError(e)
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
	codec, ok := b.registry().Lookup(dialect)
	if !ok {
		return plainError(e)
	}
	var env *canonical.Envelope
	if len(frame) > 0 {
		env, _ = codec.Decode(frame) // an undecodable frame is answered uncorrelated
	}
	if env != nil && env.Sender.ID != "" {
		env.Sender.ID = b.resolve(spellerOf(codec), dialect, env.Sender.ID)
	}
	return b.encodeError(codec, errorReply(env, e))
}

// errorReply is the bridge's error e in answer to env (nil when the
// frame could not be decoded), correlated with it.
func errorReply(env *canonical.Envelope, e *canonical.Error) *canonical.Envelope {
	reply := &canonical.Envelope{
		Act:     actFor(e.Code),
		Outcome: canonical.OutcomeFailure,
		Error:   e.SayRetryable(),
	}
	if env != nil {
		correlate(reply, env)
	}
	return reply
}

// correlate makes reply, the bridge's own, answer env: it names env's ids
// and trace, and goes to env's sender.
func correlate(reply, env *canonical.Envelope) {
	reply.InReplyTo = firstOf(env.ReplyWith, env.ID, env.TaskID, env.CorrelationID)
	reply.CorrelationID = env.CorrelationID
	reply.TaskID = env.TaskID
	reply.Trace = env.Trace
	if env.Sender.ID != "" {
		reply.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: env.Sender.ID}
	}
}

// encodeError writes reply, an error from the bridge whose receiver is a
// canonical id, in codec's dialect, falling back to plainError.
func (b *Bridge) encodeError(codec dialects.Codec, reply *canonical.Envelope) []byte {
	dialect := codec.Name()
	reply.Sender = canonical.Party{ID: b.spell(dialect, b.id)}
	if reply.Receiver.Kind == canonical.AddressAgent {
		reply.Receiver.ID = b.spell(dialect, reply.Receiver.ID)
	}
	frame, err := codec.Encode(nil, reply, &dialects.EncodeContext{})
	if err != nil {
		b.log.Error("error reply cannot be encoded", "dialect", dialect, "error", err)
		return plainError(reply.Error)
	}
	return frame
}

// plainError is the answer to a sender whose dialect is unknown:
// {"error": {"code": ..., "message": ...}}.
func plainError(e *canonical.Error) []byte {
	var w jsonw.Writer
	w.Open()
	w.Key("error")
	w.Open()
	w.StringField("code", string(e.Code))
	w.StringField("message", e.Message)
	w.Close()
	w.Close()
	return w.Buf
}

// spell returns how dialect names the agent whose canonical id is id: its
// alias there, if it has one.
func (b *Bridge) spell(dialect, id string) string {
	if a, ok := b.mapping().Alias(dialect, id); ok {
		return a
	}
	return id
}
