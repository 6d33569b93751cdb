package a2a

import (
	"slices"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// artifactID is the id of the one artifact the encoder writes a result in.
const artifactID = "result"

// Encode appends env as an a2a frame to dst. A frame decoded from a2a is
// written back in its own shape; an envelope from another dialect is
// written as the frame its act has (defaultShape), with stand-ins for the
// ids A2A requires reported as filled.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	e := encoder{c: c, env: env, ctx: ctx, own: env.Origin.Dialect == Name}
	if e.own {
		e.f = parseForm(env.Origin.Form)
	}
	s := e.f.shape
	if !e.own || !s.fits(env.Act) {
		s, e.f.canceled = defaultShape(env.Act), false
	}
	if ctx != nil && ctx.Refusal && env.Act.IsError() {
		// The bridge's refusal: no agent took the request, no task was
		// made; JSON-RPC answers such a request with an error.
		s = shapeError
	}
	if s == shapeNone {
		return dst, dialects.Errorf(Name, "", "cannot express act %q: a2a has no frame for it", env.Act)
	}
	var word string
	if s != shapeError && s != shapeGet && s != shapeCancel {
		w, ok := dialects.Word(ctx, env, Name, c.Acts, string(env.Act), canonical.CAct)
		if !ok {
			return dst, dialects.Errorf(Name, "", "cannot express act %q: the a2a vocabulary has no word for it", env.Act)
		}
		switch {
		case w == wordMessage && env.Act == canonical.ActResult:
			s = shapeMessage
		case s == shapeMessage:
			s = shapeTask
		}
		word = w
	}
	holds := holdsOf(s, env.Act)
	if env.Receiver.Kind != canonical.AddressAgent {
		// metadata.receiver names an agent: a topic or everyone is dropped.
		holds &^= canonical.SetOf(canonical.CReceiver)
	}
	dialects.ReportLosses(ctx, env, Name, holds)
	e.w = jsonw.New(dst)
	w := &e.w
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	if !e.kept("", "jsonrpc") {
		key("jsonrpc")
		w.String(jsonrpcVersion)
	}
	switch s {
	case shapeSend, shapeGet, shapeCancel:
		e.id(e.requestID(), true)
		method := word
		if s != shapeSend {
			method = methodGetTask
			if s == shapeCancel {
				method = methodCancelTask
			}
		}
		key("method")
		w.String(method)
		key("params")
		if s == shapeSend {
			e.sendParams()
		} else {
			e.taskParams(s)
		}
	case shapeError:
		e.id(env.InReplyTo, false)
		key("error")
		e.errorObject()
	default:
		e.id(env.InReplyTo, false)
		key("result")
		e.answer(s, word)
	}
	e.extras("", wrote)
	w.Close()
	return w.Buf, nil
}

// encoder writes one envelope.
type encoder struct {
	c   *Codec
	env *canonical.Envelope
	ctx *dialects.EncodeContext
	w   jsonw.Writer
	own bool // the envelope came from a2a: write it back as it was
	f   form // how the a2a source was written
	rid string
}

// extra returns the a2a member key of the object at parent, kept by the
// decoder.
func (e *encoder) extra(parent, key string) (canonical.JSON, bool) {
	for i := range e.env.Extra {
		if f := &e.env.Extra[i]; f.Dialect == Name && f.Parent == parent && f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// kept reports whether the decoder kept the member key of the object at
// parent: extras writes it back, as it was.
func (e *encoder) kept(parent, key string) bool {
	_, ok := e.extra(parent, key)
	return ok
}

// extras writes the kept members of the object at parent, but those
// written already.
func (e *encoder) extras(parent string, wrote []string) {
	for i := range e.env.Extra {
		f := &e.env.Extra[i]
		if f.Dialect == Name && f.Parent == parent && !slices.Contains(wrote, f.Key) {
			e.w.Key(f.Key)
			e.w.Raw(string(f.Value))
		}
	}
}

// requestID is a request's id: the envelope's, or a new one from another
// dialect's envelope without one (a JSON-RPC request without an id is a
// notification, which A2A has none of). The message's id is the same.
func (e *encoder) requestID() string {
	if e.rid == "" {
		e.rid = e.env.ID
		if e.rid == "" && !e.own {
			e.rid = e.ctx.ID()
		}
	}
	return e.rid
}

// id writes the JSON-RPC id: v as the source wrote it (a string, a
// number), null where it had null or an answer names no request, nothing
// where the source had none.
func (e *encoder) id(v string, request bool) {
	if e.kept("", "id") {
		return
	}
	w := &e.w
	switch {
	case v == "" && e.own && e.f.id == idAbsent:
		return
	case v == "" && request && !e.own:
		v = e.ctx.ID()
	}
	w.Name("id")
	switch {
	case v == "":
		w.Null()
	case e.own && e.f.id == idNumber && isNumber(v):
		w.Raw(v)
	default:
		w.String(v)
	}
}

// isNumber reports whether s is a JSON number.
func isNumber(s string) bool {
	return gjson.Valid(s) && gjson.Parse(s).Type == gjson.Number
}

// sendParams writes SendMessage's params: the message, and the request's
// metadata.
func (e *encoder) sendParams() {
	w, env := &e.w, e.env
	var wrote []string
	w.Open()
	w.Name("message")
	wrote = append(wrote, "message")
	e.requestMessage()
	if env.Metadata != "" && !e.kept("params", "metadata") {
		w.Name("metadata")
		wrote = append(wrote, "metadata")
		e.object(env.Metadata, canonical.CMetadata)
	}
	e.extras("params", wrote)
	w.Close()
}

// requestMessage writes the user message a request sends: one data part,
// the arguments; its skill, the operation.
func (e *encoder) requestMessage() {
	const at = "params.message"
	w, env := &e.w, e.env
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	if !e.kept(at, "messageId") {
		key("messageId")
		w.String(e.requestID())
	}
	if !e.kept(at, "role") {
		key("role")
		w.String(roleUser)
	}
	if raw, ok := e.extra(at, "parts"); !ok || partsValue(raw) != env.Arguments {
		key("parts")
		args := env.Arguments
		if args == "" {
			args = "{}"
			e.ctx.Fill(canonical.CArguments, at+".parts.0.data", string(args))
		}
		writeDataParts(w, args)
	}
	name, to := env.Operation.Name, ""
	if env.Receiver.Kind == canonical.AddressAgent {
		to = env.Receiver.ID
	}
	if raw, ok := e.extra(at, "metadata"); ok {
		m := gjson.Parse(string(raw))
		if m.Get("skill").String() != name || m.Get("receiver").String() != to {
			key("metadata")
			w.Raw(string(withMember(withMember(raw, "skill", name), "receiver", to)))
		}
	} else if name != "" || to != "" {
		key("metadata")
		w.Open()
		if name != "" {
			w.Name("skill")
			w.String(name)
		}
		if to != "" {
			w.Name("receiver")
			w.String(to)
		}
		w.Close()
	}
	e.optional(at, "taskId", env.TaskID, key)
	e.optional(at, "contextId", env.CorrelationID, key)
	e.extras(at, wrote)
	w.Close()
}

// partsValue is the value a kept list of parts gives (content.value).
func partsValue(raw canonical.JSON) canonical.JSON {
	var c content
	c.add(nil, gjson.Parse(string(raw)))
	return c.value()
}

// withMember returns the metadata object raw with its member k set to v
// (removed when v is empty).
func withMember(raw canonical.JSON, k, v string) canonical.JSON {
	var out string
	var err error
	if v == "" {
		out, err = sjson.Delete(string(raw), k)
	} else {
		out, err = sjson.Set(string(raw), k, v)
	}
	if err != nil {
		return raw
	}
	return canonical.JSON(out)
}

// optional writes the string member k of the object at parent when v is
// not empty and the source did not keep its own.
func (e *encoder) optional(parent, k, v string, key func(string)) {
	if v != "" && !e.kept(parent, k) {
		key(k)
		e.w.String(v)
	}
}

// required writes the id member k of the object at parent, which A2A
// requires: v, or for an envelope without one (from another dialect, or
// an a2a answer carried to a requester that named no task), the id of the
// request it answers, else the stand-in "unknown", reported as filled.
func (e *encoder) required(parent, k, v string, concept canonical.Concept, key func(string)) {
	if e.kept(parent, k) {
		return
	}
	if v == "" {
		// An answer's task is its request's lifetime: without a task id
		// (or context) of its own, the request's id stands in for it.
		if v = e.env.InReplyTo; v == "" {
			v = dialects.Unknown
		}
		e.ctx.Fill(concept, dialects.Join(parent, k), v)
	}
	key(k)
	e.w.String(v)
}

// taskParams writes the params of GetTask or CancelTask: the task's id.
func (e *encoder) taskParams(s shape) {
	w, env := &e.w, e.env
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	e.required("params", "id", env.TaskID, canonical.CTaskID, key)
	if s == shapeCancel && env.Metadata != "" && !e.kept("params", "metadata") {
		key("metadata")
		e.object(env.Metadata, canonical.CMetadata)
	}
	e.extras("params", wrote)
	w.Close()
}

// object writes raw, which A2A types as an object: from another dialect,
// any other value is wrapped as {"value": raw} and reported.
func (e *encoder) object(raw canonical.JSON, concept canonical.Concept) {
	w := &e.w
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
