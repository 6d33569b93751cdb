package fuse

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the fuse schema and the rules of the spec that
// a schema cannot say as plainly. The envelope members (version, id, source,
// timestamp) stay optional: the spec's own examples leave them out.
func (c *Codec) Validate(msg []byte) []dialects.Problem {
	problems, d := c.ValidateDoc(msg)
	d.Release()
	return problems
}

// ValidateDoc is Validate that hands over the message as it read it
// (dialects.DocValidator).
func (c *Codec) ValidateDoc(msg []byte) ([]dialects.Problem, *dialects.Doc) {
	d, rules, ok := c.StartDoc(msg)
	if !ok {
		return rules.List, nil
	}
	add := rules.Add
	root := d.Root()
	if !rules.Vouched() { // the fast path has found no member twice
		duplicates(root, "", add)
	}
	content := d.Get(root, "content")
	if !root.IsObject() || !content.IsObject() {
		return c.FinishDoc(d, rules, msg)
	}
	act, _ := c.Acts.Canonical(d.Get(root, "messageType").Str)
	switch shapeOf(canonical.Act(act)) {
	case shapeRequest:
		// A capability or action that is not a string is the schema's
		// problem, not this one.
		capability, action := d.Get(content, "capability"), d.Get(content, "action")
		if nonEmpty(capability) == "" && nonEmpty(action) == "" && absentOrText(capability) && absentOrText(action) {
			add("content", "a request must name a capability or an action")
		}
	case shapeResult:
		c.validateResponse(d, root, content, add)
	}
	return c.FinishDoc(d, rules, msg)
}

// validateResponse checks that a response quotes its request, states how it
// ended, and describes an error it reports (or carries the result that
// failed).
func (c *Codec) validateResponse(d *dialects.Doc, root, content gjson.Result, add func(path, format string, args ...any)) {
	if nonEmpty(d.Get(content, "requestId")) == "" && nonEmpty(d.Get(root, "requestId")) == "" {
		add("content.requestId", "a response must carry the id of the request it answers (content.requestId, or requestId at the top level)")
	}
	if d.Get(content, "capabilities").Exists() {
		return
	}
	status, success := d.Get(content, "status"), d.Get(content, "success")
	if !status.Exists() && !success.Exists() {
		add("content.status", "a response must say how the request ended (content.status, or content.success)")
		return
	}
	o, _ := c.Outcomes.Canonical(status.Str)
	if o != string(canonical.OutcomeFailure) && success.Type != gjson.False {
		return
	}
	e := d.Get(content, "error")
	if !e.IsObject() {
		// With no error object, the response is a result whose logical
		// goal failed: it must carry that result (data, or result in the
		// guide's shape).
		body := "data"
		if !status.Exists() && !d.Get(content, "data").Exists() {
			body = "result"
		}
		if e.Type == gjson.Null && d.Get(content, body).Exists() {
			return
		}
		add("content.error", "an error response must describe the error (an object with code and message) or carry the result that failed (content.%s)", body)
		return
	}
	if nonEmpty(d.Get(e, "code")) == "" {
		add("content.error.code", "an error response must give an error code")
	}
	if nonEmpty(d.Get(e, "message")) == "" {
		add("content.error.message", "an error response must give an error message")
	}
}

// nonEmpty returns v's text when v is a non-empty string.
func nonEmpty(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// absentOrText reports whether v is absent or a string, empty or not.
func absentOrText(v gjson.Result) bool { return !v.Exists() || v.Type == gjson.String }

// Detect scores msg as fuse: messageType is its mark, with content, source
// and target objects beside it; with no messageType, a capability
// declaration document (a "capabilities" array and no content) scores 2.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "messageType", "content", "source", "target", "capabilities")
	if !r[0].Exists() && !r[1].Exists() && r[4].IsArray() {
		return 2
	}
	if r[0].Type != gjson.String {
		return 0
	}
	score := 1
	if _, ok := c.Acts.Canonical(r[0].Str); ok {
		score += 2
	}
	if r[1].IsObject() {
		score++
	}
	if r[2].IsObject() || r[3].IsObject() {
		score++
	}
	return score
}

// duplicates reports every object member whose name occurs twice in its
// object: readers disagree on which one counts (the decoder takes the last,
// path lookups the first), so such a message means nothing certain.
func duplicates(v gjson.Result, path string, add func(path, format string, args ...any)) {
	switch {
	case v.IsObject():
		var seen map[string]bool
		v.ForEach(func(k, m gjson.Result) bool {
			if seen == nil {
				seen = map[string]bool{}
			}
			name := dialects.Text(k)
			at := dialects.Join(path, name)
			if seen[name] {
				add(at, "member %q occurs more than once", name)
			}
			seen[name] = true
			duplicates(m, at, add)
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, m gjson.Result) bool {
			duplicates(m, dialects.Join(path, strconv.Itoa(i)), add)
			i++
			return true
		})
	}
}
