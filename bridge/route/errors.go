package route

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// ActFor returns the act an error of code is sent as: a message the
// receiver could not read is not understood, one it may not send is
// refused, anything else failed.
func ActFor(code canonical.ErrorCode) canonical.Act {
	switch code {
	case canonical.ErrInvalidMessage, canonical.ErrTooLarge:
		return canonical.ActNotUnderstood
	case canonical.ErrUnauthorized, canonical.ErrRejected:
		return canonical.ActRefuse
	}
	return canonical.ActFailure
}

// ErrorFrame returns the error e as the bridge answers a sender of the
// dialect about frame, for what a transport refuses before a session
// reads it (an HTTP request whose agent's token is wrong): in the
// dialect, correlated with frame when frame decodes (ErrorFrame takes
// ownership of it; it may be nil), and as {"error": {"code", "message"}}
// when the dialect is unknown or cannot write the error.
func (r *Router) ErrorFrame(dialect string, frame []byte, e *canonical.Error) []byte {
	codec, ok := r.rules.Load().Registry.Lookup(dialect)
	if !ok {
		return PlainError(e)
	}
	var env *canonical.Envelope
	if len(frame) > 0 {
		env, _ = codec.Decode(frame) // an undecodable frame is answered uncorrelated
	}
	if env != nil && env.Sender.ID != "" {
		env.Sender.ID = r.Resolve(SpellerOf(codec), dialect, env.Sender.ID)
	}
	return r.EncodeError(codec, ErrorReply(env, e))
}

// ErrorReply is the bridge's error e in answer to env (nil when the
// frame could not be decoded), correlated with it.
func ErrorReply(env *canonical.Envelope, e *canonical.Error) *canonical.Envelope {
	reply := &canonical.Envelope{
		Act:     ActFor(e.Code),
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
	reply.InReplyTo = correlation.FirstOf(env.ReplyWith, env.ID, env.TaskID, env.CorrelationID)
	reply.CorrelationID = env.CorrelationID
	reply.TaskID = env.TaskID
	reply.Trace = env.Trace
	if env.Sender.ID != "" {
		reply.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: env.Sender.ID}
	}
}

// EncodeError writes reply, an error from the bridge whose receiver is a
// canonical id, in codec's dialect, falling back to PlainError.
func (r *Router) EncodeError(codec dialects.Codec, reply *canonical.Envelope) []byte {
	dialect := codec.Name()
	ru := r.rules.Load()
	reply.Sender = canonical.Party{ID: ru.Spell(dialect, r.id)}
	if reply.Receiver.Kind == canonical.AddressAgent {
		reply.Receiver.ID = ru.Spell(dialect, reply.Receiver.ID)
	}
	frame, err := codec.Encode(nil, reply, &dialects.EncodeContext{Refusal: true})
	if err != nil {
		r.log.Error("error reply cannot be encoded", "dialect", dialect, "error", err)
		return PlainError(reply.Error)
	}
	return frame
}

// PlainError is the answer to a sender whose dialect is unknown:
// {"error": {"code": ..., "message": ...}}.
func PlainError(e *canonical.Error) []byte {
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

// Spell returns how dialect names the agent whose canonical id is id:
// its alias there, if it has one.
func (ru *Rules) Spell(dialect, id string) string {
	if a, ok := ru.Mappings.Alias(dialect, id); ok {
		return a
	}
	return id
}
