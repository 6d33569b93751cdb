package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestTimeout: a request whose answer does not come in time is answered
// with a timeout error in the requester's dialect; its own ttl/timeout
// field wins over the default.
func TestTimeout(t *testing.T) {
	cfg := config.Default()
	cfg.RequestTimeout = 150 * time.Millisecond
	h := start(t, cfg)
	h.runAgent("fuse", responder("fuse"))
	for _, d := range []string{"swarm", "collab"} {
		t.Run(d, func(t *testing.T) {
			c := h.dial(d, requester(d))
			c.t = t
			c.send(c.encode(request(d, responder("fuse"), "sleep", `{"ms":3000}`, "slow-"+d)))
			reply := c.decode(c.recv())
			if reply.Error == nil || reply.Error.Code != canonical.ErrTimeout {
				t.Fatalf("got %s %+v, want a timeout error", reply.Act, reply.Error)
			}
			if reply.InReplyTo != "slow-"+d {
				t.Errorf("timeout answers %q, want slow-%s", reply.InReplyTo, d)
			}
			// The message's own timeout: swarm's payload.timeout is
			// seconds, collab's ttl milliseconds; 1 s outlasts the 150 ms
			// default, so a 400 ms sleep is answered.
			req := request(d, responder("fuse"), "sleep", `{"ms":400}`, "patient-"+d)
			req.TTL = canonical.Dur(time.Second)
			c.send(c.encode(req))
			if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
				t.Errorf("a request with its own longer timeout got %s %+v", reply.Act, reply.Error)
			}
		})
	}
}

// TestAgentDisconnects: an agent that goes away with a request in hand
// leaves its requester an unavailable error, and is listed as stopped.
func TestAgentDisconnects(t *testing.T) {
	h := start(t, nil)
	victim := h.dial("swarm", "victim")
	c := h.dial("elizaacl", requester("elizaacl"))
	c.send(c.encode(request("elizaacl", "victim", "echo", `{}`, "doomed")))
	if got := victim.recv(); !strings.Contains(string(got), `"echo"`) {
		t.Fatalf("victim got %s", got)
	}
	victim.c.Close(websocket.StatusGoingAway, "bye")
	for {
		reply := c.decode(c.recv())
		if reply.Act == canonical.ActAccept {
			continue
		}
		if reply.Error == nil || reply.Error.Code != canonical.ErrUnavailable || reply.InReplyTo != "doomed" {
			t.Fatalf("got %s %+v in reply to %q, want unavailable for doomed", reply.Act, reply.Error, reply.InReplyTo)
		}
		break
	}
	for _, a := range h.srv.Bridge().Agents("") {
		if a.ID == "victim" && a.Status != "STOPPED" {
			t.Errorf("victim is %s", a.Status)
		}
	}
	// A new request to it: unavailable at once.
	c.send(c.encode(request("elizaacl", "victim", "echo", `{}`, "late")))
	if reply := c.decode(c.recv()); reply.Error == nil || reply.Error.Code != canonical.ErrUnavailable {
		t.Errorf("request to a gone agent: %+v", reply.Error)
	}
}

// TestIdentity: a connection speaks for the agent it introduced; sending as
// another is refused in its dialect, and a configured token is required.
func TestIdentity(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = []config.Agent{{ID: "guarded", Dialect: "swarm", Token: "s3cret"}}
	h := start(t, cfg)
	c := h.dial("swarm", requester("swarm"))
	req := request("swarm", "guarded", "echo", `{}`, "spoof")
	req.Sender.ID = "someone-else"
	c.send(c.encode(req))
	reply := c.decode(c.recv())
	if reply.Error == nil || reply.Error.Code != canonical.ErrUnauthorized || !strings.Contains(reply.Error.Message, "someone-else") {
		t.Errorf("spoofed sender: %s %+v", reply.Act, reply.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for _, tc := range []struct{ token, want string }{{"", "needs its token"}, {"wrong", "needs its token"}} {
		conn, _, err := websocket.Dial(ctx, h.wsURL()+"/ws/swarm?agent=guarded&token="+tc.token, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = conn.Read(ctx)
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("token %q: %v", tc.token, err)
		}
	}
	conn, _, err := websocket.Dial(ctx, h.wsURL()+"/ws/swarm?agent=guarded&token=s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	h.agentUp("guarded", 0)
}
