package bluelabel

import (
	"regexp"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

var versionRE = regexp.MustCompile(`^\d+\.\d+$`)

// Validate checks msg against the bluelabel schema (the mended upstream
// schemas of v1.0 and v1.3 and the task assignment schema, in one) and the
// rules the schema states less plainly or not at all.
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
	if !root.IsObject() {
		return c.FinishDoc(d, rules, msg)
	}
	if v := d.Get(root, "protocol_version"); v.Type == gjson.String && !versionRE.MatchString(v.Str) {
		add("protocol_version", "must look like \"1.0\" (major.minor), got %q", v.Str)
	}
	for _, key := range []string{"sender_id", "recipient_id", "task_id"} {
		if v := d.Get(root, key); v.Type == gjson.String && !validID(v.Str) {
			add(key, "must be upper-case letters, digits, \"_\" or \"-\" (%s), got %q", idPattern, v.Str)
		}
	}
	msgType := d.Get(root, "type").Str
	act, _ := c.Acts.Canonical(msgType)
	if d.Get(root, "metadata").Exists() && act != string(canonical.ActRequest) {
		add("metadata", "only a task assignment may carry metadata (this is a %q message)", msgType)
	}
	if act == string(canonical.ActRequest) {
		if d.Get(root, "context").Exists() {
			add("context", "a task_assignment has no top-level context (the task assignment schema refuses it); it goes in metadata.%s", metadataContext)
		}
		taskID := d.Get(root, "task_id")
		payload := d.Get(root, "payload")
		contents := [...]gjson.Result{d.Get(payload, "content"), d.Get(d.Get(payload, "payload"), "content")}
		for i, path := range []string{"payload.content.task_id", "payload.payload.content.task_id"} {
			if v := d.Get(contents[i], "task_id"); v.Type == gjson.String && taskID.Type == gjson.String && v.Str != taskID.Str {
				add(path, "must match the envelope task_id %q, got %q", taskID.Str, v.Str)
			}
		}
	}
	return c.FinishDoc(d, rules, msg)
}

// Detect scores msg as bluelabel: a known type word or a protocol_version
// beside "type", with sender_id, recipient_id and task_id.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "type", "protocol_version", "sender_id", "recipient_id", "task_id", "payload")
	if r[0].Type != gjson.String {
		return 0
	}
	_, known := c.Acts.Canonical(r[0].Str)
	if !known && r[1].Type != gjson.String {
		return 0
	}
	score := 1
	if known {
		score += 2
	}
	if r[1].Type == gjson.String {
		score += 2
	}
	for _, v := range r[2:5] {
		if v.Type == gjson.String {
			score++
		}
	}
	if r[5].IsObject() {
		score++
	}
	return score
}
