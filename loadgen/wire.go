package loadgen

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// wire is where a dialect's messages keep what the load generator reads:
// responders read requests with it, requesters read answers.
type wire struct {
	// kind and request: the member naming a message's type, and its value
	// for a request.
	kind, request string
	// sender and id: the request's sender and its own id (task id for
	// bluelabel), which the answer must name.
	sender, id string
	// args: the request's arguments.
	args string
	// correlation: where an answer names its request, as the dialect's
	// spec puts it (the first present wins).
	correlation []string
	// taskID: the dialect correlates by task id, not message id.
	taskID bool
}

// wires are the five dialects' places, by dialect index.
var wires = func() []wire {
	byName := map[string]wire{
		"elizaacl": {kind: "performative", request: "TASK_REQUEST", sender: "sender.agent_id", id: "message_id",
			args: "payload.task_parameters", correlation: []string{"in_reply_to"}},
		"collab": {kind: "header.type", request: "REQUEST", sender: "header.source", id: "header.messageId",
			args: "body.payload", correlation: []string{"header.correlationId", "correlationId"}},
		"bluelabel": {kind: "type", request: "task_assignment", sender: "sender_id", id: "task_id",
			args: "payload.content.parameters", correlation: []string{"task_id"}, taskID: true},
		"fuse": {kind: "messageType", request: "request", sender: "source.agentId", id: "id",
			args: "content.parameters", correlation: []string{"content.requestId", "requestId"}},
		"swarm": {kind: "message_type", request: "request", sender: "sender_id", id: "message_id",
			args: "payload.arguments", correlation: []string{"correlation_id"}},
	}
	out := make([]wire, len(dialectNames))
	for i, n := range dialectNames {
		w, ok := byName[n]
		if !ok {
			panic("loadgen: no wire places for the dialect " + n)
		}
		out[i] = w
	}
	return out
}()

// answerTo returns the request id an answer names, "" when none.
func (w *wire) answerTo(frame []byte) string {
	for _, p := range w.correlation {
		if v := gjson.GetBytes(frame, p); v.Exists() {
			return v.String()
		}
	}
	return ""
}

// requestID is the id requester id gives its request seq: the requester's
// id, a dash and the sequence number, upper case for bluelabel.
func requestID(dst []byte, id string, seq int) []byte {
	dst = append(dst, id...)
	dst = append(dst, '-')
	return strconv.AppendInt(dst, int64(seq), 10)
}

// parseRequestID returns the sequence number of a request id requester id
// wrote, and whether it is one.
func parseRequestID(s, id string) (int, bool) {
	if len(s) <= len(id)+1 || s[:len(id)] != id || s[len(id)] != '-' {
		return 0, false
	}
	n, err := strconv.Atoi(s[len(id)+1:])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// arguments are a request's arguments: the requester's index q, the
// sequence number and the filler, if any.
func arguments(dst []byte, q, seq int, filler string) []byte {
	dst = append(dst, `{"q":`...)
	dst = strconv.AppendInt(dst, int64(q), 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	if filler != "" {
		dst = append(dst, `,"data":`...)
		dst = append(dst, filler...)
	}
	return append(dst, '}')
}

// filler is a JSON value of about n bytes shaped like a tool call's
// arguments: an array of small objects with numbers, strings, a flag and
// a nested array; at least one of them. "" for n <= 0.
func filler(n int) string {
	if n <= 0 {
		return ""
	}
	b := []byte(`{"items":[`)
	for i := 0; i == 0 || len(b) < n-2; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"item-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","values":[`...)
		b = strconv.AppendInt(b, int64(i%7), 10)
		b = append(b, `,12,3.5],"ok":true,"unit":"ms"}`...)
	}
	return string(append(b, "]}"...))
}

// request is requester from's request seq to the responder to.
func request(d int, from, to string, id string, args []byte) *canonical.Envelope {
	env := &canonical.Envelope{
		Act:       canonical.ActRequest,
		Sender:    canonical.Party{ID: from},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: to},
		Operation: canonical.Operation{Name: "echo"},
		Arguments: canonical.JSON(args),
	}
	if wires[d].taskID {
		env.TaskID = id
	} else {
		env.ID = id
	}
	return env
}

// encodeContext gives an agent's encoder ids from a counter rather than
// random UUIDs, and the clock's time.
func encodeContext(prefix string) *dialects.EncodeContext {
	n := 0
	return &dialects.EncodeContext{NewID: func() string {
		n++
		return prefix + "-M" + strconv.Itoa(n)
	}}
}
