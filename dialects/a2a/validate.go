package a2a

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the a2a schema: the JSON-RPC frame and the
// A2A types of its params or its result.
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
	return c.FinishDoc(d, rules, msg)
}

// Detect scores msg as a2a: a JSON-RPC 2.0 object whose method is one of
// A2A's, or whose result holds a task, a message or a status update, or is
// a task; a JSON-RPC error alone scores low, since any JSON-RPC peer sends
// those.
func (c *Codec) Detect(msg []byte) int {
	r := gjson.GetManyBytes(msg, "jsonrpc", "method", "result", "error.code")
	if r[0].Type != gjson.String || r[0].Str != jsonrpcVersion {
		return 0
	}
	switch {
	case r[1].Exists():
		switch r[1].Str {
		case methodSend, methodSendStream, methodGetTask, methodCancelTask:
			return 5
		}
		return 0
	case r[2].IsObject():
		res := r[2]
		if res.Get("task").IsObject() || res.Get("message").IsObject() || res.Get("statusUpdate").IsObject() ||
			res.Get("status.state").Type == gjson.String {
			return 5
		}
		return 0
	case r[3].Type == gjson.Number:
		return 2
	}
	return 0
}
