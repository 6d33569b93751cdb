package collab

import (
	"fmt"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// shape is the body layout a message type calls for.
type shape uint8

const (
	shapeRequest shape = iota
	shapeResponse
	shapeEvent
)

// Encode appends env as a collab message to dst. An envelope decoded from
// collab is written back in its own layout; any other is written in the
// header layout with the required header members filled.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	own := env.Origin.Dialect == Name
	msgType, sh, err := c.messageType(env, ctx, own)
	if err != nil {
		return dst, err
	}
	act := c.writtenAct(env, ctx)
	dialects.ReportLosses(ctx, env, Name, c.Holds(act))

	var l layout
	if own {
		l = parseForm(env.Origin.Form)
	}
	corr := c.correlation(env, ctx, sh, own, l)

	w := jsonw.New(dst)
	w.Open()
	if l.flat {
		c.writeHeader(&w, env, ctx, msgType, corr, own)
	} else {
		w.Name("header")
		w.Open()
		hdrCorr := corr
		if l.topCorrelation {
			hdrCorr = ""
		}
		c.writeHeader(&w, env, ctx, msgType, hdrCorr, own)
		dialects.WriteExtras(&w, env, Name, "header")
		w.Close()
		if l.topCorrelation && corr != "" {
			w.Name("correlationId")
			w.String(corr)
		}
	}
	if !l.noBody {
		w.Name("body")
		w.Open()
		switch sh {
		case shapeResponse:
			c.writeResponse(&w, env, ctx, act, own, l)
		case shapeEvent:
			w.NameString("event", env.Operation.Name)
			objectField(&w, ctx, "data", env.Arguments, canonical.CArguments, own)
		default:
			c.writeRequest(&w, env, ctx, act, own)
		}
		objectField(&w, ctx, "context", env.Context, canonical.CContext, own)
		dialects.WriteExtras(&w, env, Name, "body")
		w.Close()
	}
	writeTrace(&w, env)
	dialects.WriteExtras(&w, env, Name, "")
	w.Close()
	return w.Buf, nil
}

// messageType returns the type word to write and the body it calls for.
// Acts collab holds exactly are written as the type of their form (refuse
// and failure as RESPONSE, the capability acts as REQUEST); others take
// the table's nearest word, reported as approximated.
func (c *Codec) messageType(env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) (string, shape, error) {
	base := env.Act
	switch env.Act {
	case canonical.ActRequest, canonical.ActQueryCapabilities, canonical.ActInformCapabilities:
		base = canonical.ActRequest
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse:
		base = canonical.ActResult
	}
	word, ok := dialects.Word(ctx, env, Name, c.Acts, string(base), canonical.CAct)
	if !ok {
		return "", 0, dialects.Errorf(Name, "", "cannot express act %q: collab has no message type for it", env.Act)
	}
	act, _ := c.Acts.Canonical(word)
	switch canonical.Act(act) {
	case canonical.ActEvent:
		if !own || env.Origin.Word(Name, canonical.KindAct) != word {
			word = eventType(env.Receiver)
		}
		return word, shapeEvent, nil
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		return word, shapeResponse, nil
	}
	return word, shapeRequest, nil
}

// eventType returns the type of an event bound for r: PUBLISH to a topic or
// an agent, BROADCAST to all (also when no receiver is named).
func eventType(r canonical.Address) string {
	switch r.Kind {
	case canonical.AddressTopic, canonical.AddressAgent:
		return typePublish
	}
	return typeBroadcast
}

// writtenAct returns the act whose concepts the message carries, for the
// loss report. A plain request named like a registry operation is reported:
// a collab reader takes it for that operation.
func (c *Codec) writtenAct(env *canonical.Envelope, ctx *dialects.EncodeContext) canonical.Act {
	if env.Act == canonical.ActRequest && (env.Operation.Name == actionRegister || env.Operation.Name == actionFind) {
		approximate(ctx, canonical.CAct, "collab reads a REQUEST of action %q as a registry operation, not a plain request", env.Operation.Name)
	}
	return env.Act
}

// correlation returns the correlationId to write: replies quote the message
// they answer, other messages carry their correlation id. A RESPONSE from
// another dialect that names no request gets a stand-in.
func (c *Codec) correlation(env *canonical.Envelope, ctx *dialects.EncodeContext, sh shape, own bool, l layout) string {
	if !env.Act.IsReply() {
		return env.CorrelationID
	}
	if env.InReplyTo != "" || own || sh != shapeResponse {
		return env.InReplyTo
	}
	v := env.CorrelationID
	if v == "" {
		v = env.TaskID
	}
	if v == "" {
		v = "unknown"
	}
	at := "header.correlationId"
	if l.topCorrelation || l.flat {
		at = "correlationId"
	}
	ctx.Fill(canonical.CInReplyTo, at, v)
	return v
}

// writeHeader writes the header members into the open object (the header,
// or the message itself in the flat layout). Members absent from a collab
// envelope stay absent; for other envelopes the required ones are filled.
func (c *Codec) writeHeader(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, msgType, corr string, own bool) {
	id := env.ID
	if id == "" && !own {
		id = ctx.ID()
	}
	w.NameString("messageId", id)
	w.NameString("correlationId", corr)
	w.Name("type")
	w.String(msgType)

	source := env.Sender.ID
	if source == "" && !own {
		source = "unknown"
		ctx.Fill(canonical.CSender, "header.source", source)
	}
	w.NameString("source", source)
	if d, ok := destination(env, ctx, msgType, own); ok {
		w.Name("destination")
		w.String(d)
	}
	w.NameString("timestamp", string(dialects.TimeFor(ctx, Name, env.Time, canonical.CTime, !own, !own)))

	if env.Priority != 0 {
		n := env.Priority.Level()
		if word, ok := dialects.Word(ctx, env, Name, c.Priorities, env.Priority.String(), canonical.CPriority); ok {
			if v, err := strconv.Atoi(word); err == nil {
				n = v
			}
		}
		w.Name("priority")
		w.Int(int64(n))
	}
	if env.TTL.Set {
		w.Name("ttl")
		writeMillis(w, ctx, env.TTL.D, own, canonical.CTTL)
	}
}

// destination returns the destination to write, if any: "*", "topic:<name>"
// or the agent id. A message from another dialect always gets one: an event
// with no receiver goes to all, anything else gets a stand-in.
func destination(env *canonical.Envelope, ctx *dialects.EncodeContext, msgType string, own bool) (string, bool) {
	r := env.Receiver
	switch r.Kind {
	case canonical.AddressBroadcast:
		return destinationAll, true
	case canonical.AddressTopic:
		if r.ID == "" && !own {
			ctx.Fill(canonical.CReceiver, "header.destination", topicPrefix+"unknown")
			return topicPrefix + "unknown", true
		}
		return topicPrefix + r.ID, true
	case canonical.AddressAgent:
		if r.ID == "" && !own {
			ctx.Fill(canonical.CReceiver, "header.destination", "unknown")
			return "unknown", true
		}
		if address(r.ID).Kind != canonical.AddressAgent {
			approximate(ctx, canonical.CReceiver, "agent id %q reads as a collab broadcast or topic destination", r.ID)
		}
		return r.ID, true
	}
	switch {
	case own:
		return "", false
	case msgType == typeBroadcast:
		return destinationAll, true
	}
	ctx.Fill(canonical.CReceiver, "header.destination", "unknown")
	return "unknown", true
}

// writeTrace writes the trace object when there is anything to put in it.
func writeTrace(w *jsonw.Writer, env *canonical.Envelope) {
	t := env.Trace
	if t.TraceID == "" && t.SpanID == "" && t.ParentSpanID == "" && !dialects.HasExtras(env, Name, "trace") {
		return
	}
	w.Name("trace")
	w.Open()
	w.NameString("traceId", t.TraceID)
	w.NameString("spanId", t.SpanID)
	w.NameString("parentSpan", t.ParentSpanID)
	dialects.WriteExtras(w, env, Name, "trace")
	w.Close()
}

// objectField writes key with raw. collab types these members as objects:
// a non-object value from another dialect is wrapped as {"value": raw} and
// reported; one from a collab message is written back as it was.
func objectField(w *jsonw.Writer, ctx *dialects.EncodeContext, key string, raw canonical.JSON, concept canonical.Concept, own bool) {
	if raw == "" {
		return
	}
	w.Key(key)
	if own || dialects.IsObject(raw) {
		w.Raw(string(raw))
		return
	}
	approximate(ctx, concept, "collab types %s as an object; wrapped %s as {\"value\": ...}", key, clip(string(raw)))
	w.Open()
	w.Name("value")
	w.Raw(string(raw))
	w.Close()
}

// approximate records that concept was written as the nearest value collab
// holds.
func approximate(ctx *dialects.EncodeContext, concept canonical.Concept, format string, args ...any) {
	ctx.Lose(dialects.Approximated, concept, concept.String(), fmt.Sprintf(format, args...))
}

// clip shortens a value for a loss report.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
