package a2a

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// answer reads a JSON-RPC result: {"task": Task}, {"message": Message} or
// {"statusUpdate": TaskStatusUpdateEvent}, or a Task itself (GetTask's and
// CancelTask's result).
func (d *decoder) answer(result gjson.Result) error {
	if err := d.c.Read.Object("result", result); err != nil {
		return err
	}
	var key string
	for _, k := range [...]string{"task", "message", "statusUpdate", "artifactUpdate"} {
		if d.doc.Get(result, k).Exists() {
			key = k
			break
		}
	}
	switch {
	case key == "artifactUpdate":
		return d.c.Read.Errorf("result.artifactUpdate", "an artifact update is not an answer the a2a dialect translates (a task, a message or a status update is)")
	case key == "" && d.doc.Get(result, "status").Exists():
		d.f.shape = shapeBare
		return d.task("result", result)
	case key == "":
		return d.c.Read.Errorf("result", "an answer holds a task, a message or a statusUpdate, or is a task (id, contextId, status)")
	}
	var err error
	d.doc.ForEach(result, func(k, v gjson.Result) bool {
		if k.Str != key {
			d.keep("result", k, v)
			return true
		}
		switch key {
		case "task":
			d.f.shape = shapeTask
			err = d.task("result.task", v)
		case "message":
			d.f.shape = shapeMessage
			err = d.messageAnswer(v)
		case "statusUpdate":
			d.f.shape = shapeStatus
			err = d.statusUpdate(v)
		}
		key = "" // a second member of the same name is kept
		return err == nil
	})
	return err
}

// task reads a Task at path: its state is the act.
func (d *decoder) task(path string, v gjson.Result) error {
	if err := d.c.Read.Object(path, v); err != nil {
		return err
	}
	env := d.env
	var status, artifacts gjson.Result
	var err error
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "id":
			err = d.text(path, k, m, &env.TaskID)
		case "contextId":
			err = d.text(path, k, m, &env.CorrelationID)
		case "status":
			status = m
		case "artifacts":
			if err = d.c.checkArtifacts(d.doc, path+".artifacts", m); err == nil {
				artifacts = m
			}
		case "metadata":
			if err = d.c.Read.Object(path+".metadata", m); err == nil {
				env.Metadata = canonical.JSON(m.Raw)
			}
		case "history":
			if err = d.c.Read.Array(path+".history", m); err == nil {
				d.keep(path, k, m)
			}
		default:
			d.keep(path, k, m)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := d.status(path, status); err != nil {
		return err
	}
	if artifacts.Exists() {
		d.artifacts(path, artifacts)
	}
	return nil
}

// statusUpdate reads a TaskStatusUpdateEvent (result.statusUpdate).
func (d *decoder) statusUpdate(v gjson.Result) error {
	const path = "result.statusUpdate"
	if err := d.c.Read.Object(path, v); err != nil {
		return err
	}
	env := d.env
	var status gjson.Result
	var err error
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "taskId":
			err = d.text(path, k, m, &env.TaskID)
		case "contextId":
			err = d.text(path, k, m, &env.CorrelationID)
		case "status":
			status = m
		case "metadata":
			if err = d.c.Read.Object(path+".metadata", m); err == nil {
				env.Metadata = canonical.JSON(m.Raw)
			}
		default:
			d.keep(path, k, m)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	return d.status(path, status)
}

// status reads the status member of the object at parent: its state is the
// act, its message the description (the error's message for a failure, the
// inputs asked for in its data).
func (d *decoder) status(parent string, v gjson.Result) error {
	path := parent + ".status"
	if !v.Exists() {
		return d.c.Read.Errorf(path, "missing: a task's state says what the answer is")
	}
	if err := d.c.Read.Object(path, v); err != nil {
		return err
	}
	env := d.env
	var state string
	var msg gjson.Result
	var err error
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "state":
			state, err = d.c.Read.String(path+".state", m, false)
		case "timestamp":
			var t string
			err = d.text(path, k, m, &t)
			env.Time = canonical.Timestamp(t)
		case "message":
			if err = d.c.Read.Object(path+".message", m); err == nil {
				msg = m
			}
		default:
			d.keep(path, k, m)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if state == "" {
		return d.c.Read.Errorf(path+".state", "missing: a task's state says what the answer is")
	}
	act, ok := d.c.Acts.Canonical(state)
	if !ok || !shapeTask.fits(canonical.Act(act)) {
		return d.c.Read.Errorf(path+".state", "unknown task state %q (want one of %v)", state, d.states())
	}
	env.Act = canonical.Act(act)
	env.Origin.SetWord(canonical.KindAct, state)
	if env.Act.IsError() {
		env.Error = &canonical.Error{}
	}
	if msg.Exists() {
		if err := d.statusMessage(path+".message", msg); err != nil {
			return err
		}
	}
	if state == stateCanceled && env.Error != nil && env.Error.Message == "" {
		env.Error.Message, d.f.canceled = canceledText, true
	}
	return nil
}

// states lists the task states of the act vocabulary.
func (d *decoder) states() []string {
	var out []string
	for _, w := range d.c.Acts.Words() {
		if a, _ := d.c.Acts.Canonical(w); shapeTask.fits(canonical.Act(a)) && w != wordMessage {
			out = append(out, w)
		}
	}
	return out
}

// statusMessage reads a task status's message at path: its text is the
// description, or the error's message for a failure; its data, for an
// act needs-input, the inputs asked for.
func (d *decoder) statusMessage(path string, m gjson.Result) error {
	var parts gjson.Result
	var err error
	d.doc.ForEach(m, func(k, v gjson.Result) bool {
		switch k.Str {
		case "parts":
			if err = d.c.checkParts(d.doc, path+".parts", v); err == nil {
				parts = v
			}
		case "role":
			var s string
			if s, err = d.c.Read.String(path+".role", v, false); err == nil && s != roleAgent {
				d.keep(path, k, v)
			}
		case "messageId", "taskId", "contextId":
			if _, err = d.c.Read.StringAt(path, k.Str, v, false); err == nil {
				d.keep(path, k, v)
			}
		default:
			d.keep(path, k, v)
		}
		return err == nil
	})
	if err != nil || !parts.Exists() {
		return err
	}
	inputs := d.env.Act == canonical.ActNeedsInput
	c, ok := statusParts(d.doc, parts)
	var code, details string
	if ok && c.data != "" {
		switch {
		case inputs:
		case d.env.Act.IsError():
			code, details, ok = errorPart(c.data)
		default:
			ok = false
		}
	}
	if !ok {
		// Parts not in the encoder's form travel as written, and say
		// nothing of the error's code or details.
		dialects.Keep(d.env, Name, path, "parts", parts.Raw)
		c, code, details = content{}, "", ""
		c.add(d.doc, parts)
	}
	switch {
	case d.env.Act.IsError():
		d.env.Error.Message = c.text
		if code != "" {
			dialects.ErrorWord(d.env, d.env.Error, d.c.Errors, code)
		}
		d.env.Error.Details = canonical.JSON(details)
	default:
		d.env.Description = c.text
	}
	if inputs {
		d.env.Inputs = canonical.JSON(c.data)
	}
	return nil
}

// errorPart reads the data part of a failed or rejected task's status
// message in the form the encoder writes it: {"code": N, "data": D}, the
// code and data a JSON-RPC error object would hold, either optional.
func errorPart(raw string) (code, details string, ok bool) {
	v := gjson.Parse(raw)
	if !v.IsObject() {
		return "", "", false
	}
	n := 0
	ok = true
	v.ForEach(func(k, m gjson.Result) bool {
		n++
		switch {
		case k.Str == "code" && m.Type == gjson.Number && m.Num == float64(int64(m.Num)):
			code = strconv.FormatInt(int64(m.Num), 10)
		case k.Str == "data":
			details = m.Raw
		default:
			ok = false
		}
		return ok
	})
	return code, details, ok && n > 0 && n == btoi(code != "")+btoi(details != "")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkArtifacts type-checks a task's artifacts at path, reading v with doc.
func (c *Codec) checkArtifacts(doc *dialects.Doc, path string, v gjson.Result) error {
	if err := c.Read.Array(path, v); err != nil {
		return err
	}
	var err error
	i := 0
	doc.ForEach(v, func(_, a gjson.Result) bool {
		at := path + "." + strconv.Itoa(i)
		i++
		if err = c.Read.Object(at, a); err != nil {
			return false
		}
		doc.ForEach(a, func(k, m gjson.Result) bool {
			switch k.Str {
			case "artifactId", "name", "description":
				_, err = c.Read.StringAt(at, k.Str, m, false)
			case "parts":
				err = c.checkParts(doc, at+".parts", m)
			case "metadata":
				err = c.Read.Object(at+".metadata", m)
			case "extensions":
				err = c.Read.Array(at+".extensions", m)
			}
			return err == nil
		})
		return err == nil
	})
	return err
}

// artifacts reads the artifacts of the task at parent: for a result, the
// result is in them. One artifact whose parts are [{"data": X}] is the
// encoder's form: X is the result and the artifact's other members are
// kept; any other artifacts are kept whole, the result read from them.
func (d *decoder) artifacts(parent string, v gjson.Result) {
	if d.env.Act != canonical.ActResult {
		dialects.Keep(d.env, Name, parent, "artifacts", v.Raw)
		return
	}
	if arr := v.Array(); len(arr) == 1 {
		if x, ok := soleData(d.doc, d.doc.Get(arr[0], "parts")); ok {
			d.env.Result = x
			at := parent + ".artifacts.0"
			d.doc.ForEach(arr[0], func(k, m gjson.Result) bool {
				if k.Str != "parts" {
					d.keep(at, k, m)
				}
				return true
			})
			return
		}
	}
	dialects.Keep(d.env, Name, parent, "artifacts", v.Raw)
	d.env.Result = resultOf(d.doc, v)
}

// resultOf is the result a list of artifacts holds: the first data part of
// any, else their text parts joined. It reads the list with doc.
func resultOf(doc *dialects.Doc, artifacts gjson.Result) canonical.JSON {
	var c content
	doc.ForEach(artifacts, func(_, a gjson.Result) bool {
		c.add(doc, doc.Get(a, "parts"))
		return true
	})
	return c.value()
}

// wordMessage is the act word of an answer that is a Message.
const wordMessage = "message"

// messageAnswer reads an answer that is a Message (result.message): a
// result, in its parts.
func (d *decoder) messageAnswer(m gjson.Result) error {
	const path = "result.message"
	if err := d.c.Read.Object(path, m); err != nil {
		return err
	}
	env := d.env
	act, ok := d.c.Acts.Canonical(wordMessage)
	if !ok || act != string(canonical.ActResult) {
		return d.c.Read.Errorf(path, "the a2a vocabulary has no word %q for a result", wordMessage)
	}
	env.Act = canonical.ActResult
	env.Origin.SetWord(canonical.KindAct, wordMessage)
	var err error
	d.doc.ForEach(m, func(k, v gjson.Result) bool {
		switch k.Str {
		case "messageId":
			// The message's own id: an answer's id in canonical terms
			// is the request's it names (in_reply_to).
			if _, err = d.c.Read.String(path+".messageId", v, false); err == nil {
				d.keep(path, k, v)
			}
		case "taskId":
			err = d.text(path, k, v, &env.TaskID)
		case "contextId":
			err = d.text(path, k, v, &env.CorrelationID)
		case "role":
			var s string
			if s, err = d.c.Read.String(path+".role", v, false); err == nil && s != roleAgent {
				d.keep(path, k, v)
			}
		case "parts":
			if err = d.c.checkParts(d.doc, path+".parts", v); err != nil {
				break
			}
			if x, ok := soleData(d.doc, v); ok {
				env.Result = x
				break
			}
			d.keep(path, k, v)
			var c content
			c.add(d.doc, v)
			env.Result = c.value()
		case "metadata":
			if err = d.c.Read.Object(path+".metadata", v); err == nil {
				env.Metadata = canonical.JSON(v.Raw)
			}
		case "extensions", "referenceTaskIds":
			if err = d.c.Read.Array(path+"."+k.Str, v); err == nil {
				d.keep(path, k, v)
			}
		default:
			d.keep(path, k, v)
		}
		return err == nil
	})
	return err
}

// protocolError reports whether a JSON-RPC error code is one of JSON-RPC's
// own for a request the server could not take (parse error, invalid
// request, method not found, invalid params): the request was not
// understood.
func protocolError(code int64) bool {
	return code == -32700 || code == -32600 || code == -32601 || code == -32602
}

// errorObject reads a JSON-RPC error: JSON-RPC's own codes for a request
// the server could not take are not-understood; the codes whose canonical
// error is rejected or unauthorized, a refusal; any other, a failure.
func (d *decoder) errorObject(v gjson.Result) error {
	if err := d.c.Read.Object("error", v); err != nil {
		return err
	}
	env := d.env
	e := &canonical.Error{}
	env.Error, d.f.shape = e, shapeError
	var code gjson.Result
	var err error
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "code":
			code = m
		case "message":
			err = d.text("error", k, m, &e.Message)
		case "data":
			e.Details = canonical.JSON(m.Raw)
		default:
			d.keep("error", k, m)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !code.Exists() {
		return d.c.Read.Errorf("error.code", "missing")
	}
	n, err := d.c.Read.Int("error.code", code)
	if err != nil {
		return err
	}
	dialects.ErrorWord(env, e, d.c.Errors, strconv.FormatInt(n, 10))
	switch {
	case protocolError(n):
		env.Act = canonical.ActNotUnderstood
	case e.Code == canonical.ErrRejected || e.Code == canonical.ErrUnauthorized:
		env.Act = canonical.ActRefuse
	default:
		env.Act = canonical.ActFailure
	}
	return nil
}
