package bluelabel

import (
	"fmt"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Encode appends env as a bluelabel message to dst.
//
// An envelope decoded from bluelabel is written back as it was. One from
// another dialect is made valid: required members are filled (reported as
// filled), ids are put in bluelabel's upper-case form and over-long texts
// cut (reported as approximated).
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	e := &encoder{c: c, env: env, ctx: ctx, own: env.Origin.Dialect == Name}
	if err := e.typeWord(); err != nil {
		return dst, err
	}
	var code string
	if e.kind == canonical.ActFailure {
		var err error
		if code, err = e.errorCode(); err != nil {
			return dst, err
		}
	}
	holds := c.Holds(env.Act)
	if e.kind == canonical.ActRequest && traceparentFits(env) {
		// A task assignment carries its span as metadata.traceparent.
		holds = holds.With(canonical.CSpanID)
	}
	dialects.ReportLosses(ctx, env, Name, holds)
	e.w = jsonw.New(dst)
	e.envelope(code)
	return e.w.Buf, nil
}

// encoder writes one envelope.
type encoder struct {
	c   *Codec
	env *canonical.Envelope
	ctx *dialects.EncodeContext
	w   jsonw.Writer
	// own is set when the envelope came from bluelabel: it is written back
	// as it was, with no filling or normalising.
	own bool
	// msgType is the type word; kind is its act, which says which payload
	// to write (failure for the error type).
	msgType string
	kind    canonical.Act
	// taskID is the task_id written, repeated in a task assignment.
	taskID string
}

// typeWord chooses the message type. refuse and not-understood are written
// as the error type; the error code says which they are, so that is no
// approximation.
func (e *encoder) typeWord() error {
	act, t := e.env.Act, e.c.Acts
	fits := func(a string) bool {
		return a == string(act) || act.IsError() && a == string(canonical.ActFailure)
	}
	if w := e.env.Origin.Word(Name, canonical.KindAct); w != "" {
		if a, ok := t.Canonical(w); ok && fits(a) {
			e.msgType, e.kind = w, canonical.Act(a)
			return nil
		}
	}
	w, exact, ok := t.Word(string(act))
	if !ok {
		return dialects.Errorf(Name, "", "cannot express act %q: bluelabel has no message type for it (it has %v)", act, t.Words())
	}
	a, _ := t.Canonical(w)
	if !exact && !fits(a) {
		dialects.Approximate(e.ctx, canonical.CAct, Name, string(act), w)
	}
	e.msgType, e.kind = w, canonical.Act(a)
	return nil
}

func (e *encoder) envelope(code string) {
	w, env := &e.w, e.env
	w.Open()
	w.Name("type")
	w.String(e.msgType)
	w.NameString("protocol_version", e.version())
	w.NameString("sender_id", e.id("sender_id", canonical.CSender, env.Sender.ID, 0))
	w.NameString("recipient_id", e.recipient())
	e.timestamp()
	e.taskID = e.task()
	w.NameString("task_id", e.taskID)
	w.NameString("trace_id", env.Trace.TraceID)
	switch {
	case e.own && env.Origin.Form == formBare: // a fragment: still no payload
	case e.own && env.Origin.Form == formNested:
		w.Name("payload")
		w.Open()
		w.Name("type")
		w.String(e.msgType)
		dialects.WriteExtras(w, env, Name, "payload")
		w.Name("payload")
		e.body("payload.payload", code)
		w.Close()
	default:
		w.Name("payload")
		e.body("payload", code)
	}
	if e.kind == canonical.ActRequest {
		e.metadata()
	} else {
		e.object("context", env.Context, canonical.CContext)
	}
	dialects.WriteExtras(w, env, Name, "")
	w.Close()
}

// body writes the payload proper; base is its path, where its Extra members
// sit.
func (e *encoder) body(base, code string) {
	switch e.kind {
	case canonical.ActRequest:
		e.assignment(base)
	case canonical.ActResult:
		e.result(base)
	case canonical.ActFailure:
		e.failure(base, code)
	case canonical.ActNeedsInput:
		e.needsInput(base)
	default: // a type a mapping file added: only its own members
		e.w.Open()
		dialects.WriteExtras(&e.w, e.env, Name, base)
		e.w.Close()
	}
}

// version returns protocol_version: the source's for an own envelope, else
// 1.3 when the message carries a v1.3 field (notes), else 1.0.
func (e *encoder) version() string {
	switch {
	case e.own:
		return e.env.Origin.Version
	case e.kind == canonical.ActResult && e.env.Description != "":
		return version13
	}
	return version10
}

// id returns the id to write in field: an own envelope's as it is, another's
// in bluelabel's form (at most limit characters when limit > 0), or
// UNKNOWN when there is none.
func (e *encoder) id(field string, concept canonical.Concept, v string, limit int) string {
	if e.own {
		return v
	}
	if v == "" {
		e.ctx.Fill(concept, field, unknownID)
		return unknownID
	}
	n := normalID(v, limit)
	if n != v {
		e.ctx.Rewrite(concept, field, v, n, notAnID)
	}
	return n
}

// recipient returns recipient_id. bluelabel addresses one agent: a topic
// is sent to the agent named like it, a broadcast to BROADCAST.
func (e *encoder) recipient() string {
	r := e.env.Receiver
	switch r.Kind {
	case canonical.AddressAgent:
		return e.id("recipient_id", canonical.CReceiver, r.ID, 0)
	case canonical.AddressTopic:
		v := unknownID
		if r.ID != "" {
			v = normalID(r.ID, 0)
		}
		e.approx(canonical.CReceiver, fmt.Sprintf("bluelabel has no topics; topic %q sent to recipient_id %q", r.ID, v))
		return v
	case canonical.AddressBroadcast:
		e.approx(canonical.CReceiver, fmt.Sprintf("bluelabel has no broadcast; sent to recipient_id %q", broadcastID))
		return broadcastID
	}
	if e.own {
		return ""
	}
	e.ctx.Fill(canonical.CReceiver, "recipient_id", unknownID)
	return unknownID
}

// task returns task_id: the envelope's task id, else the id of the message
// it answers or correlates with, else its own id, else UNKNOWN.
func (e *encoder) task() string {
	env := e.env
	limit := 0
	if e.kind == canonical.ActRequest {
		limit = maxTaskID
	}
	if e.own || env.TaskID != "" {
		return e.id("task_id", canonical.CTaskID, env.TaskID, limit)
	}
	v := unknownID
	for _, s := range []string{env.InReplyTo, env.CorrelationID, env.ID} {
		if s != "" {
			v = normalID(s, limit)
			break
		}
	}
	e.ctx.Fill(canonical.CTaskID, "task_id", v)
	return v
}

func (e *encoder) timestamp() {
	t := e.env.Time
	if e.own {
		e.w.NameString("timestamp", string(t))
		return
	}
	if t == "" {
		t = canonical.NewTimestamp(e.ctx.Time())
	} else if v, ok := dateTime(t); ok {
		t = v
	} else {
		t = dialects.TimeFor(e.ctx, Name, t, canonical.CTime, true, true)
	}
	e.w.Name("timestamp")
	e.w.String(string(t))
}

// object writes key with raw. bluelabel types these members as objects: for
// an envelope from another dialect any other value is wrapped as
// {"value": raw} and reported.
func (e *encoder) object(key string, raw canonical.JSON, concept canonical.Concept) {
	if raw == "" {
		return
	}
	e.w.Key(key)
	if e.own || dialects.IsObject(raw) {
		e.w.Raw(string(raw))
		return
	}
	e.approx(concept, fmt.Sprintf("%s must be an object; wrote {\"value\": %s}", key, clip(string(raw), 60)))
	e.w.Open()
	e.w.Name("value")
	e.w.Raw(string(raw))
	e.w.Close()
}

// metadata writes a task assignment's metadata, with the envelope's context
// as its member context: the task assignment schema allows no top-level
// context. A context that metadata leaves no room for (it has a member
// context of its own) is dropped and reported; a metadata member context
// from another dialect, which reads back as the context, is reported too.
func (e *encoder) metadata() {
	md, cx := withTraceparent(e.env.Metadata, e.env.Trace), e.env.Context
	switch {
	case e.own || !hasMember(md, metadataContext):
	case cx != "":
		e.ctx.Lose(dialects.Dropped, canonical.CContext, canonical.CContext.String(),
			fmt.Sprintf("a task_assignment holds its context as metadata.%s, and metadata has a member %s already; context %s not written", metadataContext, metadataContext, clip(string(cx), 60)))
		cx = ""
	default:
		e.approx(canonical.CMetadata, fmt.Sprintf("a task_assignment holds its context as metadata.%s: the metadata member %s reads back as the context", metadataContext, metadataContext))
	}
	if cx == "" {
		e.object("metadata", md, canonical.CMetadata)
		return
	}
	w := &e.w
	w.Name("metadata")
	w.Open()
	w.Key(metadataContext)
	w.Raw(string(cx))
	switch {
	case md == "":
	case dialects.IsObject(md):
		gjson.Parse(string(md)).ForEach(func(k, v gjson.Result) bool {
			w.Key(dialects.Key(k))
			w.Raw(v.Raw)
			return true
		})
	default:
		e.approx(canonical.CMetadata, fmt.Sprintf("metadata must be an object; wrote {\"value\": %s}", clip(string(md), 60)))
		w.Name("value")
		w.Raw(string(md))
	}
	w.Close()
}

// approx records that concept was written as the nearest value bluelabel
// holds.
func (e *encoder) approx(concept canonical.Concept, detail string) {
	e.ctx.Lose(dialects.Approximated, concept, concept.String(), detail)
}

// clip returns s cut to at most n characters, reported as approximated.
func (e *encoder) clip(concept canonical.Concept, field, s string, n int) string {
	cut := clipRunes(s, n)
	if cut != s {
		e.approx(concept, fmt.Sprintf("%s holds at most %d characters; %q (%d characters) cut to %d", field, n, clip(s, 40), utf8.RuneCountInString(s), n))
	}
	return cut
}

// hasExtra reports whether env holds a bluelabel Extra member key at parent.
func hasExtra(env *canonical.Envelope, parent, key string) bool {
	for i := range env.Extra {
		f := &env.Extra[i]
		if f.Dialect == Name && f.Parent == parent && f.Key == key {
			return true
		}
	}
	return false
}

// hasMember reports whether raw is a JSON object with a member key.
func hasMember(raw canonical.JSON, key string) bool {
	return dialects.IsObject(raw) && gjson.Get(string(raw), key).Exists()
}

// traceparent is the task assignment's metadata member that carries a W3C
// trace context: the trace_id beside it, and the span it continues.
const traceparent = "traceparent"

// traceparentFits reports whether env's trace goes in a task assignment as
// metadata.traceparent: a W3C trace, in metadata that is an object.
func traceparentFits(env *canonical.Envelope) bool {
	return env.Trace.Span() != "" && (env.Metadata == "" || dialects.IsObject(env.Metadata))
}

// withTraceparent returns md, a task assignment's metadata, carrying t as
// its member traceparent when t is a W3C trace: a traceparent already
// there naming the same trace and span stays as written (its flags), any
// other is written anew. Metadata that is not an object is left as it is.
func withTraceparent(md canonical.JSON, t canonical.Trace) canonical.JSON {
	if md != "" && !dialects.IsObject(md) {
		return md
	}
	old := gjson.Get(string(md), traceparent)
	tp := t.TraceparentFor(old.Str)
	if tp == "" || (old.Type == gjson.String && tp == old.Str) {
		return md
	}
	if md == "" {
		md = "{}"
	}
	out, err := sjson.Set(string(md), traceparent, tp)
	if err != nil {
		return md
	}
	return canonical.JSON(out)
}
