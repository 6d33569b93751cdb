package e2e

import (
	"fmt"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// correlation returns the value a reply of dialect d names its request
// by, read straight from the JSON at the places each spec puts it.
func correlation(d string, reply []byte) string {
	paths := map[string][]string{
		"elizaacl":  {"in_reply_to"},
		"collab":    {"header.correlationId", "correlationId"},
		"bluelabel": {"task_id"},
		"fuse":      {"content.requestId", "requestId"},
		"swarm":     {"correlation_id"},
		"a2a":       {"id"},
	}[d]
	for _, p := range paths {
		if v := gjson.GetBytes(reply, p); v.Exists() {
			return v.String()
		}
	}
	return ""
}

// accepts are the dialects with an accept of their own: elizaacl's
// TASK_ACCEPT and a2a's status update in TASK_STATE_WORKING. A requester of
// one hears an accept before the result, from the bridge when the
// receiver's dialect has none.
var accepts = map[string]bool{"elizaacl": true, "a2a": true}

// TestPairs sends, for every ordered pair of dialects, a request from a
// raw client of the first to a reference agent of the second, and checks
// the reply reaches the requester in its own dialect, valid, correlated
// the way its spec says, with the result.
func TestPairs(t *testing.T) {
	h := start(t, nil)
	for _, d := range dialectNames {
		h.runAgent(d, responder(d))
	}
	clients := map[string]*client{}
	for _, d := range dialectNames {
		clients[d] = h.dial(d, requester(d))
	}
	for _, from := range dialectNames {
		for _, to := range dialectNames {
			t.Run(from+"->"+to, func(t *testing.T) {
				c := clients[from]
				c.t = t
				id := fmt.Sprintf("req-%s-%s", from, to)
				want := spellFor(from, id)
				args := fmt.Sprintf(`{"a":2,"b":40,"pair":%q}`, id)
				c.send(c.encode(request(from, responder(to), "add", args, id)))
				var reply *canonical.Envelope
				var frame []byte
				accepted := false
				for {
					frame = c.recv()
					reply = c.decode(frame)
					if reply.Act != canonical.ActAccept {
						break
					}
					accepted = true
					if !accepts[from] {
						t.Errorf("only elizaacl and a2a have an accept; %s got one: %s", from, frame)
					}
					if got := correlation(from, frame); got != want {
						t.Errorf("the accept answers %q, want %q", got, want)
					}
				}
				// The bridge accepts for agents whose dialect has no accept.
				if accepts[from] && !accepts[to] && !accepted {
					t.Errorf("no accept before the result from a %s agent", to)
				}
				if got := correlation(from, frame); got != want {
					t.Errorf("correlation = %q, want %q\n%s", got, want, frame)
				}
				if reply.Act != canonical.ActResult {
					t.Fatalf("act %s, want result: %s", reply.Act, frame)
				}
				// bluelabel's results are {output, data}: the sum is in data
				// whenever bluelabel is on the way.
				res := gjson.Parse(string(reply.Result))
				if res.Get("data.sum").Exists() {
					res = res.Get("data")
				}
				if got := res.Get("sum").Float(); got != 42 {
					t.Errorf("sum = %v, want 42: %s", got, frame)
				}
				// An a2a answer names no sender: the requester's connection
				// says whom it asked.
				sender := spellFor(from, responder(to))
				if !dialects.NamesSender(c.codec) {
					sender = ""
				}
				if reply.Sender.ID != sender {
					t.Errorf("sender %q, want %q", reply.Sender.ID, sender)
				}
			})
		}
	}
}
