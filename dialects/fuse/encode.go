package fuse

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// version is the protocol version written on messages from other dialects.
const version = "1.0"

// encoding is what Encode decided about one envelope before writing it.
type encoding struct {
	env *canonical.Envelope
	ctx *dialects.EncodeContext
	// own is true when the envelope came from fuse: it is written back as
	// it was, with no required field filled.
	own bool
	// act is the act the message expresses.
	act     canonical.Act
	shape   shape
	msgType string
	// guide is true for a response whose content is written in the
	// upstream guide's shape (content.success and content.result).
	guide bool
	// topID is true for a response whose requestId is written at the top
	// level rather than in content.
	topID bool
	// errorObject is true when an error response writes content.error,
	// with code word (none when "") standing for canonical code.
	errorObject bool
	word        string
	code        canonical.ErrorCode
}

// Encode appends env as a fuse message to dst.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	e, err := c.plan(env, ctx)
	if err != nil {
		return dst, err
	}
	holds := c.Holds(e.act)
	if env.Trace.Span() != "" {
		// Carried as metadata.traceparent.
		holds = holds.With(canonical.CTraceID, canonical.CSpanID)
	}
	dialects.ReportLosses(ctx, env, Name, holds)

	w := jsonw.New(dst)
	w.Open()
	switch {
	case !e.own:
		w.NameString("version", version)
	case env.Origin.Version != "":
		w.NameString("version", env.Origin.Version)
	}
	if e.shape != shapeCapsDocument {
		w.Name("messageType")
		w.String(e.msgType)
	}
	id := env.ID
	if id == "" && !e.own {
		id = ctx.ID()
	}
	w.NameString("id", id)
	if e.topID {
		w.NameString("requestId", env.InReplyTo)
	}
	w.NameString("timestamp", string(dialects.TimeFor(ctx, Name, env.Time, canonical.CTime, false, !e.own)))
	c.writeSource(&w, &e)
	c.writeTarget(&w, &e)
	c.writeAuthentication(&w, &e)
	c.writeExtensions(&w, &e)

	if e.shape == shapeCapsDocument {
		w.Name("capabilities")
		c.writeCapabilities(&w, env, ctx)
		c.writeMetadata(&w, &e)
		dialects.WriteExtras(&w, env, Name, "")
		w.Close()
		return w.Buf, nil
	}
	w.Name("content")
	w.Open()
	switch e.shape {
	case shapeRequest, shapeDiscovery:
		c.writeRequest(&w, &e)
	case shapeResult:
		c.writeResult(&w, &e)
	case shapeError:
		c.writeError(&w, &e)
	case shapeCapsReply:
		c.writeRequestID(&w, &e)
		w.Name("capabilities")
		c.writeCapabilities(&w, env, ctx)
	case shapeCapsEvent:
		if !hasExtra(env, "content", "eventType") {
			w.NameString("eventType", CapabilitiesEvent)
		}
		w.Name("capabilities")
		c.writeCapabilities(&w, env, ctx)
	case shapeEvent:
		c.writeEvent(&w, &e)
	}
	dialects.WriteExtras(&w, env, Name, "content")
	w.Close()

	c.writeMetadata(&w, &e)
	dialects.WriteExtras(&w, env, Name, "")
	w.Close()
	return w.Buf, nil
}

// plan chooses the message type and content layout for env's act.
func (c *Codec) plan(env *canonical.Envelope, ctx *dialects.EncodeContext) (encoding, error) {
	e := encoding{env: env, ctx: ctx, own: env.Origin.Dialect == Name, act: env.Act}
	base := canonical.ActResult
	switch {
	case env.Act == canonical.ActQueryCapabilities:
		e.shape, base = shapeDiscovery, canonical.ActRequest
	case env.Act == canonical.ActInformCapabilities && e.own && env.Origin.Form == FormDeclaration:
		// Written back as the document it came as: no message type.
		e.shape = shapeCapsDocument
		return e, nil
	case env.Act == canonical.ActInformCapabilities:
		e.shape = shapeCapsReply
		if c.capsAsEvent(&e) {
			e.shape, base = shapeCapsEvent, canonical.ActEvent
		}
	case env.Act.IsError():
		e.shape = shapeError
	default:
		w, ok := dialects.Word(ctx, env, Name, c.Acts, string(env.Act), canonical.CAct)
		if !ok {
			return e, dialects.Errorf(Name, "", "cannot express act %q: fuse has no message type for it", env.Act)
		}
		a, _ := c.Acts.Canonical(w)
		e.msgType, e.shape = w, shapeOf(canonical.Act(a))
	}
	if e.msgType == "" {
		w, _, ok := c.Acts.Word(string(base))
		if !ok {
			return e, dialects.Errorf(Name, "", "cannot express act %q: the act table has no word for %s", env.Act, base)
		}
		e.msgType = w
	}
	switch e.shape {
	case shapeResult, shapeError, shapeCapsReply:
		if e.own {
			f := env.Origin.Form
			e.guide = f == FormGuide || f == FormGuideContentID
			e.topID = f == FormGuide || f == FormSpecTopID
		}
	}
	if e.shape == shapeError && (env.Error != nil || !e.own) {
		e.errorObject = true
		var err error
		if e.word, e.code, err = c.errorCode(&e); err != nil {
			return e, err
		}
	}
	return e, nil
}

// capsAsEvent reports whether a capability declaration goes as an event:
// as it came when it came from fuse, else when it answers no message.
func (c *Codec) capsAsEvent(e *encoding) bool {
	if w := e.env.Origin.Word(Name, canonical.KindAct); w != "" {
		a, _ := c.Acts.Canonical(w)
		return a == string(canonical.ActEvent)
	}
	return e.env.InReplyTo == ""
}

func (c *Codec) writeSource(w *jsonw.Writer, e *encoding) {
	s := e.env.Sender
	if e.own && s.ID == "" && s.Name == "" && !dialects.HasExtras(e.env, Name, "source") {
		return
	}
	if s.ID == "" && !e.own {
		s.ID = "unknown"
		e.ctx.Fill(canonical.CSender, "source.agentId", s.ID)
	}
	w.Name("source")
	w.Open()
	w.NameString("agentId", s.ID)
	w.NameString("name", s.Name)
	dialects.WriteExtras(w, e.env, Name, "source")
	w.Close()
}

func (c *Codec) writeTarget(w *jsonw.Writer, e *encoding) {
	r := e.env.Receiver
	event := e.shape == shapeEvent || e.shape == shapeCapsEvent
	switch r.Kind {
	case canonical.AddressAgent:
		if r.ID == "" && !e.own {
			r.ID = "unknown"
			e.ctx.Fill(canonical.CReceiver, "target.agentId", r.ID)
		}
		w.Name("target")
		w.Open()
		w.NameString("agentId", r.ID)
		w.NameString("name", r.Name)
		dialects.WriteExtras(w, e.env, Name, "target")
		w.Close()
		return
	case canonical.AddressTopic:
		if event {
			e.ctx.Lose(dialects.Approximated, canonical.CReceiver, canonical.CReceiver.String(),
				fmt.Sprintf("fuse events go to the subscribers of their eventType; topic %q not written", r.ID))
		} else {
			e.ctx.Lose(dialects.Approximated, canonical.CReceiver, canonical.CReceiver.String(),
				fmt.Sprintf("fuse has no topics; topic %q not written (no target)", r.ID))
		}
	case canonical.AddressBroadcast:
		if !event {
			e.ctx.Lose(dialects.Approximated, canonical.CReceiver, canonical.CReceiver.String(),
				"fuse sends only events to all; written with no target")
		}
	}
	if r.Name != "" {
		e.ctx.Lose(dialects.Dropped, canonical.CReceiverName, canonical.CReceiverName.String(),
			fmt.Sprintf("fuse names only target agents; receiver name %q not written", r.Name))
	}
}

func (c *Codec) writeAuthentication(w *jsonw.Writer, e *encoding) {
	a := e.env.Authentication
	if a == "" {
		return
	}
	w.Name("authentication")
	if e.own || dialects.IsObject(a) {
		w.Raw(string(a))
		return
	}
	dialects.Approximate(e.ctx, canonical.CAuthentication, Name, clip(string(a)), `{"value": ...}`)
	wrap(w, string(a))
}

// writeExtensions writes the extensions array; from another dialect, a
// value that is not an array of objects is wrapped into one.
func (c *Codec) writeExtensions(w *jsonw.Writer, e *encoding) {
	x := e.env.Extensions
	if x == "" {
		return
	}
	w.Name("extensions")
	v := gjson.Parse(string(x))
	if e.own || (v.IsArray() && allObjects(v)) {
		w.Raw(string(x))
		return
	}
	dialects.Approximate(e.ctx, canonical.CExtensions, Name, clip(string(x)), "an array of extension objects")
	w.OpenArray()
	if v.IsArray() {
		v.ForEach(func(_, item gjson.Result) bool {
			objectOrWrap(w, item.Raw)
			return true
		})
	} else {
		objectOrWrap(w, string(x))
	}
	w.CloseArray()
}

func allObjects(v gjson.Result) bool {
	ok := true
	v.ForEach(func(_, item gjson.Result) bool {
		ok = item.IsObject()
		return ok
	})
	return ok
}

// writeMetadata writes metadata: the Metadata object's members with
// correlationId and sessionId put back in, and the trace as a W3C
// traceparent when it is one: a traceparent member of Metadata is kept as
// written while it names the same trace and span, else written anew with
// its flags.
func (c *Codec) writeMetadata(w *jsonw.Writer, e *encoding) {
	env := e.env
	span := env.Trace.Span()
	if env.Metadata == "" && env.CorrelationID == "" && env.SessionID == "" && span == "" {
		return
	}
	tracing := span != ""
	w.Name("metadata")
	w.Open()
	if m := env.Metadata; m != "" {
		if dialects.IsObject(m) {
			gjson.Parse(string(m)).ForEach(func(k, v gjson.Result) bool {
				if lifted := k.Str == "correlationId" || k.Str == "sessionId"; lifted && !e.own {
					// Written below from the envelope's own fields.
					if v.Type != gjson.String || (k.Str == "correlationId" && env.CorrelationID != "") || (k.Str == "sessionId" && env.SessionID != "") {
						e.ctx.Lose(dialects.Dropped, canonical.CMetadata, "metadata."+k.Str,
							fmt.Sprintf("fuse keeps metadata.%s for the envelope's own id; %s not written", k.Str, clip(v.Raw)))
						return true
					}
				}
				if k.Str == "traceparent" && tracing {
					tracing = false
					if tp := env.Trace.TraceparentFor(v.Str); v.Type != gjson.String || tp != v.Str {
						w.Name("traceparent")
						w.String(tp)
						return true
					}
				}
				w.Key(dialects.Text(k))
				w.Raw(v.Raw)
				return true
			})
		} else {
			dialects.Approximate(e.ctx, canonical.CMetadata, Name, clip(string(m)), `{"value": ...}`)
			w.Name("value")
			w.Raw(string(m))
		}
	}
	w.NameString("correlationId", env.CorrelationID)
	w.NameString("sessionId", env.SessionID)
	if tracing {
		w.NameString("traceparent", env.Trace.TraceparentFor(""))
	}
	w.Close()
}

func (c *Codec) writeRequest(w *jsonw.Writer, e *encoding) {
	env := e.env
	op := env.Operation
	if e.shape == shapeDiscovery {
		op = canonical.Operation{Capability: DiscoveryCapability, Name: ListCapabilitiesAction}
	} else if op.Capability == "" && op.Name == "" && !e.own {
		op.Name = string(env.Act)
		e.ctx.Fill(canonical.COperation, "content.action", op.Name)
	}
	w.NameString("capability", op.Capability)
	w.NameString("action", op.Name)
	c.objectField(w, e, "parameters", env.Arguments, canonical.CArguments)
	w.NameString("contextId", env.ConversationID)
}

func (c *Codec) writeEvent(w *jsonw.Writer, e *encoding) {
	env := e.env
	name := env.Operation.Name
	if name == "" && !e.own {
		name = "event"
		e.ctx.Fill(canonical.COperation, "content.eventType", name)
	}
	w.NameString("eventType", name)
	c.objectField(w, e, "data", env.Arguments, canonical.CArguments)
}

// writeRequestID writes content.requestId, the request a spec-shaped
// response answers. A reply from another dialect that quotes none gets its
// correlation id, else its task id, else "unknown".
func (c *Codec) writeRequestID(w *jsonw.Writer, e *encoding) {
	if e.topID {
		return // at the top level
	}
	env := e.env
	id := env.InReplyTo
	if id == "" && !e.own {
		switch {
		case env.CorrelationID != "":
			id = env.CorrelationID
		case env.TaskID != "":
			id = env.TaskID
		default:
			id = "unknown"
		}
		e.ctx.Fill(canonical.CInReplyTo, "content.requestId", id)
	}
	w.NameString("requestId", id)
}

// writeResult writes a result in the spec's shape, or the guide's for a
// message that came in it. A result whose outcome is failure is status
// error (success false) with its data and no error object.
func (c *Codec) writeResult(w *jsonw.Writer, e *encoding) {
	env := e.env
	if e.guide {
		if env.Outcome != "" {
			w.Name("success")
			w.Bool(env.Outcome != canonical.OutcomeFailure)
		}
		w.RawField("result", string(env.Result))
		c.writeRequestID(w, e)
		return
	}
	switch {
	case env.Outcome != "":
		if s, ok := dialects.Word(e.ctx, env, Name, c.Outcomes, string(env.Outcome), canonical.COutcome); ok {
			w.NameString("status", s)
		}
	case !e.own:
		if s, _, ok := c.Outcomes.Word(string(canonical.OutcomeSuccess)); ok {
			e.ctx.Fill(canonical.COutcome, "content.status", s)
			w.NameString("status", s)
		}
	}
	result := string(env.Result)
	if result == "" && !e.own && env.Outcome == canonical.OutcomeFailure {
		// Without data (or an error) a response with status error is a
		// failure, not a result.
		result = "null"
		e.ctx.Fill(canonical.CResult, "content.data", result)
	}
	w.RawField("data", result)
	c.writeRequestID(w, e)
}

// writeError writes an error response: status error (or success false in
// the guide's shape) and the error object.
func (c *Codec) writeError(w *jsonw.Writer, e *encoding) {
	env := e.env
	if env.Outcome != "" || !e.own {
		if e.guide {
			w.Name("success")
			w.Bool(false)
		} else if s, _, ok := c.Outcomes.Word(string(canonical.OutcomeFailure)); ok {
			w.NameString("status", s)
		}
	}
	if e.errorObject {
		w.Name("error")
		c.writeErrorObject(w, e)
	}
	c.writeRequestID(w, e)
}

// writeErrorObject writes content.error with the code plan chose.
func (c *Codec) writeErrorObject(w *jsonw.Writer, e *encoding) {
	env := e.env
	er := env.Error
	if er == nil {
		er = &canonical.Error{}
	}
	w.Open()
	w.NameString("code", e.word)
	msg := er.Message
	if msg == "" && !e.own {
		msg = string(e.code)
		if msg == "" {
			msg = e.word
		}
		e.ctx.Fill(canonical.CErrorMessage, "content.error.message", msg)
	}
	w.NameString("message", msg)
	w.RawField("details", string(er.Details))
	dialects.WriteExtras(w, env, Name, "content.error")
	w.Close()
}

// errorCode chooses content.error.code for an error act: the word and the
// canonical code it stands for ("" for a word with no canonical meaning;
// word "" for a fuse message that had no code).
//
// The code carries the act on the wire: REJECTED is a refusal,
// INVALID_MESSAGE not understood. So a refusal or a message not understood
// is always written with its own code (another code is reported as
// approximated). A failure is written with its code; error codes are an open
// vocabulary, so a word with no canonical meaning (of fuse or of any other
// dialect) is written as it is. A failure whose code reads back as another
// act is reported as an act approximation.
func (c *Codec) errorCode(e *encoding) (string, canonical.ErrorCode, error) {
	env, act := e.env, e.act
	var code canonical.ErrorCode
	if env.Error != nil {
		code = env.Error.Code
	}
	unknown := "" // the source's word for a code with no canonical meaning
	if code == "" {
		unknown = env.Origin.Words.Get(canonical.KindError)
	}
	if act != canonical.ActFailure {
		want := canonical.DefaultErrorCode(act)
		word, ok := dialects.Word(e.ctx, env, Name, c.Errors, string(want), canonical.CErrorCode)
		if !ok || errorAct(c.meaning(word)) != act {
			return "", "", dialects.Errorf(Name, "", "cannot express act %q: the error table has no word for %s", act, want)
		}
		switch {
		case code != "" && code != want:
			dialects.Approximate(e.ctx, canonical.CErrorCode, Name, string(code),
				fmt.Sprintf("%s (a fuse %s is an error with code %s)", word, act, word))
		case unknown != "" && unknown != word:
			dialects.Approximate(e.ctx, canonical.CErrorCode, Name, fmt.Sprintf("%q", unknown),
				fmt.Sprintf("%s (a fuse %s is an error with code %s)", word, act, word))
		}
		return word, want, nil
	}
	var word string
	switch {
	case unknown != "":
		word = unknown // written as it is: fuse codes are an open vocabulary
		code = c.meaning(word)
	case code == "" && e.own:
		return "", "", nil
	default:
		if code == "" {
			code = canonical.DefaultErrorCode(act)
		}
		var ok bool
		if word, ok = dialects.Word(e.ctx, env, Name, c.Errors, string(code), canonical.CErrorCode); !ok {
			return "", "", dialects.Errorf(Name, "", "cannot express error code %q: the error table has no word for it", code)
		}
	}
	if back := errorAct(c.meaning(word)); back != act {
		e.ctx.Lose(dialects.Approximated, canonical.CAct, canonical.CAct.String(),
			fmt.Sprintf("fuse tells refuse, failure and not-understood apart by error code only: %s with code %s reads back as %s", act, word, back))
	}
	return word, code, nil
}

// meaning returns the canonical error code a fuse code word stands for, ""
// for a word with no canonical meaning.
func (c *Codec) meaning(word string) canonical.ErrorCode {
	code, _ := c.Errors.Canonical(word)
	return canonical.ErrorCode(code)
}

// objectField writes key with raw. fuse types parameters and event data as
// objects: from another dialect, any other value is wrapped as
// {"value": raw} and reported.
func (c *Codec) objectField(w *jsonw.Writer, e *encoding, key string, raw canonical.JSON, concept canonical.Concept) {
	if raw == "" {
		return
	}
	w.Key(key)
	if e.own || dialects.IsObject(raw) {
		w.Raw(string(raw))
		return
	}
	dialects.Approximate(e.ctx, concept, Name, clip(string(raw)), `{"value": ...}`)
	wrap(w, string(raw))
}

// wrap writes {"value": raw}.
func wrap(w *jsonw.Writer, raw string) {
	w.Open()
	w.Name("value")
	w.Raw(raw)
	w.Close()
}

// objectOrWrap writes raw when it is an object, else {"value": raw}.
func objectOrWrap(w *jsonw.Writer, raw string) {
	if dialects.IsObject(canonical.JSON(raw)) {
		w.Raw(raw)
		return
	}
	wrap(w, raw)
}

// hasExtra reports whether env keeps a fuse member key at parent.
func hasExtra(env *canonical.Envelope, parent, key string) bool {
	for _, f := range env.Extra {
		if f.Dialect == Name && f.Parent == parent && f.Key == key {
			return true
		}
	}
	return false
}
