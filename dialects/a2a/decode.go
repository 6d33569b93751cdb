package a2a

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Decode reads one a2a frame.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	return c.DecodeRoot(root)
}

// decoder reads one frame into env, with doc (nil: gjson alone).
type decoder struct {
	c   *Codec
	env *canonical.Envelope
	f   form
	doc *dialects.Doc
}

// keep keeps the member k (value v) of the object at parent as an Extra.
func (d *decoder) keep(parent string, k, v gjson.Result) {
	dialects.Keep(d.env, Name, parent, dialects.Key(k), v.Raw)
}

// text reads the string member k of the object at parent into dst; an
// empty one carries no value and is kept as written.
func (d *decoder) text(parent string, k, v gjson.Result, dst *string) error {
	s, err := d.c.Read.StringAt(parent, k.Str, v, false)
	if err != nil {
		return err
	}
	if s == "" {
		d.keep(parent, k, v)
	}
	*dst = s
	return nil
}

// DecodeRoot decodes the frame whose root object is root
// (dialects.RootDecoder).
func (c *Codec) DecodeRoot(root gjson.Result) (*canonical.Envelope, error) {
	return c.decode(nil, root)
}

// DecodeDoc decodes the frame doc holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(doc *dialects.Doc) (*canonical.Envelope, error) {
	return c.decode(doc, doc.Root())
}

// decode decodes the frame whose root object is root, reading it with doc
// (nil: gjson alone).
func (c *Codec) decode(doc *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	d := &decoder{c: c, env: &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}, doc: doc}
	var id, method, params, result, errObj gjson.Result
	var idKey, paramsKey, resultKey, errKey gjson.Result
	var err error
	doc.ForEach(root, func(k, v gjson.Result) bool {
		switch k.Str {
		case "jsonrpc":
			var s string
			if s, err = c.Read.String("jsonrpc", v, false); err == nil && s != jsonrpcVersion {
				d.keep("", k, v)
			}
		case "id":
			id, idKey = v, k
		case "method":
			if _, err = c.Read.String("method", v, false); err == nil {
				method = v
			}
		case "params":
			params, paramsKey = v, k
		case "result":
			result, resultKey = v, k
		case "error":
			errObj, errKey = v, k
		default:
			d.keep("", k, v)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	// A request has a method; an answer has a result or else an error.
	// What the frame's kind does not use is kept as written.
	switch {
	case method.Exists():
		if err = d.id(id, idKey, &d.env.ID); err != nil {
			return nil, err
		}
		for _, m := range [][2]gjson.Result{{resultKey, result}, {errKey, errObj}} {
			if m[1].Exists() {
				d.keep("", m[0], m[1])
			}
		}
		err = d.request(dialects.Text(method), params)
	case result.Exists():
		if err = d.id(id, idKey, &d.env.InReplyTo); err != nil {
			return nil, err
		}
		for _, m := range [][2]gjson.Result{{paramsKey, params}, {errKey, errObj}} {
			if m[1].Exists() {
				d.keep("", m[0], m[1])
			}
		}
		err = d.answer(result)
	case errObj.Exists():
		if err = d.id(id, idKey, &d.env.InReplyTo); err != nil {
			return nil, err
		}
		if params.Exists() {
			d.keep("", paramsKey, params)
		}
		err = d.errorObject(errObj)
	default:
		err = c.Read.Errorf("", "a frame has a method (a request), a result or an error")
	}
	if err != nil {
		return nil, err
	}
	d.env.Origin.Form = d.f.String()
	return d.env, nil
}

// id reads the JSON-RPC id v into dst: a string as it is, a number as its
// JSON text; null, an absent id and an empty string carry none.
func (d *decoder) id(v, k gjson.Result, dst *string) error {
	switch {
	case !v.Exists():
		d.f.id = idAbsent
	case v.Type == gjson.String:
		return d.text("", k, v, dst)
	case v.Type == gjson.Number:
		*dst, d.f.id = v.Raw, idNumber
	case v.Type == gjson.Null:
		d.f.id = idNull
	default:
		return d.c.Read.Errorf("id", "must be a string, a number or null, got %s", dialects.TypeName(v))
	}
	return nil
}

// request reads the params of a request of method.
func (d *decoder) request(method string, params gjson.Result) error {
	if params.Exists() {
		if err := d.c.Read.Object("params", params); err != nil {
			return err
		}
	}
	switch method {
	case methodSend, methodSendStream:
		act, ok := d.c.Acts.Canonical(method)
		if !ok {
			return d.c.Read.Errorf("method", "%q has no act in the a2a vocabulary (want one of %v)", method, d.c.Acts.Words())
		}
		d.env.Act, d.f.shape = canonical.Act(act), shapeSend
		d.env.Origin.SetWord(canonical.KindAct, method)
		return d.sendParams(params)
	case methodGetTask, methodCancelTask:
		// No canonical act gets or cancels a task: each is a request
		// about the task, and the method is kept, so that a dialect that
		// cannot say it reports it lost.
		d.env.Act, d.f.shape = canonical.ActRequest, shapeGet
		if method == methodCancelTask {
			d.f.shape = shapeCancel
		}
		dialects.Keep(d.env, Name, "", "method", strconv.Quote(method))
		return d.taskParams(params)
	}
	return d.c.Read.Errorf("method", "%q is not a method the a2a dialect translates (want %s, %s, %s or %s)",
		method, methodSend, methodSendStream, methodGetTask, methodCancelTask)
}

// sendParams reads SendMessage's params (SendMessageRequest).
func (d *decoder) sendParams(params gjson.Result) error {
	var msg gjson.Result
	var err error
	d.doc.ForEach(params, func(k, v gjson.Result) bool {
		switch k.Str {
		case "message":
			if err = d.c.Read.Object("params.message", v); err == nil {
				msg = v
			}
		case "metadata":
			if err = d.c.Read.Object("params.metadata", v); err == nil {
				d.env.Metadata = canonical.JSON(v.Raw)
			}
		case "tenant":
			if _, err = d.c.Read.String("params.tenant", v, false); err == nil {
				d.keep("params", k, v)
			}
		case "configuration":
			if err = d.c.Read.Object("params.configuration", v); err == nil {
				d.keep("params", k, v)
			}
		default:
			d.keep("params", k, v)
		}
		return err == nil
	})
	if err != nil || !msg.Exists() {
		return err
	}
	return d.requestMessage(msg)
}

// requestMessage reads the message a request sends (params.message).
func (d *decoder) requestMessage(m gjson.Result) error {
	const at = "params.message"
	env := d.env
	var err error
	d.doc.ForEach(m, func(k, v gjson.Result) bool {
		switch k.Str {
		case "messageId":
			// The id of the frame is the message's: kept apart only
			// when the two differ.
			var s string
			if s, err = d.c.Read.String(at+".messageId", v, false); err == nil && (s == "" || s != env.ID) {
				d.keep(at, k, v)
			}
		case "role":
			var s string
			if s, err = d.c.Read.String(at+".role", v, false); err == nil && s != roleUser {
				d.keep(at, k, v)
			}
		case "parts":
			if err = d.c.checkParts(d.doc, at+".parts", v); err != nil {
				break
			}
			if x, ok := soleData(d.doc, v); ok {
				env.Arguments = x
				break
			}
			d.keep(at, k, v)
			var c content
			c.add(d.doc, v)
			env.Arguments = c.value()
		case "metadata":
			err = d.requestMetadata(k, v)
		case "taskId":
			err = d.text(at, k, v, &env.TaskID)
		case "contextId":
			err = d.text(at, k, v, &env.CorrelationID)
		case "extensions", "referenceTaskIds":
			if err = d.c.Read.Array(at+"."+k.Str, v); err == nil {
				d.keep(at, k, v)
			}
		default:
			d.keep(at, k, v)
		}
		return err == nil
	})
	return err
}

// requestMetadata reads the request message's metadata (k, v): its skill
// is the operation, and its receiver, a member the bridge reads (A2A frames
// name no receiver), the agent the request is for. Metadata that is not
// exactly {"skill": NAME} is kept as written.
func (d *decoder) requestMetadata(k, v gjson.Result) error {
	const at = "params.message.metadata"
	if err := d.c.Read.Object(at, v); err != nil {
		return err
	}
	skill := d.doc.Get(v, "skill")
	if skill.Exists() {
		s, err := d.c.Read.String(at+".skill", skill, false)
		if err != nil {
			return err
		}
		d.env.Operation.Name = s
	}
	if to := d.doc.Get(v, "receiver"); to.Exists() {
		s, err := d.c.Read.String(at+".receiver", to, false)
		if err != nil {
			return err
		}
		if s != "" {
			d.env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: s}
		}
	}
	if key, _, ok := sole(d.doc, v); !ok || key != "skill" || d.env.Operation.Name == "" {
		d.keep("params.message", k, v)
	}
	return nil
}

// taskParams reads the params of GetTask or CancelTask (GetTaskRequest,
// CancelTaskRequest): the task's id, and CancelTask's metadata.
func (d *decoder) taskParams(params gjson.Result) error {
	var err error
	d.doc.ForEach(params, func(k, v gjson.Result) bool {
		switch {
		case k.Str == "id":
			err = d.text("params", k, v, &d.env.TaskID)
		case k.Str == "metadata" && d.f.shape == shapeCancel:
			if err = d.c.Read.Object("params.metadata", v); err == nil {
				d.env.Metadata = canonical.JSON(v.Raw)
			}
		case k.Str == "tenant":
			if _, err = d.c.Read.String("params.tenant", v, false); err == nil {
				d.keep("params", k, v)
			}
		default:
			d.keep("params", k, v)
		}
		return err == nil
	})
	return err
}
