package collab

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the collab schema and the rules of the spec
// that a schema cannot say as plainly: what a RESPONSE must carry and where
// PUBLISH and BROADCAST may go.
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
	h, prefix := root, ""
	if hdr := d.Get(root, "header"); hdr.IsObject() {
		h, prefix = hdr, "header."
	}
	msgType := d.Get(h, "type").Str
	act, _ := c.Acts.Canonical(msgType)
	switch canonical.Act(act) {
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		c.validateResponse(d, root, h, prefix, add)
	}
	dest := d.Get(h, "destination")
	switch {
	case msgType == typePublish && dest.Str == destinationAll:
		add(prefix+"destination", "a PUBLISH goes to a topic (%q) or an agent; %q is for BROADCAST", topicPrefix+"<name>", destinationAll)
	case msgType == typePublish && dest.Str == topicPrefix:
		add(prefix+"destination", "names no topic")
	case msgType == typeBroadcast && dest.Exists() && dest.Str != destinationAll:
		add(prefix+"destination", "a BROADCAST goes to all agents: must be %q, got %s", destinationAll, dest.Raw)
	}
	return c.FinishDoc(d, rules, msg)
}

// validateResponse checks that a RESPONSE names the request it answers and
// its status, and that an error status comes with an error (code and
// message) or, for a failed result, with a result.
func (c *Codec) validateResponse(d *dialects.Doc, root, h gjson.Result, prefix string, add func(path, format string, args ...any)) {
	corr := d.Get(h, "correlationId")
	if prefix != "" && !corr.Exists() {
		corr = d.Get(root, "correlationId")
	}
	if corr.Type != gjson.String || corr.Str == "" {
		add(prefix+"correlationId", "a RESPONSE must carry the correlationId of the request it answers (in the header or at the top level)")
	}
	body := d.Get(root, "body")
	status := d.Get(body, "status")
	if !status.Exists() {
		add("body.status", "a RESPONSE needs a status (one of %s)", strings.Join(c.Outcomes.Words(), ", "))
		return
	}
	if o, ok := c.Outcomes.Canonical(status.Str); !ok || canonical.Outcome(o) != canonical.OutcomeFailure {
		return
	}
	e := d.Get(body, "error")
	if !e.IsObject() {
		// No error object: a failed result, if there is a result.
		if r := d.Get(body, "result"); !r.Exists() || r.Type == gjson.Null {
			add("body.error", "a %s response needs an error with code and message, or a result (a failed result)", status.Str)
		}
		return
	}
	for _, k := range []string{"code", "message"} {
		if !d.Get(e, k).Exists() {
			add("body.error."+k, "a %s response's error needs a %s", status.Str, k)
		}
	}
}

// Detect scores msg as collab: a type word of its own, in the header or at
// the top level, is its mark; a header object and a body add to it.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "header", "type", "body")
	hdr := r[0].IsObject()
	t := r[1]
	if r[0].Exists() {
		t = r[0].Get("type")
	}
	if t.Type != gjson.String {
		return 0
	}
	score := 0
	if _, ok := c.Acts.Canonical(t.Str); ok {
		score += 3
	} else if !hdr {
		return 0
	}
	if hdr {
		score++
	}
	if r[2].IsObject() {
		score++
	}
	return score
}
