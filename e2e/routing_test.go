package e2e

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/tidwall/gjson"
)

// event returns an event of dialect d from its requester to the topic
// ("" broadcasts), of type kind.
func event(d, topic, kind, data string) *canonical.Envelope {
	env := &canonical.Envelope{
		Act:       canonical.ActEvent,
		ID:        "evt-" + d,
		Sender:    canonical.Party{ID: spellFor(d, requester(d))},
		Operation: canonical.Operation{Name: kind},
		Arguments: canonical.JSON(data),
	}
	switch {
	case topic != "":
		env.Receiver = canonical.Address{Kind: canonical.AddressTopic, ID: topic}
	default:
		env.Receiver = canonical.Address{Kind: canonical.AddressBroadcast}
	}
	return env
}

// subscribe subscribes the client to topic the way its dialect asks the
// bridge, and checks the answer.
func (c *client) subscribe(d, topic string) {
	c.t.Helper()
	op := canonical.Operation{Name: "subscribe"}
	if d == "fuse" {
		op.Capability = "events"
	}
	req := request(d, "mcp-bridge", "", `{"topic":"`+topic+`"}`, "sub-"+d)
	req.Operation = op
	c.send(c.encode(req))
	reply := c.decode(c.recv())
	if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), topic) {
		c.t.Fatalf("%s subscribe answered %s %s", d, reply.Act, reply.Result)
	}
}

// TestTopicAndBroadcast: subscribers of a topic get an event published to
// it (collab topic:x, and a fuse event by its type), and only they; a swarm
// notification to no receiver reaches every other agent whose dialect has
// events, and is logged as undeliverable for the others (elizaacl,
// bluelabel and a2a have no event act).
func TestTopicAndBroadcast(t *testing.T) {
	h := start(t, nil)
	clients := map[string]*client{}
	for _, d := range dialectNames {
		clients[d] = h.dial(d, requester(d))
	}
	clients["swarm"].subscribe("swarm", "findings")
	clients["fuse"].subscribe("fuse", "findings")

	// collab publishes to topic:findings: swarm and fuse subscribed.
	clients["collab"].send(clients["collab"].encode(event("collab", "findings", "NewFinding", `{"severity":"HIGH"}`)))
	for _, d := range []string{"swarm", "fuse"} {
		frame := clients[d].recv()
		if env := clients[d].decode(frame); env.Act != canonical.ActEvent || !strings.Contains(string(frame), "HIGH") {
			t.Errorf("%s got %s: %s", d, env.Act, frame)
		}
	}
	// A fuse event of type "findings" (no receiver) goes to the topic's
	// subscribers but not back to fuse.
	clients["collab"].subscribe("collab", "findings")
	clients["fuse"].send(clients["fuse"].encode(&canonical.Envelope{Act: canonical.ActEvent, ID: "fuse-evt",
		Sender: canonical.Party{ID: "fuse-req"}, Operation: canonical.Operation{Name: "findings"}, Arguments: `{"from":"fuse"}`}))
	for _, d := range []string{"swarm", "collab"} {
		if frame := clients[d].recv(); !strings.Contains(string(frame), `"fuse"`) {
			t.Errorf("%s got the wrong event: %s", d, frame)
		}
	}
	// A swarm notification with a null receiver is a broadcast.
	clients["swarm"].send(clients["swarm"].encode(event("swarm", "", "agent_status_changed", `{"status":"busy"}`)))
	for _, d := range []string{"collab", "fuse"} {
		frame := clients[d].recv()
		if env := clients[d].decode(frame); env.Act != canonical.ActEvent || !strings.Contains(string(frame), "busy") {
			t.Errorf("%s got %s: %s", d, env.Act, frame)
		}
	}
	for _, d := range []string{"elizaacl", "bluelabel", "a2a"} {
		// Nothing reached them: their next message answers their own probe.
		c := clients[d]
		c.send(c.encode(request(d, "nobody", "echo", `{}`, "probe-"+d)))
		if env := c.decode(c.recv()); env.Error == nil || !strings.Contains(strings.ToLower(env.Error.Message), "nobody") {
			t.Errorf("%s received something it should not: %+v", d, env)
		}
		if !strings.Contains(h.logs.String(), `"msg":"event not delivered","receiver":"`+requester(d)+`"`) {
			t.Errorf("no log line for the broadcast %s cannot take", d)
		}
	}
}

// TestCapabilityRouting: a request that names no receiver goes to an
// agent that declared its operation, in that agent's dialect.
func TestCapabilityRouting(t *testing.T) {
	h := start(t, nil)
	h.runAgent("elizaacl", responder("elizaacl"), func(o *refagent.Options) { o.Tools = []string{"echo", "debug_code"} })
	h.runAgent("swarm", responder("swarm"), func(o *refagent.Options) { o.Tools = []string{"echo"} })
	if got := h.srv.Bridge().Agents("debug_code"); len(got) != 1 || got[0].ID != "elizaacl-agent" {
		t.Errorf("agents serving debug_code: %+v", got)
	}
	// A fuse request with no target, for capability code, action debug_code.
	c := h.dial("fuse", requester("fuse"))
	ask := func(action string) *canonical.Envelope {
		req := request("fuse", "", action, `{"code_to_debug":"def f(xs):\n    return xs[len(xs)]","error_message":"IndexError: list index out of range","language":"python"}`, "cap-"+action)
		req.Operation.Capability = "code"
		req.Receiver = canonical.Address{}
		frame := c.encode(req)
		if gjson.GetBytes(frame, "target").Exists() {
			t.Fatalf("the request names a target: %s", frame)
		}
		c.send(frame)
		return c.decode(c.recv())
	}
	reply := ask("debug_code")
	if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "fixed_code") {
		t.Fatalf("capability-routed request answered %s: %s %+v", reply.Act, reply.Result, reply.Error)
	}
	if reply.Sender.ID != "elizaacl-agent" {
		t.Errorf("answered by %q, want elizaacl-agent", reply.Sender.ID)
	}
	// No agent serves it: not-found, in fuse.
	if reply := ask("teleport"); reply.Error == nil || !strings.Contains(reply.Error.Message, "teleport") {
		t.Errorf("no server for teleport: %+v", reply)
	}
}

// TestSwarmHandshake: the bridge answers a swarm handshake for the agent
// behind it, with that agent's tools.
func TestSwarmHandshake(t *testing.T) {
	h := start(t, nil)
	h.runAgent("collab", responder("collab"))
	c := h.dial("swarm", requester("swarm"))
	c.send(c.encode(&canonical.Envelope{
		Act: canonical.ActQueryCapabilities, ID: "hs-1",
		Sender:       canonical.Party{ID: "swarm-req"},
		Receiver:     canonical.Address{Kind: canonical.AddressAgent, ID: "collab-agent"},
		Capabilities: &canonical.Capabilities{Tools: []canonical.Tool{{Name: "ping"}}},
	}))
	frame := c.recv()
	if gjson.GetBytes(frame, "message_type").String() != "handshake_response" ||
		gjson.GetBytes(frame, "correlation_id").String() != "hs-1" ||
		!(gjson.GetBytes(frame, "payload.accepted").Bool() || gjson.GetBytes(frame, "accepted").Bool()) ||
		gjson.GetBytes(frame, "sender_id").String() != "collab-agent" {
		t.Errorf("handshake answered with %s", frame)
	}
	if tools := gjson.GetBytes(frame, "payload.tools").String(); !strings.Contains(tools, "echo") {
		t.Errorf("handshake lists tools %s, want collab-agent's", tools)
	}
	// The handshake taught the bridge the swarm agent's own tools.
	if a := h.agentUp("swarm-req", 1); a.Capabilities[0] != "ping" {
		t.Errorf("swarm-req capabilities %v", a.Capabilities)
	}
}
