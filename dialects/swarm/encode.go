package swarm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// The bounds of a tool request's timeout, in seconds (upstream validator).
const (
	minTimeout = 1
	maxTimeout = 300
)

// Encode appends env as a swarm message to dst. A message decoded from
// swarm is written back as it was; one from another dialect gets every
// member upstream's factory writes, with stand-ins reported as filled.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	msgType, ok := dialects.Word(ctx, env, Name, c.Acts, string(env.Act), canonical.CAct)
	if !ok {
		return dst, dialects.Errorf(Name, "", "cannot express act %q: swarm has no message type for it", env.Act)
	}
	dialects.ReportLosses(ctx, env, Name, c.Holds(env.Act))
	e := encoder{c: c, env: env, ctx: ctx, own: env.Origin.Dialect == Name}
	if e.own {
		e.lay = parseLayout(env.Origin.Form)
	}
	e.w = jsonw.New(dst)
	w := &e.w
	w.Open()
	if !e.lay.has(absMessageID) {
		id := env.ID
		if id == "" && !e.own {
			id = ctx.ID()
		}
		w.Name("message_id")
		w.String(id)
	}
	w.Name("message_type")
	w.String(msgType)
	if !e.lay.has(absSender) {
		w.Name("sender_id")
		w.String(e.fill(canonical.CSender, "sender_id", env.Sender.ID))
	}
	if !e.lay.has(absReceiver) {
		w.Name("receiver_id")
		e.receiver(msgType)
	}
	if !e.lay.has(absTimestamp) {
		w.Name("timestamp")
		if e.own {
			w.String(string(env.Time))
		} else {
			w.String(string(dialects.TimeFor(ctx, Name, env.Time, canonical.CTime, true, true)))
		}
	}
	if !e.lay.has(absCorrelation) {
		w.Name("correlation_id")
		if corr := e.correlation(msgType); corr != "" {
			w.String(corr)
		} else {
			w.Null()
		}
	}
	if env.Priority != 0 {
		if p, ok := dialects.Word(ctx, env, Name, c.Priorities, env.Priority.String(), canonical.CPriority); ok {
			w.Name("priority")
			w.String(p)
		}
	}
	if !e.lay.has(absPayload) {
		w.Name("payload")
		switch msgType {
		case typeRequest:
			e.request()
		case typeResponse:
			e.response()
		case typeError:
			e.errorPayload()
		case typeNotification:
			e.notification()
		case typeHandshakeRequest, typeHandshakeResponse:
			e.capabilities()
		}
	}
	if msgType == typeHandshakeResponse && !e.lay.has(absAccepted) && (!e.own || env.Outcome != "") {
		w.Name("accepted")
		w.Bool(env.Outcome != canonical.OutcomeFailure)
	}
	dialects.WriteExtras(w, env, Name, "")
	w.Close()
	return w.Buf, nil
}

// encoder writes one envelope.
type encoder struct {
	c   *Codec
	env *canonical.Envelope
	ctx *dialects.EncodeContext
	w   jsonw.Writer
	own bool   // the envelope came from swarm: write it back as it was
	lay layout // the members the swarm source lacked
}

// fill returns v, or for an envelope from elsewhere lacking it, the
// stand-in "unknown", reported as filled.
func (e *encoder) fill(concept canonical.Concept, field, v string) string {
	if v == "" && !e.own {
		v = "unknown"
		e.ctx.Fill(concept, field, v)
	}
	return v
}

func (e *encoder) receiver(msgType string) {
	w, r := &e.w, e.env.Receiver
	switch {
	case r.Kind == canonical.AddressAgent:
		w.String(r.ID)
	case r.Kind == canonical.AddressTopic && (msgType == typeNotification || msgType == typeError):
		e.ctx.Lose(dialects.Approximated, canonical.CReceiver, "receiver", fmt.Sprintf("swarm has no topics; topic %q sent to all (receiver_id null)", r.ID))
		w.Null()
	case r.Kind == canonical.AddressTopic:
		// Only notifications and errors may go to all (receiver_id null).
		id := r.ID
		if id == "" {
			id = dialects.Unknown
		}
		e.ctx.Lose(dialects.Approximated, canonical.CReceiver, "receiver", fmt.Sprintf("swarm has no topics, and a %s needs a receiver; topic %q sent to receiver_id %q", msgType, r.ID, id))
		w.String(id)
	case e.own || msgType == typeNotification || msgType == typeError:
		w.Null()
	default:
		w.String(e.fill(canonical.CReceiver, "receiver_id", ""))
	}
}

// correlation returns the correlation_id to write: replies quote the message
// they answer, other messages carry their correlation id.
func (e *encoder) correlation(msgType string) string {
	env, ctx := e.env, e.ctx
	if !env.Act.IsReply() {
		return env.CorrelationID
	}
	if env.InReplyTo != "" || e.own {
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

func (e *encoder) request() {
	w, env := &e.w, e.env
	w.Open()
	if !e.lay.has(absToolName) {
		name := env.Operation.Name
		if name == "" && !e.own {
			name = env.Operation.Capability
			if name == "" {
				name = string(env.Act)
			}
			e.ctx.Fill(canonical.COperation, "payload.tool_name", name)
		}
		w.Name("tool_name")
		w.String(name)
	}
	e.object("arguments", env.Arguments, canonical.CArguments)
	if env.TTL.Set {
		secs := seconds(env.TTL.D)
		clamped := min(max(secs, minTimeout), maxTimeout)
		if e.own {
			clamped = secs
		} else if clamped != secs || float64(secs) != env.TTL.D.Seconds() {
			dialects.Approximate(e.ctx, canonical.CTTL, Name, env.TTL.D.String(), fmt.Sprintf("timeout %d s (whole seconds from %d to %d)", clamped, minTimeout, maxTimeout))
		}
		w.Name("timeout")
		w.Int(clamped)
	} else if e.lay.has(nullTimeout) {
		w.Name("timeout")
		w.Null()
	}
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

func (e *encoder) response() {
	w, env := &e.w, e.env
	w.Open()
	if !e.lay.has(absSuccess) {
		if env.Outcome == canonical.OutcomePartial {
			dialects.Approximate(e.ctx, canonical.COutcome, Name, string(env.Outcome), "success true")
		}
		w.Name("success")
		w.Bool(env.Outcome != canonical.OutcomeFailure)
	}
	if !e.lay.has(absResult) {
		w.Name("result")
		if env.Result != "" {
			w.Raw(string(env.Result))
		} else {
			w.Null()
		}
	}
	if !e.lay.has(absError) {
		w.Name("error")
		if env.Error != nil && env.Error.Message != "" {
			w.String(env.Error.Message)
		} else {
			w.Null()
		}
	}
	if e.lay.has(nullExecTime) {
		w.Name("execution_time")
		w.Null()
	}
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

func (e *encoder) errorPayload() {
	w, env := &e.w, e.env
	er := env.Error
	if er == nil {
		er = &canonical.Error{}
	}
	code := er.Code
	if code == "" {
		code = canonical.DefaultErrorCode(env.Act)
	}
	w.Open()
	switch word := env.Origin.Words.Get(canonical.KindError); {
	case keptCode(env):
		// an empty error_code of swarm's own: WriteExtras writes it back
	case word != "" && er.Code == "":
		w.Name("error_code")
		w.String(word) // the source's own word, with no canonical meaning: kept as it is
	default:
		word, _ = dialects.Word(e.ctx, env, Name, e.c.Errors, string(code), canonical.CErrorCode)
		w.Name("error_code")
		w.String(word)
	}
	if !e.lay.has(absErrorMessage) {
		msg := er.Message
		if msg == "" && !e.own {
			msg = string(code)
			e.ctx.Fill(canonical.CErrorMessage, "payload.error_message", msg)
		}
		w.Name("error_message")
		w.String(msg)
	}
	e.object("details", er.Details, canonical.CErrorDetails)
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

func (e *encoder) notification() {
	w, env := &e.w, e.env
	w.Open()
	if !e.lay.has(absEventType) {
		name := env.Operation.Name
		if name == "" && !e.own {
			name = "event"
			e.ctx.Fill(canonical.COperation, "payload.event_type", name)
		}
		w.Name("event_type")
		w.String(name)
	}
	e.object("data", env.Arguments, canonical.CArguments)
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

// capabilities writes an AgentCapabilities payload: the source's own when it
// was swarm, else one built from the sender and the tools.
func (e *encoder) capabilities() {
	w, env := &e.w, e.env
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
	w.Name("agent_id")
	w.String(id)
	w.Name("agent_name")
	w.String(name)
	w.Name("agent_role")
	w.String("agent")
	w.Name("tools")
	w.OpenArray()
	var detailed []string
	if caps != nil {
		for _, t := range caps.Tools {
			w.String(t.Name)
			if t.Capability != "" || t.Title != "" || t.Description != "" || t.InputSchema != "" || t.OutputSchema != "" || t.Version != "" {
				detailed = append(detailed, strconv.Quote(t.Name))
			}
		}
	}
	w.CloseArray()
	w.Name("version")
	w.String("0.1.0")
	w.Name("metadata")
	w.Raw("{}")
	w.Close()
	if len(detailed) > 0 {
		e.ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
			"swarm handshakes list tool names only; dropped the group, title, description, schemas and version of "+strings.Join(detailed, ", "))
	}
	if caps != nil && len(caps.Topics) > 0 {
		e.ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
			"swarm handshakes have no topics; dropped "+strconv.Quote(strings.Join(caps.Topics, ", ")))
	}
}

// object writes key with raw when raw is a JSON object; from another
// dialect any other value is wrapped as {"value": raw} and reported, since
// swarm types these fields as objects. swarm's own values are written as
// they were.
func (e *encoder) object(key string, raw canonical.JSON, concept canonical.Concept) {
	if raw == "" {
		return
	}
	w := &e.w
	w.Key(key)
	if e.own || dialects.IsObject(raw) {
		w.Raw(string(raw))
		return
	}
	dialects.Approximate(e.ctx, concept, Name, string(raw), `{"value": ...}`)
	w.Open()
	w.Name("value")
	w.Raw(string(raw))
	w.Close()
}

// keptCode reports whether env, from swarm, kept its error_code as an Extra
// (an empty word, which has no canonical meaning and no Origin word).
func keptCode(env *canonical.Envelope) bool {
	for _, f := range env.Extra {
		if f.Dialect == Name && f.Parent == "payload" && f.Key == "error_code" {
			return true
		}
	}
	return false
}
