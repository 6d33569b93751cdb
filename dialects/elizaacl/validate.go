package elizaacl

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the elizaacl schema and the spec's "must
// include" rules: replies name the message they answer (spec 4.2-4.9), a
// TASK_REQUEST names its task_type and an INFORM_RESULT its task_status.
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
	perf := d.Get(root, "performative")
	if a, ok := c.Acts.Canonical(perf.Str); ok && perf.Type == gjson.String {
		act := canonical.Act(a)
		if act.IsReply() && !nonEmpty(d.Get(root, "in_reply_to")) {
			add("in_reply_to", "%s must include in_reply_to, the message_id of the message it answers", perf.Str)
		}
		switch act {
		case canonical.ActRequest:
			if !nonEmpty(d.Get(d.Get(root, "payload"), "task_type")) {
				add("payload.task_type", "%s must name its task_type", perf.Str)
			}
		case canonical.ActResult:
			if !d.Get(d.Get(root, "payload"), "task_status").Exists() {
				add("payload.task_status", "%s must state its task_status", perf.Str)
			}
		}
	}
	return c.FinishDoc(d, rules, msg)
}

// nonEmpty reports whether v is a string with text.
func nonEmpty(v gjson.Result) bool { return v.Type == gjson.String && v.Str != "" }

// Detect scores msg as elizaacl: performative is its mark, mcp_version,
// sender.agent_id and an object payload add to it.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "performative", "mcp_version", "sender.agent_id", "payload")
	if r[0].Type != gjson.String {
		return 0
	}
	score := 1
	if _, ok := c.Acts.Canonical(r[0].Str); ok {
		score += 2
	}
	if r[1].Type == gjson.String {
		score++
	}
	if r[2].Exists() {
		score++
	}
	if r[3].IsObject() {
		score++
	}
	return score
}
