package swarm

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the swarm schema and the rules of the upstream
// validator that a schema cannot say as plainly.
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
	m := membersOf(d, d.Root())
	msgType := m.messageType.Str
	if (msgType == typeRequest || msgType == typeResponse) && (!m.receiver.Exists() || m.receiver.Type == gjson.Null) {
		add("receiver_id", "a %s needs a receiver; only notifications and errors may be sent to all", msgType)
	}
	if msgType == typeResponse || msgType == typeHandshakeResponse {
		if corr := m.correlation; corr.Type != gjson.String || corr.Str == "" {
			add("correlation_id", "a %s must carry the correlation_id of the request it answers", msgType)
		}
	}
	if msgType == typeRequest {
		if t := d.Get(m.payload, "timeout"); t.Type == gjson.Number && (t.Num < minTimeout || t.Num > maxTimeout) {
			add("payload.timeout", "must be between %d and %d, got %s", minTimeout, maxTimeout, t.Raw)
		}
	}
	return c.FinishDoc(d, rules, msg)
}

// members are the top-level members Validate's rules read, each the first
// of its name, as root.Get finds them.
type members struct {
	messageType, receiver, correlation, payload gjson.Result
}

// membersOf reads root's members for Validate in one pass, rather than a
// pass from the start for each. It stops once it has them all, or all but
// the payload of a message that is no request (only a request's timeout is
// read): in the usual order, before the payload.
func membersOf(d *dialects.Doc, root gjson.Result) members {
	var m members
	const typ, recv, corr, payload = 1, 2, 4, 8
	var seen int
	d.ForEach(root, func(k, v gjson.Result) bool {
		var bit int
		var into *gjson.Result
		switch k.Str {
		case "message_type":
			bit, into = typ, &m.messageType
		case "receiver_id":
			bit, into = recv, &m.receiver
		case "correlation_id":
			bit, into = corr, &m.correlation
		case "payload":
			bit, into = payload, &m.payload
		default:
			return true
		}
		if seen&bit == 0 {
			seen |= bit
			*into = v
		}
		if seen&(typ|recv|corr) != typ|recv|corr {
			return true
		}
		return seen&payload == 0 && m.messageType.Str == typeRequest
	})
	return m
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
