package swarm

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the swarm schema and the rules of the upstream
// validator that a schema cannot say as plainly.
func (c *Codec) Validate(msg []byte) []dialects.Problem {
	root, rules, ok := c.StartRules(msg)
	if !ok {
		return rules.List
	}
	add := rules.Add
	msgType := root.Get("message_type").Str
	recv := root.Get("receiver_id")
	if (msgType == typeRequest || msgType == typeResponse) && (!recv.Exists() || recv.Type == gjson.Null) {
		add("receiver_id", "a %s needs a receiver; only notifications and errors may be sent to all", msgType)
	}
	if msgType == typeResponse || msgType == typeHandshakeResponse {
		if corr := root.Get("correlation_id"); corr.Type != gjson.String || corr.Str == "" {
			add("correlation_id", "a %s must carry the correlation_id of the request it answers", msgType)
		}
	}
	if msgType == typeRequest {
		// Looked up only for a request: for anything else the search
		// would walk the whole payload for nothing.
		if t := root.Get("payload.timeout"); t.Type == gjson.Number && (t.Num < minTimeout || t.Num > maxTimeout) {
			add("payload.timeout", "must be between %d and %d, got %s", minTimeout, maxTimeout, t.Raw)
		}
	}
	return c.FinishRules(rules, msg)
}

// Detect scores msg as swarm: message_type and sender_id are its marks.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "message_type", "sender_id", "payload")
	if r[0].Type != gjson.String {
		return 0
	}
	score := 1
	if _, ok := c.Acts.Canonical(r[0].Str); ok {
		score += 2
	}
	if r[1].Exists() {
		score++
	}
	if r[2].IsObject() {
		score++
	}
	return score
}
