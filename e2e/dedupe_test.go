package e2e

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// swarmAnswer is a swarm responder's answer to the request frame req.
func swarmAnswer(t *testing.T, req []byte, result string) []byte {
	t.Helper()
	out := swarmResponse(req)
	out, err := sjson.SetRawBytes(out, "payload.result", []byte(result))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDuplicates: a message sent again within the window is delivered
// once; a request sent again is answered from the first copy, whether its
// answer is still to come or already given.
func TestDuplicates(t *testing.T) {
	h := start(t, nil)
	responder := h.dial("swarm", "swarm-agent")
	c := h.dial("collab", requester("collab"))

	// An event twice: delivered once.
	ev := collabEvent(c, "swarm-agent", "ev-1", 0, 0, "once")
	c.send(ev)
	c.send(ev)
	if got := gjson.GetBytes(responder.recv(), "message_id").String(); got != "ev-1" {
		t.Fatalf("got %s", got)
	}

	// A request twice while it is open: the responder sees it once, and
	// each copy is answered.
	req := c.encode(request("collab", "swarm-agent", "work", `{"n":1}`, "req-1"))
	c.send(req)
	first := responder.recv()
	if gjson.GetBytes(first, "message_type").String() != "request" {
		t.Fatalf("the responder got %s (the event came twice?)", first)
	}
	c.send(req)
	// The next thing the responder gets is a new request, not the copy.
	c.send(c.encode(request("collab", "swarm-agent", "work", `{"n":2}`, "req-2")))
	second := responder.recv()
	if gjson.GetBytes(second, "payload.arguments.n").Int() != 2 {
		t.Fatalf("the copy reached the responder: %s", second)
	}
	responder.send(swarmAnswer(t, first, `{"for":1}`))
	responder.send(swarmAnswer(t, second, `{"for":2}`))
	answers := map[string]int{}
	for range 3 {
		frame := c.recv()
		answers[gjson.GetBytes(frame, "header.correlationId").String()+"="+gjson.GetBytes(frame, "body.result.for").String()]++
	}
	if answers["req-1=1"] != 2 || answers["req-2=2"] != 1 {
		t.Errorf("answers %v, want req-1 twice and req-2 once", answers)
	}

	// The same request after its answer: answered at once, from the first.
	c.send(req)
	if frame := c.recv(); gjson.GetBytes(frame, "header.correlationId").String() != "req-1" || gjson.GetBytes(frame, "body.result.for").Int() != 1 {
		t.Errorf("a late copy got %s", frame)
	}

	// bluelabel has no message ids: the task id and retry_count are the
	// identity; a higher retry_count is a new attempt and goes through.
	blue := h.dial("bluelabel", "BLUE-SENDER")
	assign := blue.encode(&canonical.Envelope{Act: canonical.ActRequest, TaskID: "T-9", Sender: canonical.Party{ID: "BLUE-SENDER"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "SWARM-AGENT"}, Operation: canonical.Operation{Name: "work"}, Arguments: `{"n":9}`})
	withRetry := func(n string) []byte {
		out, err := sjson.SetRawBytes(assign, "retry_count", []byte(n))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	blue.send(withRetry("0"))
	blue.send(withRetry("0"))
	blue.send(withRetry("1"))
	a := responder.recv()
	b := responder.recv()
	if gjson.GetBytes(a, "payload.arguments.n").Int() != 9 || gjson.GetBytes(b, "payload.arguments.n").Int() != 9 {
		t.Fatalf("the responder got %s and %s", a, b)
	}
	// Nothing else: the next message is a probe.
	c.send(collabEvent(c, "swarm-agent", "probe", 0, 0, "x"))
	if got := gjson.GetBytes(responder.recv(), "message_id").String(); got != "probe" {
		t.Errorf("a third bluelabel copy was delivered: %s", got)
	}
	if !strings.Contains(h.logs.String(), `"msg":"duplicate"`) {
		t.Error("no log line for the duplicates")
	}
}
