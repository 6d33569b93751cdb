package a2a

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// answer writes the result of an answer of shape s; word is its task state
// (or "message").
func (e *encoder) answer(s shape, word string) {
	w := &e.w
	switch s {
	case shapeBare:
		e.task("result", word)
		return
	case shapeMessage:
		w.Open()
		w.Name("message")
		e.messageAnswer()
		e.extras("result", []string{"message"})
		w.Close()
		return
	}
	member, path := "task", "result.task"
	if s == shapeStatus {
		member, path = "statusUpdate", "result.statusUpdate"
	}
	w.Open()
	w.Key(member)
	if s == shapeStatus {
		e.statusUpdate(path, word)
	} else {
		e.task(path, word)
	}
	e.extras("result", []string{member})
	w.Close()
}

// task writes a Task at path in state word.
func (e *encoder) task(path, word string) { e.taskState(path, word, "id", true) }

// statusUpdate writes a TaskStatusUpdateEvent at path in state word.
func (e *encoder) statusUpdate(path, word string) { e.taskState(path, word, "taskId", false) }

// taskState writes at path an object of a task in state word: a Task
// (the task's id at "id", with its artifacts) or a status update (the
// task's id at "taskId", no artifacts).
func (e *encoder) taskState(path, word, idKey string, artifacts bool) {
	w, env := &e.w, e.env
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	e.required(path, idKey, env.TaskID, canonical.CTaskID, key)
	e.required(path, "contextId", env.CorrelationID, canonical.CCorrelationID, key)
	key("status")
	e.status(path+".status", word)
	if artifacts && env.Act == canonical.ActResult {
		e.artifacts(path, key)
	}
	if env.Metadata != "" && !e.kept(path, "metadata") {
		key("metadata")
		e.object(env.Metadata, canonical.CMetadata)
	}
	e.extras(path, wrote)
	w.Close()
}

// status writes a TaskStatus at path: the state word, the time, and a
// message with the description or the error's message (and the inputs
// asked for).
func (e *encoder) status(path, word string) {
	w := &e.w
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	key("state")
	w.String(word)
	if t := e.timestamp(); t != "" && !e.kept(path, "timestamp") {
		key("timestamp")
		w.String(t)
	}
	e.statusMessage(path+".message", word, key)
	e.extras(path, wrote)
	w.Close()
}

// timestamp is the status's time: RFC 3339 with a zone, as A2A's JSON
// (protobuf's Timestamp) has it; another time from another dialect is
// rewritten, or replaced by now when it does not parse, and reported.
func (e *encoder) timestamp() string {
	t := e.env.Time
	if e.own || t == "" || t.HasZone() && t.Valid() {
		return string(t)
	}
	tm, ok := t.Parse()
	switch {
	case ok && t.HasZone():
		return string(t)
	case ok:
		out := canonical.NewTimestamp(tm)
		e.ctx.Lose(dialects.Approximated, canonical.CTime, canonical.CTime.String(),
			"a2a requires a time with a zone; "+string(t)+" has none, wrote "+string(out)+" (read as UTC)")
		return string(out)
	}
	return string(dialects.TimeFor(e.ctx, Name, t, canonical.CTime, true, false))
}

// statusMessage writes the status message at path, when there is
// something to say: the description, or the error's message for a
// failure, as a text part; the inputs asked for as a data part.
func (e *encoder) statusMessage(path, word string, parentKey func(string)) {
	w, env := &e.w, e.env
	var want content
	switch {
	case env.Act.IsError() && env.Error != nil:
		want.text = env.Error.Message
		if e.f.canceled && word == stateCanceled && want.text == canceledText {
			want.text = ""
		}
		want.data = e.errorPart()
	case !env.Act.IsError():
		want.text = env.Description
	}
	want.hasText = want.text != ""
	if env.Act == canonical.ActNeedsInput {
		want.data = string(env.Inputs)
	}
	raw, kept := e.extra(path, "parts")
	rawFits := kept && statusContent(raw, env.Act == canonical.ActNeedsInput) == want
	if !want.hasText && want.data == "" && !dialects.HasExtras(env, Name, path) {
		return
	}
	parentKey("message")
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	if !e.kept(path, "messageId") {
		key("messageId")
		w.String(e.ctx.ID())
	}
	if !e.kept(path, "role") {
		key("role")
		w.String(roleAgent)
	}
	if !rawFits && (want.hasText || want.data != "") {
		key("parts")
		writeStatusParts(w, want)
	}
	e.extras(path, wrote)
	w.Close()
}

// statusContent is what a kept list of a status message's parts says, as
// the decoder reads it: the text, and the data for inputs.
func statusContent(raw canonical.JSON, inputs bool) content {
	var c content
	c.add(nil, gjson.Parse(string(raw)))
	if !inputs {
		c.data = ""
	}
	c.hasText = c.text != ""
	return c
}

// artifacts writes the artifacts of the task at path: the result as the
// one data part of one artifact.
func (e *encoder) artifacts(path string, key func(string)) {
	w, env := &e.w, e.env
	if raw, ok := e.extra(path, "artifacts"); ok && resultOf(nil, gjson.Parse(string(raw))) == env.Result {
		return
	}
	if env.Result == "" {
		return
	}
	key("artifacts")
	at := path + ".artifacts.0"
	w.OpenArray()
	w.Open()
	if !e.kept(at, "artifactId") {
		w.Name("artifactId")
		w.String(artifactID)
	}
	w.Name("parts")
	writeDataParts(w, env.Result)
	e.extras(at, []string{"parts"})
	w.Close()
	w.CloseArray()
}

// messageAnswer writes an answer that is a Message: the result as its one
// data part.
func (e *encoder) messageAnswer() {
	const path = "result.message"
	w, env := &e.w, e.env
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	if !e.kept(path, "messageId") {
		key("messageId")
		w.String(e.ctx.ID())
	}
	if !e.kept(path, "role") {
		key("role")
		w.String(roleAgent)
	}
	if raw, ok := e.extra(path, "parts"); !ok || partsValue(raw) != env.Result {
		key("parts")
		result := env.Result
		if result == "" {
			result = "{}"
			e.ctx.Fill(canonical.CResult, path+".parts.0.data", string(result))
		}
		writeDataParts(w, result)
	}
	e.optional(path, "taskId", env.TaskID, key)
	e.optional(path, "contextId", env.CorrelationID, key)
	if env.Metadata != "" && !e.kept(path, "metadata") {
		key("metadata")
		e.object(env.Metadata, canonical.CMetadata)
	}
	e.extras(path, wrote)
	w.Close()
}

// defaultProtocolCode is the code written for a message not understood
// whose error has no JSON-RPC code of its own for it: Invalid Request.
const defaultProtocolCode = "-32600"

// errorObject writes a JSON-RPC error: the code the error's canonical code
// has in the a2a vocabulary, its message and its details.
func (e *encoder) errorObject() {
	w, env := &e.w, e.env
	er := env.Error
	if er == nil {
		er = &canonical.Error{}
	}
	code := er.Code
	if code == "" {
		code = canonical.DefaultErrorCode(env.Act)
	}
	var wrote []string
	key := func(k string) { w.Key(k); wrote = append(wrote, k) }
	w.Open()
	word := e.errorWord(code)
	n, err := strconv.ParseInt(word, 10, 64)
	switch {
	case err != nil:
		dialects.Approximate(e.ctx, canonical.CErrorCode, Name, word, "-32603 (a JSON-RPC code is a number)")
		n = -32603
	case env.Act == canonical.ActNotUnderstood && !protocolError(n):
		// Only JSON-RPC's own codes say the request was not taken.
		dialects.Approximate(e.ctx, canonical.CErrorCode, Name, word, defaultProtocolCode+" (Invalid Request)")
		n, _ = strconv.ParseInt(defaultProtocolCode, 10, 64)
	}
	key("code")
	w.Int(n)
	if !e.kept("error", "message") {
		msg := er.Message
		if msg == "" && !e.own {
			msg = string(code)
			e.ctx.Fill(canonical.CErrorMessage, "error.message", msg)
		}
		key("message")
		w.String(msg)
	}
	if er.Details != "" {
		key("data")
		e.errorData(er.Details)
	}
	e.extras("error", wrote)
	w.Close()
}

// errorWord returns the JSON-RPC code word for the error code: the
// source's own word when it has no canonical meaning (any dialect's: a word
// that is not a number is then approximated by the caller), else the a2a
// vocabulary's.
func (e *encoder) errorWord(code canonical.ErrorCode) string {
	if er := e.env.Error; er != nil && er.Code == "" {
		if w := e.env.Origin.Words.Get(canonical.KindError); w != "" {
			return w // the source's own word, with no canonical meaning: kept as it is
		}
	}
	word, _ := dialects.Word(e.ctx, e.env, Name, e.c.Errors, string(code), canonical.CErrorCode)
	return word
}

// errorPart returns the data part a failed or rejected task's status
// message carries its error in: {"code": N, "data": D}, as a JSON-RPC error
// object holds them; "" when the error has neither a code nor details.
func (e *encoder) errorPart() string {
	er := e.env.Error
	hasCode := er.Code != "" || e.env.Origin.Words.Get(canonical.KindError) != ""
	if !hasCode && er.Details == "" {
		return ""
	}
	w := jsonw.New(nil)
	w.Open()
	if hasCode {
		word := e.errorWord(er.Code)
		n, err := strconv.ParseInt(word, 10, 64)
		if err != nil {
			dialects.Approximate(e.ctx, canonical.CErrorCode, Name, word, "-32603 (a JSON-RPC code is a number)")
			n = -32603
		}
		w.Name("code")
		w.Int(n)
	}
	if er.Details != "" {
		w.Name("data")
		w.Raw(string(er.Details))
	}
	w.Close()
	return string(w.Buf)
}

// errorData writes an error's details as A2A's error data: a list of
// objects (typed details, google.rpc style). From another dialect, an
// object is written as the one detail of a list and any other value as
// {"value": ...}, reported.
func (e *encoder) errorData(raw canonical.JSON) {
	w := &e.w
	v := gjson.Parse(string(raw))
	allObjects := v.IsArray()
	v.ForEach(func(_, d gjson.Result) bool {
		allObjects = allObjects && d.IsObject()
		return allObjects
	})
	if e.own || allObjects {
		w.Raw(string(raw))
		return
	}
	w.OpenArray()
	if v.IsObject() {
		dialects.Approximate(e.ctx, canonical.CErrorDetails, Name, string(raw), "[ ... ] (a list of details)")
		w.Raw(string(raw))
	} else {
		dialects.Approximate(e.ctx, canonical.CErrorDetails, Name, string(raw), `[{"value": ...}] (a list of details)`)
		w.Open()
		w.Name("value")
		w.Raw(string(raw))
		w.Close()
	}
	w.CloseArray()
}
