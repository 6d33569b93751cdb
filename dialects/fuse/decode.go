package fuse

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Decode reads one fuse message.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	return c.DecodeRoot(root)
}

// DecodeRoot decodes the message whose root object is root
// (dialects.RootDecoder).
func (c *Codec) DecodeRoot(root gjson.Result) (*canonical.Envelope, error) {
	return c.decode(nil, root)
}

// DecodeDoc decodes the message d holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(d *dialects.Doc) (*canonical.Envelope, error) { return c.decode(d, d.Root()) }

// decode decodes the message whose root object is root, reading it with d
// (nil: gjson alone).
func (c *Codec) decode(d *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	var err error
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}
	var msgType string
	var hasTarget bool
	var content, topReq, caps gjson.Result
	d.ForEach(root, func(k, v gjson.Result) bool {
		switch k.Str {
		case "version":
			env.Origin.Version, err = c.text(env, "", dialects.Text(k), v)
		case "messageType":
			msgType, err = c.Read.String("messageType", v, false)
		case "id":
			env.ID, err = c.text(env, "", dialects.Text(k), v)
		case "timestamp":
			var t string
			t, err = c.text(env, "", dialects.Text(k), v)
			env.Time = canonical.Timestamp(t)
		case "source":
			_, err = c.decodeParty(d, env, "source", v, &env.Sender.ID, &env.Sender.Name)
		case "target":
			hasTarget, err = c.decodeParty(d, env, "target", v, &env.Receiver.ID, &env.Receiver.Name)
		case "authentication":
			env.Authentication = canonical.JSON(v.Raw)
		case "extensions":
			env.Extensions = canonical.JSON(v.Raw)
		case "metadata":
			err = c.decodeMetadata(d, env, v)
		case "requestId":
			topReq = v
		case "content":
			content, err = v, c.Read.Object("content", v)
		case "capabilities":
			caps = v
		default:
			dialects.Keep(env, Name, "", dialects.Text(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if msgType == "" && caps.Exists() && !content.Exists() {
		return c.decodeDeclaration(d, env, caps, topReq, hasTarget)
	}
	if msgType == "" {
		return nil, c.Read.Errorf("messageType", "missing (want one of %v)", c.Acts.Words())
	}
	if caps.Exists() {
		// Beside a message type, a top-level declaration is no member
		// the spec knows.
		dialects.Keep(env, Name, "", "capabilities", caps.Raw)
	}
	act, ok := c.Acts.Canonical(msgType)
	if !ok {
		return nil, c.Read.Errorf("messageType", "unknown message type %q (want one of %v)", msgType, c.Acts.Words())
	}
	env.Act = canonical.Act(act)

	sh := shapeOf(env.Act)
	if sh != shapeResult && topReq.Exists() {
		// Only responses quote the request they answer.
		dialects.Keep(env, Name, "", "requestId", topReq.Raw)
	}
	switch sh {
	case shapeRequest:
		err = c.decodeRequest(d, env, content)
	case shapeResult:
		err = c.decodeResponse(d, env, msgType, content, topReq)
	case shapeEvent:
		err = c.decodeEvent(d, env, msgType, content)
	default:
		d.ForEach(content, func(k, v gjson.Result) bool {
			dialects.Keep(env, Name, "content", dialects.Text(k), v.Raw)
			return true
		})
	}
	if err != nil {
		return nil, err
	}

	switch {
	case hasTarget:
		env.Receiver.Kind = canonical.AddressAgent
	case sh == shapeEvent:
		// Events without a target go to every subscriber of the event type.
		env.Receiver.Kind = canonical.AddressBroadcast
	}
	return env, nil
}

// decodeDeclaration reads the spec's Capability Declaration document,
// {"capabilities": [...]} with no messageType and no content, with which an
// agent declares itself: act inform-capabilities, form FormDeclaration. It
// names no sender unless it has a source: the agent of the connection it
// comes on sends it.
func (c *Codec) decodeDeclaration(d *dialects.Doc, env *canonical.Envelope, caps, topReq gjson.Result, hasTarget bool) (*canonical.Envelope, error) {
	env.Act = canonical.ActInformCapabilities
	env.Origin.Form = FormDeclaration
	if topReq.Exists() {
		dialects.Keep(env, Name, "", "requestId", topReq.Raw)
	}
	if hasTarget {
		env.Receiver.Kind = canonical.AddressAgent
	}
	if err := c.decodeCapabilities(d, env, "capabilities", caps); err != nil {
		return nil, err
	}
	return env, nil
}

// text reads the string member key of the object at parent. An empty string
// carries no canonical value: it is kept as an extra member, so that it is
// written back as it was.
func (c *Codec) text(env *canonical.Envelope, parent, key string, v gjson.Result) (string, error) {
	s, err := c.Read.StringAt(parent, key, v, false)
	if err == nil && s == "" {
		dialects.Keep(env, Name, parent, key, v.Raw)
	}
	return s, err
}

// decodeParty reads a source or target object into id and name. An object
// with neither agentId nor name names no party: it is kept whole as an extra
// member and present is false. An empty agentId or name is kept as an extra
// member of the object.
func (c *Codec) decodeParty(d *dialects.Doc, env *canonical.Envelope, key string, v gjson.Result, id, name *string) (present bool, err error) {
	if err := c.Read.Object(key, v); err != nil {
		return false, err
	}
	if !d.Get(v, "agentId").Exists() && !d.Get(v, "name").Exists() {
		dialects.Keep(env, Name, "", key, v.Raw)
		return false, nil
	}
	d.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "agentId":
			*id, err = c.text(env, key, dialects.Text(k), m)
		case "name":
			*name, err = c.text(env, key, dialects.Text(k), m)
		default:
			dialects.Keep(env, Name, key, dialects.Text(k), m.Raw)
		}
		return err == nil
	})
	return err == nil, err
}

// decodeMetadata lifts metadata.correlationId and metadata.sessionId out of
// the metadata object; the other members stay together, raw, as Metadata.
// An empty correlationId or sessionId names nothing: it stays in Metadata.
// An empty remainder is absent when something was lifted, "{}" otherwise.
// A W3C metadata.traceparent gives the trace id and span of the message's
// Trace, and stays in Metadata as written (its version and flags).
func (c *Codec) decodeMetadata(d *dialects.Doc, env *canonical.Envelope, v gjson.Result) error {
	if err := c.Read.Object("metadata", v); err != nil {
		return err
	}
	var err error
	rest := make([]byte, 0, len(v.Raw))
	rest = append(rest, '{')
	lifted := false
	d.ForEach(v, func(k, m gjson.Result) bool {
		lift := &env.CorrelationID
		switch {
		case k.Str == "sessionId":
			lift = &env.SessionID
		case k.Str != "correlationId":
			lift = nil
		}
		if lift != nil {
			*lift, err = c.Read.StringAt("metadata", k.Str, m, false)
			lifted = lifted || *lift != ""
		}
		if k.Str == "traceparent" && m.Type == gjson.String {
			if id, span, _, ok := canonical.ParseTraceparent(m.Str); ok {
				env.Trace.TraceID, env.Trace.SpanID = id, span
			}
		}
		if err == nil && (lift == nil || *lift == "") {
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(rest, k.Raw...)
			rest = append(rest, ':')
			rest = append(rest, m.Raw...)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if len(rest) > 1 || !lifted {
		env.Metadata = canonical.JSON(append(rest, '}'))
	}
	return nil
}

// decodeRequest reads a request's content; the discovery capability and
// action make it a capability query.
func (c *Codec) decodeRequest(d *dialects.Doc, env *canonical.Envelope, content gjson.Result) error {
	var err error
	d.ForEach(content, func(k, v gjson.Result) bool {
		switch k.Str {
		case "capability":
			env.Operation.Capability, err = c.text(env, "content", dialects.Text(k), v)
		case "action":
			env.Operation.Name, err = c.text(env, "content", dialects.Text(k), v)
		case "parameters":
			env.Arguments = canonical.JSON(v.Raw)
		case "contextId":
			env.ConversationID, err = c.text(env, "content", dialects.Text(k), v)
		default:
			dialects.Keep(env, Name, "content", dialects.Text(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if env.Operation.Capability == DiscoveryCapability && env.Operation.Name == ListCapabilitiesAction {
		env.Act = canonical.ActQueryCapabilities
		env.Operation = canonical.Operation{}
	}
	return nil
}

// decodeEvent reads an event's content; a "capabilities" array makes it a
// capability declaration.
func (c *Codec) decodeEvent(d *dialects.Doc, env *canonical.Envelope, msgType string, content gjson.Result) error {
	var err error
	var eventType, data, caps gjson.Result
	d.ForEach(content, func(k, v gjson.Result) bool {
		switch k.Str {
		case "eventType":
			eventType = v
			_, err = c.Read.String("content.eventType", v, false)
		case "data":
			data = v
		case "capabilities":
			caps = v
		default:
			dialects.Keep(env, Name, "content", dialects.Text(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if caps.Exists() {
		env.Act = canonical.ActInformCapabilities
		env.Origin.SetWord(canonical.KindAct, msgType)
		if eventType.Exists() && dialects.Text(eventType) != CapabilitiesEvent {
			dialects.Keep(env, Name, "content", "eventType", eventType.Raw)
		}
		if data.Exists() {
			dialects.Keep(env, Name, "content", "data", data.Raw)
		}
		return c.decodeCapabilities(d, env, capsPath, caps)
	}
	env.Operation.Name = dialects.Text(eventType)
	if eventType.Exists() && env.Operation.Name == "" {
		dialects.Keep(env, Name, "content", "eventType", eventType.Raw)
	}
	if data.Exists() {
		env.Arguments = canonical.JSON(data.Raw)
	}
	return nil
}

// responseParts are the members of a response's content that say what kind
// of response it is.
type responseParts struct {
	status, success, data, result, err, caps, requestID gjson.Result
}

// decodeResponse reads a response in either shape: a capability
// declaration, a result (also one whose outcome is failure: status error or
// success false with a result but no error object), or an error (refuse,
// failure or not-understood by its error code).
func (c *Codec) decodeResponse(d *dialects.Doc, env *canonical.Envelope, msgType string, content, topReq gjson.Result) error {
	var p responseParts
	d.ForEach(content, func(k, v gjson.Result) bool {
		switch k.Str {
		case "status":
			p.status = v
		case "success":
			p.success = v
		case "data":
			p.data = v
		case "result":
			p.result = v
		case "error":
			p.err = v
		case "capabilities":
			p.caps = v
		case "requestId":
			p.requestID = v
		default:
			dialects.Keep(env, Name, "content", dialects.Text(k), v.Raw)
		}
		return true
	})

	if p.caps.Exists() {
		env.Act = canonical.ActInformCapabilities
		env.Origin.SetWord(canonical.KindAct, msgType)
		atTop, err := c.decodeRequestID(env, false, topReq, p.requestID)
		if err != nil {
			return err
		}
		if atTop {
			env.Origin.Form = FormGuide
		}
		for _, m := range []struct {
			key string
			v   gjson.Result
		}{{"status", p.status}, {"success", p.success}, {"data", p.data}, {"result", p.result}, {"error", p.err}} {
			if m.v.Exists() {
				dialects.Keep(env, Name, "content", m.key, m.v.Raw)
			}
		}
		return c.decodeCapabilities(d, env, capsPath, p.caps)
	}

	spec := p.status.Exists() || p.data.Exists()
	guide := !spec && (p.success.Exists() || p.result.Exists() || (topReq.Exists() && !p.requestID.Exists()))
	atTop, err := c.decodeRequestID(env, guide, topReq, p.requestID)
	if err != nil {
		return err
	}
	env.Origin.Form = responseForm(guide, atTop)
	body, bodyKey := p.data, "data"
	if guide {
		body, bodyKey = p.result, "result"
		if p.success.Exists() {
			ok, err := c.Read.Bool("content.success", p.success)
			if err != nil {
				return err
			}
			env.Outcome = canonical.OutcomeFailure
			if ok {
				env.Outcome = canonical.OutcomeSuccess
			}
		}
	} else {
		if err := c.decodeStatus(env, p.status); err != nil {
			return err
		}
		// Guide members beside the spec's are not interpreted.
		if p.success.Exists() {
			dialects.Keep(env, Name, "content", "success", p.success.Raw)
		}
		if p.result.Exists() {
			dialects.Keep(env, Name, "content", "result", p.result.Raw)
		}
	}

	// An error object says why the request failed; a null one is none.
	described := p.err.Exists() && p.err.Type != gjson.Null
	failed := env.Outcome == canonical.OutcomeFailure || (env.Outcome == "" && described)
	if !failed || (!described && body.Exists()) {
		// A result, or one whose logical goal failed (status error or
		// success false, a result and no error).
		env.Act = canonical.ActResult
		if body.Exists() {
			env.Result = canonical.JSON(body.Raw)
		}
		if p.err.Exists() {
			dialects.Keep(env, Name, "content", "error", p.err.Raw)
		}
		return nil
	}
	if body.Exists() {
		dialects.Keep(env, Name, "content", bodyKey, body.Raw)
	}
	env.Act = canonical.ActFailure
	if !described && p.err.Exists() {
		dialects.Keep(env, Name, "content", "error", p.err.Raw)
	}
	if described {
		if err := c.decodeError(d, env, p.err); err != nil {
			return err
		}
		env.Act = errorAct(env.Error.Code)
	}
	return nil
}

// decodeStatus reads content.status, a closed vocabulary.
func (c *Codec) decodeStatus(env *canonical.Envelope, v gjson.Result) error {
	if !v.Exists() {
		return nil
	}
	w, err := c.Read.String("content.status", v, false)
	if err != nil {
		return err
	}
	o, ok := c.Outcomes.Canonical(w)
	if !ok {
		return c.Read.Errorf("content.status", "unknown status %q (want one of %v)", w, c.Outcomes.Words())
	}
	env.Outcome = canonical.Outcome(o)
	return nil
}

// decodeRequestID reads the id of the request a response answers: at the
// top level in the guide's shape (topFirst), in content in the spec's. When
// both are present the one the shape does not use is kept as an extra
// member; when only one is, it is used wherever it is. atTop reports where
// the id used sits (topFirst when there is none).
func (c *Codec) decodeRequestID(env *canonical.Envelope, topFirst bool, top, inContent gjson.Result) (atTop bool, err error) {
	primary, primaryParent := inContent, "content"
	other, otherParent := top, ""
	if topFirst {
		primary, primaryParent, other, otherParent = other, otherParent, primary, primaryParent
	}
	if !primary.Exists() {
		primary, primaryParent = other, otherParent
		other = gjson.Result{}
	}
	if other.Exists() {
		dialects.Keep(env, Name, otherParent, "requestId", other.Raw)
	}
	if !primary.Exists() {
		return topFirst, nil
	}
	env.InReplyTo, err = c.text(env, primaryParent, "requestId", primary)
	return primaryParent == "", err
}

// responseForm returns the Origin.Form of a response: its body layout (the
// guide's success and result, or the spec's status and data) and where its
// requestId sits.
func responseForm(guide, idAtTop bool) string {
	switch {
	case guide && idAtTop:
		return FormGuide
	case guide:
		return FormGuideContentID
	case idAtTop:
		return FormSpecTopID
	}
	return ""
}

// decodeError reads content.error. Error codes are an open vocabulary: a
// word with no canonical meaning leaves Code empty; the word is kept in
// Origin.Words either way.
func (c *Codec) decodeError(d *dialects.Doc, env *canonical.Envelope, v gjson.Result) error {
	if err := c.Read.Object("content.error", v); err != nil {
		return err
	}
	e := &canonical.Error{}
	env.Error = e
	var err error
	d.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "code":
			err = c.Read.ReadErrorWord(env, e, c.Errors, "content.error", k, m)
		case "message":
			e.Message, err = c.text(env, "content.error", dialects.Text(k), m)
		case "details":
			e.Details = canonical.JSON(m.Raw)
		default:
			dialects.Keep(env, Name, "content.error", dialects.Text(k), m.Raw)
		}
		return err == nil
	})
	return err
}
