package swarm

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// The bounds of a tool request's timeout, in seconds (upstream validator).
const (
	minTimeout = 1
	maxTimeout = 300
)

// Encode appends env as a swarm message to dst.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	msgType, ok := dialects.Word(ctx, env, Name, c.acts, string(env.Act), canonical.CAct)
	if !ok {
		return dst, dialects.Errorf(Name, "", "cannot express act %q: swarm has no message type for it", env.Act)
	}
	dialects.ReportLosses(ctx, env, Name, holds(env.Act))

	w := jsonw.New(dst)
	w.Open()
	id := env.ID
	if id == "" {
		id = ctx.ID()
	}
	w.Key("message_id")
	w.String(id)
	w.Key("message_type")
	w.String(msgType)

	sender := env.Sender.ID
	if sender == "" {
		sender = "unknown"
		ctx.Fill(canonical.CSender, "sender_id", sender)
	}
	w.Key("sender_id")
	w.String(sender)

	w.Key("receiver_id")
	switch env.Receiver.Kind {
	case canonical.AddressAgent:
		w.String(env.Receiver.ID)
	case canonical.AddressTopic:
		ctx.Lose(dialects.Approximated, canonical.CReceiver, "receiver", fmt.Sprintf("swarm has no topics; topic %q sent to all (receiver_id null)", env.Receiver.ID))
		w.Null()
	default:
		if msgType == typeNotification || msgType == typeError {
			w.Null()
		} else {
			ctx.Fill(canonical.CReceiver, "receiver_id", "unknown")
			w.String("unknown")
		}
	}

	w.Key("timestamp")
	w.String(string(dialects.TimeFor(ctx, Name, env.Time, canonical.CTime, true, true)))

	w.Key("correlation_id")
	if corr := c.correlation(env, msgType, ctx); corr != "" {
		w.String(corr)
	} else {
		w.Null()
	}

	if env.Priority != 0 {
		if p, ok := dialects.Word(ctx, env, Name, c.prio, env.Priority.String(), canonical.CPriority); ok {
			w.Key("priority")
			w.String(p)
		}
	}

	w.Key("payload")
	switch msgType {
	case typeRequest:
		c.encodeRequest(&w, env, ctx)
	case typeResponse:
		c.encodeResponse(&w, env, ctx)
	case typeError:
		c.encodeError(&w, env, ctx)
	case typeNotification:
		w.Open()
		name := env.Operation.Name
		if name == "" {
			name = "event"
			ctx.Fill(canonical.COperation, "payload.event_type", name)
		}
		w.Key("event_type")
		w.String(name)
		c.objectField(&w, ctx, "data", env.Arguments, canonical.CArguments)
		dialects.WriteExtras(&w, env, Name, "payload")
		w.Close()
	case typeHandshakeRequest, typeHandshakeResponse:
		c.encodeCapabilities(&w, env, ctx)
	}
	if msgType == typeHandshakeResponse {
		w.Key("accepted")
		w.Bool(env.Outcome != canonical.OutcomeFailure)
	}
	dialects.WriteExtras(&w, env, Name, "")
	w.Close()
	return w.Buf, nil
}

// correlation returns the correlation_id to write: replies quote the message
// they answer, other messages carry their correlation id.
func (c *Codec) correlation(env *canonical.Envelope, msgType string, ctx *dialects.EncodeContext) string {
	if !env.Act.IsReply() {
		return env.CorrelationID
	}
	if env.InReplyTo != "" {
		return env.InReplyTo
	}
	if msgType == typeResponse || msgType == typeHandshakeResponse {
		v := env.CorrelationID
		if v == "" {
			v = env.TaskID
		}
		if v == "" {
			v = "unknown"
		}
		ctx.Fill(canonical.CInReplyTo, "correlation_id", v)
		return v
	}
	return ""
}

func (c *Codec) encodeRequest(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	w.Open()
	name := env.Operation.Name
	if name == "" {
		name = env.Operation.Capability
		if name == "" {
			name = string(env.Act)
		}
		ctx.Fill(canonical.COperation, "payload.tool_name", name)
	}
	w.Key("tool_name")
	w.String(name)
	c.objectField(w, ctx, "arguments", env.Arguments, canonical.CArguments)
	if env.TTL.Set {
		secs := seconds(env.TTL.D)
		clamped := min(max(secs, minTimeout), maxTimeout)
		if clamped != secs || float64(secs) != env.TTL.D.Seconds() {
			dialects.Approximate(ctx, canonical.CTTL, Name, env.TTL.D.String(), fmt.Sprintf("timeout %d s (whole seconds from %d to %d)", clamped, minTimeout, maxTimeout))
		}
		w.Key("timeout")
		w.Int(clamped)
	}
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

func (c *Codec) encodeResponse(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	w.Open()
	if env.Outcome == canonical.OutcomePartial {
		dialects.Approximate(ctx, canonical.COutcome, Name, string(env.Outcome), "success true")
	}
	w.Key("success")
	w.Bool(env.Outcome != canonical.OutcomeFailure)
	w.Key("result")
	if env.Result != "" {
		w.Raw(string(env.Result))
	} else {
		w.Null()
	}
	w.Key("error")
	if env.Error != nil && env.Error.Message != "" {
		w.String(env.Error.Message)
	} else {
		w.Null()
	}
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

func (c *Codec) encodeError(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	e := env.Error
	if e == nil {
		e = &canonical.Error{}
	}
	code := e.Code
	if code == "" {
		code = canonical.DefaultErrorCode(env.Act)
	}
	w.Open()
	w.Key("error_code")
	if word := env.Origin.Words[canonical.KindError]; word != "" && e.Code == "" {
		w.String(word) // the source's own word, with no canonical meaning: kept as it is
	} else {
		word, _ := dialects.Word(ctx, env, Name, c.errs, string(code), canonical.CErrorCode)
		w.String(word)
	}
	msg := e.Message
	if msg == "" {
		msg = string(code)
		ctx.Fill(canonical.CErrorMessage, "payload.error_message", msg)
	}
	w.Key("error_message")
	w.String(msg)
	c.objectField(w, ctx, "details", e.Details, canonical.CErrorDetails)
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

// encodeCapabilities writes an AgentCapabilities payload: the source's own
// when it was swarm, else one built from the sender and the tools.
func (c *Codec) encodeCapabilities(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	caps := env.Capabilities
	if caps != nil && caps.Dialect == Name && caps.Raw != "" {
		w.Raw(string(caps.Raw))
		return
	}
	id := env.Sender.ID
	if id == "" {
		id = "unknown"
	}
	name := env.Sender.Name
	if name == "" {
		name = id
	}
	w.Open()
	w.Key("agent_id")
	w.String(id)
	w.Key("agent_name")
	w.String(name)
	w.Key("agent_role")
	w.String("agent")
	w.Key("tools")
	w.OpenArray()
	if caps != nil {
		for _, t := range caps.Tools {
			w.String(t.Name)
		}
	}
	w.CloseArray()
	w.Key("version")
	w.String("0.1.0")
	w.Key("metadata")
	w.Raw("{}")
	w.Close()
}

// objectField writes key with raw when raw is a JSON object; any other value
// is wrapped as {"value": raw} and reported, since swarm types these fields
// as objects.
func (c *Codec) objectField(w *jsonw.Writer, ctx *dialects.EncodeContext, key string, raw canonical.JSON, concept canonical.Concept) {
	if raw == "" {
		return
	}
	w.Key(key)
	if dialects.IsObject(raw) {
		w.Raw(string(raw))
		return
	}
	dialects.Approximate(ctx, concept, Name, string(raw), `{"value": ...}`)
	w.Open()
	w.Key("value")
	w.Raw(string(raw))
	w.Close()
}
