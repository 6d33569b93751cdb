package bluelabel

import (
	"math"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// Decode reads one bluelabel message.
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
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}, Extra: make([]canonical.Field, 0, 8)}
	var msgType, recipient, tm string
	var typed bool
	var payload, context, metadata gjson.Result
	var seen members
	d.ForEach(root, func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typed = true
			if err = seen.once(c.Read, "", k.Str); err == nil {
				msgType, err = c.Read.String("type", v, false)
			}
		case "protocol_version":
			err = c.text(env, &seen, "", k.Str, v, &env.Origin.Version)
		case "sender_id":
			err = c.text(env, &seen, "", k.Str, v, &env.Sender.ID)
		case "recipient_id":
			err = c.text(env, &seen, "", k.Str, v, &recipient)
		case "timestamp":
			err = c.text(env, &seen, "", k.Str, v, &tm)
		case "task_id":
			err = c.text(env, &seen, "", k.Str, v, &env.TaskID)
		case "trace_id":
			err = c.text(env, &seen, "", k.Str, v, &env.Trace.TraceID)
		case "context":
			if err = seen.once(c.Read, "", k.Str); err == nil {
				context = v
			}
		case "metadata":
			if err = seen.once(c.Read, "", k.Str); err == nil {
				metadata = v
			}
		case "payload":
			if err = seen.once(c.Read, "", k.Str); err == nil {
				payload, err = v, c.Read.Object("payload", v)
			}
		default: // retry_count and members the schema does not allow
			dialects.Keep(env, Name, "", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if !typed {
		return nil, c.Read.Errorf("type", "missing")
	}
	act, ok := c.Acts.Canonical(msgType)
	if !ok {
		return nil, c.Read.Errorf("type", "unknown message type %q (want one of %v)", msgType, c.Acts.Words())
	}
	env.Act = canonical.Act(act)
	env.Origin.SetWord(canonical.KindAct, msgType)
	env.Time = canonical.Timestamp(tm)
	if recipient != "" {
		env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: recipient}
	}
	if payload.Exists() {
		if err := c.decodePayload(d, env, msgType, payload); err != nil {
			return nil, err
		}
	} else {
		env.Origin.Form = formBare
	}
	if env.Act == canonical.ActRequest {
		// The task assignment schema has no top-level context (Validate
		// reports one, kept as written); its metadata may hold one.
		if context.Exists() {
			dialects.Keep(env, Name, "", "context", context.Raw)
		}
		if metadata.Exists() {
			if err := c.decodeMetadata(d, env, metadata); err != nil {
				return nil, err
			}
		}
		return env, nil
	}
	if context.Exists() {
		env.Context = canonical.JSON(context.Raw)
	}
	if metadata.Exists() {
		// The schema allows metadata only on a task assignment.
		dialects.Keep(env, Name, "", "metadata", metadata.Raw)
	}
	return env, nil
}

// decodeMetadata reads a task assignment's metadata: its member traceparent
// gives the trace's span, its member context is
// the message's Context (the task assignment schema allows no other place
// for one), the other members stay together, raw, as Metadata. Metadata
// that held only a context is absent.
func (c *Codec) decodeMetadata(d *dialects.Doc, env *canonical.Envelope, v gjson.Result) error {
	// A W3C traceparent of the message's trace gives the span it continues;
	// it stays in Metadata as written (its flags).
	if tp := d.Get(v, traceparent); v.IsObject() && tp.Type == gjson.String {
		if id, span, _, ok := canonical.ParseTraceparent(tp.Str); ok && (env.Trace.TraceID == "" || env.Trace.TraceID == id) {
			env.Trace.TraceID, env.Trace.SpanID = id, span
		}
	}
	if !v.IsObject() || !d.Get(v, metadataContext).Exists() {
		env.Metadata = canonical.JSON(v.Raw)
		return nil
	}
	var seen members
	var err error
	rest := make([]byte, 0, len(v.Raw))
	rest = append(rest, '{')
	d.ForEach(v, func(k, m gjson.Result) bool {
		if k.Str == metadataContext {
			if err = seen.once(c.Read, "metadata", k.Str); err == nil {
				env.Context = canonical.JSON(m.Raw)
			}
			return err == nil
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(rest, k.Raw...)
		rest = append(rest, ':')
		rest = append(rest, m.Raw...)
		return true
	})
	if len(rest) > 1 {
		env.Metadata = canonical.JSON(append(rest, '}'))
	}
	return err
}

// decodePayload reads the payload of a message of type msgType, flat or in
// the nested form {"type": msgType, "payload": {...}}.
func (c *Codec) decodePayload(d *dialects.Doc, env *canonical.Envelope, msgType string, p gjson.Result) error {
	base := "payload"
	if nested(d, p) {
		env.Origin.Form = formNested
		var inner gjson.Result
		var seen members
		var err error
		d.ForEach(p, func(k, v gjson.Result) bool {
			switch k.Str {
			case "type":
				err = c.payloadType(&seen, base, msgType, v)
			case "payload":
				if err = seen.once(c.Read, base, k.Str); err == nil {
					inner, err = v, c.Read.Object("payload.payload", v)
				}
			default:
				dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		p, base = inner, "payload.payload"
	}
	switch env.Act {
	case canonical.ActRequest:
		return c.decodeAssignment(d, env, msgType, base, p)
	case canonical.ActResult:
		return c.decodeResult(d, env, base, p)
	case canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		return c.decodeError(d, env, base, p)
	case canonical.ActNeedsInput:
		return c.decodeNeedsInput(d, env, base, p)
	}
	// An act a mapping file gave a word of its own: nothing to interpret.
	d.ForEach(p, func(k, v gjson.Result) bool {
		dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
		return true
	})
	return nil
}

// nested reports whether payload p, read with d, is in the nested form: it
// has both a "type" and a "payload" member.
func nested(d *dialects.Doc, p gjson.Result) bool {
	if !strings.Contains(p.Raw, `"payload"`) { // the usual flat payload: no second scan
		return false
	}
	var typed, inner bool
	d.ForEach(p, func(k, _ gjson.Result) bool {
		typed = typed || k.Str == "type"
		inner = inner || k.Str == "payload"
		return !(typed && inner)
	})
	return typed && inner
}

// payloadType checks a payload's own "type" member, which repeats the
// message type.
func (c *Codec) payloadType(seen *members, parent, msgType string, v gjson.Result) error {
	if err := seen.once(c.Read, parent, "type"); err != nil {
		return err
	}
	switch {
	case v.Type != gjson.String:
		_, err := c.Read.StringAt(parent, "type", v, false)
		return err
	case v.Str != msgType:
		return c.Read.Errorf(dialects.Join(parent, "type"), "payload type %q does not match the message type %q", v.Str, msgType)
	}
	return nil
}

// decodeAssignment reads a task_assignment payload: {"type", "content"}.
func (c *Codec) decodeAssignment(d *dialects.Doc, env *canonical.Envelope, msgType, base string, p gjson.Result) error {
	var content gjson.Result
	var seen members
	var err error
	d.ForEach(p, func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			err = c.payloadType(&seen, base, msgType, v)
		case "content":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				content, err = v, c.Read.Object(base+".content", v)
			}
		default:
			dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if err != nil || !content.Exists() {
		return err
	}
	cbase := "payload.content"
	if base != "payload" {
		cbase = base + ".content"
	}
	var deadline string
	var taskID gjson.Result
	seen = members{}
	d.ForEach(content, func(k, v gjson.Result) bool {
		switch k.Str {
		case "task_id":
			if err = seen.once(c.Read, cbase, k.Str); err == nil {
				taskID = v
				if v.Type != gjson.String {
					_, err = c.Read.String(cbase+".task_id", v, false)
				}
			}
		case "description":
			err = c.text(env, &seen, cbase, k.Str, v, &env.Description)
		case "action":
			err = c.text(env, &seen, cbase, k.Str, v, &env.Operation.Name)
		case "parameters":
			if err = seen.once(c.Read, cbase, k.Str); err == nil {
				env.Arguments = canonical.JSON(v.Raw)
			}
		case "priority":
			if err = seen.once(c.Read, cbase, k.Str); err == nil {
				var p string
				if p, err = c.word(c.Priorities, "priority", cbase, k.Str, v); err == nil {
					env.Priority, _ = canonical.ParsePriority(p)
					env.Origin.SetWord(canonical.KindPriority, v.Str)
				}
			}
		case "deadline":
			err = c.text(env, &seen, cbase, k.Str, v, &deadline)
		case "timeout":
			err = c.seconds(env, &seen, cbase, k.Str, v, &env.TTL)
		default: // requirements, input_files, output_files, dependencies, conditions
			dialects.Keep(env, Name, cbase, dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	env.Deadline = canonical.Timestamp(deadline)
	// content.task_id repeats the envelope's task_id; only a different
	// value is worth keeping.
	if taskID.Exists() && (taskID.Str != env.TaskID || env.TaskID == "") {
		dialects.Keep(env, Name, cbase, "task_id", taskID.Raw)
	}
	return err
}

// word returns the canonical value of a closed vocabulary's word at
// parent.key; an unknown word is an error listing the table's words.
func (c *Codec) word(t *mappings.Table, what, parent, key string, v gjson.Result) (string, error) {
	if v.Type != gjson.String {
		_, err := c.Read.StringAt(parent, key, v, false)
		return "", err
	}
	value, ok := t.Canonical(v.Str)
	if !ok {
		return "", c.Read.Errorf(dialects.Join(parent, key), "unknown %s %q (want one of %v)", what, v.Str, t.Words())
	}
	return value, nil
}

// decodeResult reads a task_result payload.
func (c *Codec) decodeResult(d *dialects.Doc, env *canonical.Envelope, base string, p gjson.Result) error {
	var seen members
	var err error
	d.ForEach(p, func(k, v gjson.Result) bool {
		switch k.Str {
		case "status":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				var o string
				if o, err = c.word(c.Outcomes, "status", base, k.Str, v); err == nil {
					env.Outcome = canonical.Outcome(o)
					env.Origin.SetWord(canonical.KindOutcome, v.Str)
				}
			}
		case "result":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				env.Result = canonical.JSON(v.Raw)
			}
		case "notes":
			err = c.text(env, &seen, base, k.Str, v, &env.Description)
		default: // metrics, and v1.3 success, score, duration_sec
			dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	return err
}

// decodeError reads an error payload. For the error type the code decides
// the act: the code meaning "rejected" is a refusal, the one meaning
// "invalid message" is not-understood, any other (or none) a failure.
func (c *Codec) decodeError(d *dialects.Doc, env *canonical.Envelope, base string, p gjson.Result) error {
	e := &canonical.Error{}
	env.Error = e
	var seen members
	var err error
	d.ForEach(p, func(k, v gjson.Result) bool {
		switch k.Str {
		case "code":
			var w string
			if err = c.text(env, &seen, base, k.Str, v, &w); err == nil && w != "" {
				dialects.ErrorWord(env, e, c.Errors, w)
			}
		case "message":
			err = c.text(env, &seen, base, k.Str, v, &e.Message)
		case "details":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				e.Details = canonical.JSON(v.Raw)
			}
		case "retryable":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				var b bool
				if b, err = c.Read.Bool(base+".retryable", v); err == nil {
					e.Retryable = &b
				}
			}
		case "suggested_actions":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				e.SuggestedActions = canonical.JSON(v.Raw)
			}
		default: // documentation
			dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if env.Act == canonical.ActFailure {
		env.Act = errorAct(e.Code)
	}
	return err
}

// errorAct returns the act an error message of a canonical code stands for.
func errorAct(code canonical.ErrorCode) canonical.Act {
	for _, a := range []canonical.Act{canonical.ActRefuse, canonical.ActNotUnderstood} {
		if code != "" && code == canonical.DefaultErrorCode(a) {
			return a
		}
	}
	return canonical.ActFailure
}

// decodeNeedsInput reads a needs_input payload.
func (c *Codec) decodeNeedsInput(d *dialects.Doc, env *canonical.Envelope, base string, p gjson.Result) error {
	var seen members
	var err error
	d.ForEach(p, func(k, v gjson.Result) bool {
		switch k.Str {
		case "requested_inputs":
			if err = seen.once(c.Read, base, k.Str); err == nil {
				env.Inputs = canonical.JSON(v.Raw)
			}
		case "context":
			err = c.text(env, &seen, base, k.Str, v, &env.Description)
		case "timeout_seconds":
			err = c.seconds(env, &seen, base, k.Str, v, &env.TTL)
		default: // actions
			dialects.Keep(env, Name, base, dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	return err
}

// text reads a string member into dst. An empty string has no canonical
// meaning ("" is absent), so it is kept as an Extra member to round-trip.
func (c *Codec) text(env *canonical.Envelope, seen *members, parent, key string, v gjson.Result, dst *string) error {
	if err := seen.once(c.Read, parent, key); err != nil {
		return err
	}
	if v.Type != gjson.String { // the path is built only for the error
		_, err := c.Read.StringAt(parent, key, v, false)
		return err
	}
	s := v.Str
	if s == "" {
		dialects.Keep(env, Name, parent, key, v.Raw)
		return nil
	}
	*dst = s
	return nil
}

// maxSeconds is the largest number of seconds a time.Duration holds.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// seconds reads a number of seconds into dst. A value no Duration holds is
// kept as an Extra member as written.
func (c *Codec) seconds(env *canonical.Envelope, seen *members, parent, key string, v gjson.Result, dst *canonical.Duration) error {
	if err := seen.once(c.Read, parent, key); err != nil {
		return err
	}
	if v.Type != gjson.Number {
		_, err := c.Read.Number(dialects.Join(parent, key), v)
		return err
	}
	switch n := v.Num; {
	case math.IsNaN(n) || math.Abs(n) > float64(maxSeconds):
		dialects.Keep(env, Name, parent, key, v.Raw)
	case n == math.Trunc(n):
		*dst = canonical.Dur(time.Duration(int64(n)) * time.Second)
	default:
		*dst = canonical.Dur(time.Duration(n * float64(time.Second)))
	}
	return nil
}

// members tracks the members of one object that a decoder interprets: a
// second occurrence is refused, since only one value could be kept for it.
// No object has more interpreted members than the array holds.
type members struct {
	seen [10]string
	n    int
}

func (m *members) once(r dialects.Reader, parent, key string) error {
	for _, s := range m.seen[:m.n] {
		if s == key {
			return r.Errorf(dialects.Join(parent, key), "appears twice")
		}
	}
	if m.n < len(m.seen) {
		m.seen[m.n] = key
		m.n++
	}
	return nil
}
