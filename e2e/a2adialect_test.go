package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/transports/stdio"
	"github.com/tidwall/gjson"
)

// sendMessage is an a2a SendMessage frame with JSON-RPC id id, for skill,
// with args as its data part; receiver, when not empty, is
// message.metadata.receiver.
func sendMessage(id, skill, receiver, args string) []byte {
	meta := `{"skill":` + quoteJSON(skill)
	if receiver != "" {
		meta += `,"receiver":` + quoteJSON(receiver)
	}
	meta += "}"
	return []byte(`{"jsonrpc":"2.0","id":` + quoteJSON(id) + `,"method":"SendMessage","params":{"message":{"messageId":` +
		quoteJSON(id) + `,"role":"ROLE_USER","parts":[{"data":` + args + `}],"metadata":` + meta + `}}}`)
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// TestA2ADialectAgents: agents of the a2a dialect on the bridge's own
// transports, sending A2A JSON-RPC frames. Their tools come from the
// config (A2A frames declare none). A raw a2a client on a WebSocket, its
// sender the connection's agent, reaches an a2a agent on a WebSocket and
// one the bridge runs on stdio by the skill alone (each the one agent that
// offers it), or names its receiver in message.metadata.receiver; a skill
// no agent offers is a JSON-RPC error naming it. An a2a client over HTTP
// gets its answer in the response; a raw a2a agent's answers (a message, a
// status update then a task, a failed task, a JSON-RPC error) reach a swarm
// requester correlated; and a swarm agent calls the a2a agents by id.
func TestA2ADialectAgents(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = []config.Agent{
		{ID: "a2a-ws", Dialect: "a2a", Tools: config.Named("debug_code", "add")},
		{ID: "a2a-stdio", Dialect: "a2a", Reach: "command", Tools: config.Named("sentiment-analysis"),
			Settings:   stdio.Program{Command: []string{binary, "agent", "--stdio", "--dialect", "a2a", "--id", "a2a-stdio"}},
			BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond},
	}
	h := start(t, cfg)
	h.runAgent("a2a", "a2a-ws")
	h.agentUp("a2a-stdio", 1)
	h.runAgent("swarm", responder("swarm"), func(o *refagent.Options) { o.Tools = []string{"echo"} })
	for _, id := range []string{"a2a-ws", "a2a-stdio"} {
		if info := h.agentUp(id, 1); len(info.Capabilities) == 0 {
			t.Errorf("%s has no tools from the config: %+v", id, info)
		}
	}

	c := h.dial("a2a", "a2a-client")
	// answer reads the client's frames up to the final answer to id,
	// skipping the accepts (status updates in TASK_STATE_WORKING).
	answer := func(t *testing.T, id string) []byte {
		for {
			frame := c.recv()
			c.decode(frame)
			if got := gjson.GetBytes(frame, "id").String(); got != id {
				t.Fatalf("an answer to %q, want %q: %s", got, id, frame)
			}
			if !gjson.GetBytes(frame, "result.statusUpdate").Exists() {
				return frame
			}
		}
	}
	const debugArgs = `{"code_to_debug":"def f(xs):\n    return xs[len(xs)]","error_message":"IndexError: list index out of range","language":"python"}`
	cases := []struct {
		name, skill, receiver, args string
		path, want                  string // a member of the answer and what it holds
	}{
		{"by skill, to the WebSocket agent", "debug_code", "", debugArgs,
			"result.task.artifacts.0.parts.0.data.fixed_code", "xs[len(xs) - 1]"},
		{"by skill, to the stdio agent", "sentiment-analysis", "", `{"text":"I really enjoyed using this new feature!"}`,
			"result.task.artifacts.0.parts.0.data.sentiment", "positive"},
		{"named receiver", "add", "a2a-stdio", `{"a":2,"b":40}`,
			"result.task.artifacts.0.parts.0.data.sum", "42"},
		{"named receiver of another dialect", "echo", responder("swarm"), `{"x":1}`,
			"result.task.artifacts.0.parts.0.data.x", "1"},
		{"no agent offers the skill", "teleport", "", `{}`, "error.message", `no connected agent serves "teleport"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			id := "a2a-" + strings.ReplaceAll(tc.name, " ", "-")
			c.send(sendMessage(id, tc.skill, tc.receiver, tc.args))
			frame := answer(t, id)
			if got := gjson.GetBytes(frame, tc.path).String(); !strings.Contains(got, tc.want) {
				t.Errorf("%s = %q, want %q in it:\n%s", tc.path, got, tc.want, frame)
			}
			if strings.HasPrefix(tc.path, "error.") {
				if code := gjson.GetBytes(frame, "error.code").Int(); code != -32601 {
					t.Errorf("error code %d, want -32601 (not found)", code)
				}
			} else if state := gjson.GetBytes(frame, "result.task.status.state").String(); state != "TASK_STATE_COMPLETED" {
				t.Errorf("state %s, want TASK_STATE_COMPLETED", state)
			}
		})
	}

	t.Run("over HTTP", func(t *testing.T) {
		resp, got := post(t, h.httpURL()+"/v1/a2a/messages?agent=a2a-http", sendMessage("http-1", "add", "", `{"a":1,"b":2}`), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s: %s", resp.Status, got)
		}
		if id, sum := gjson.GetBytes(got, "id").String(), gjson.GetBytes(got, "result.task.artifacts.0.parts.0.data.sum").Int(); id != "http-1" || sum != 3 {
			t.Errorf("id %q sum %d: %s", id, sum, got)
		}
	})

	// A raw a2a agent answers a swarm request in each of A2A's shapes; the
	// JSON-RPC id of its answer is the request's, and the swarm requester
	// gets the answer correlated, in swarm.
	t.Run("a raw a2a agent's answers", func(t *testing.T) {
		agent := h.dial("a2a", "a2a-raw")
		agent.t = t
		s := h.dial("swarm", "swarm-asker")
		s.t = t
		for _, tc := range []struct {
			name    string
			answers []string // the agent's frames, %ID% the request's id
			act     canonical.Act
			want    string // in the result, or the error's message
		}{
			{"a message", []string{`{"jsonrpc":"2.0","id":"%ID%","result":{"message":{"messageId":"m-1","role":"ROLE_AGENT","parts":[{"data":{"sum":3}}]}}}`},
				canonical.ActResult, `"sum":3`},
			{"a status update, then a completed task", []string{
				`{"jsonrpc":"2.0","id":"%ID%","result":{"statusUpdate":{"taskId":"t-2","contextId":"c-2","status":{"state":"TASK_STATE_WORKING"}}}}`,
				`{"jsonrpc":"2.0","id":"%ID%","result":{"task":{"id":"t-2","contextId":"c-2","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"data":{"sum":4}}]}]}}}`},
				canonical.ActResult, `"sum":4`},
			{"a failed task", []string{`{"jsonrpc":"2.0","id":"%ID%","result":{"task":{"id":"t-3","contextId":"c-3","status":{"state":"TASK_STATE_FAILED","message":{"messageId":"m-3","role":"ROLE_AGENT","parts":[{"text":"the adder is broken"}]}}}}}`},
				canonical.ActFailure, "the adder is broken"},
			{"a JSON-RPC error", []string{`{"jsonrpc":"2.0","id":"%ID%","error":{"code":-32603,"message":"out of numbers"}}`},
				canonical.ActFailure, "out of numbers"},
		} {
			id := "raw-" + strings.ReplaceAll(tc.name, " ", "-")
			ask := request("swarm", "a2a-raw", "add", `{"a":1,"b":2}`, id)
			ask.Sender.ID = "swarm-asker"
			s.send(s.encode(ask))
			req := agent.recv()
			if m, skill, to := gjson.GetBytes(req, "method").String(), gjson.GetBytes(req, "params.message.metadata.skill").String(),
				gjson.GetBytes(req, "params.message.metadata.receiver").String(); m != "SendMessage" || skill != "add" || to != "a2a-raw" {
				t.Fatalf("%s: the agent got %s", tc.name, req)
			}
			rid := gjson.GetBytes(req, "id").String()
			for _, a := range tc.answers {
				agent.send([]byte(strings.ReplaceAll(a, "%ID%", rid)))
			}
			reply := s.decode(s.recv())
			got := string(reply.Result)
			if reply.Error != nil {
				got = reply.Error.Message
			}
			if reply.Act != tc.act || reply.InReplyTo != id || !strings.Contains(got, tc.want) {
				t.Errorf("%s: swarm got %s in reply to %q: %s, want %s with %s", tc.name, reply.Act, reply.InReplyTo, got, tc.act, tc.want)
			}
		}
	})

	t.Run("from swarm", func(t *testing.T) {
		s := h.dial("swarm", requester("swarm"))
		s.t = t
		for _, to := range []string{"a2a-ws", "a2a-stdio"} {
			s.send(s.encode(request("swarm", to, "add", `{"a":20,"b":22}`, "sw-"+to)))
			reply := s.decode(s.recv())
			if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "42") || reply.InReplyTo != "sw-"+to {
				t.Errorf("%s answered %s %s %+v (in reply to %q)", to, reply.Act, reply.Result, reply.Error, reply.InReplyTo)
			}
			if reply.Sender.ID != to {
				t.Errorf("the answer of %s is from %q", to, reply.Sender.ID)
			}
		}
	})
}

// TestA2ADialectIdentity: an a2a frame names no sender; on a WebSocket
// that proved its agent with a JWT, and no ?agent=, it speaks for the
// token's subject: the agent it asks sees that sender, and the answer comes
// back on the connection.
func TestA2ADialectIdentity(t *testing.T) {
	h := start(t, jwtConfig(t, testpki.PublicPEM(t, &testpki.ECKey(t).PublicKey), ""))
	receiver := h.dial("swarm", "swarm-agent")
	token := testpki.HS256(t, jwtSecret, claims("planner", nil))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, h.wsURL()+"/ws/a2a", &websocket.DialOptions{HTTPClient: h.httpClient(),
		HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, sendMessage("jwt-1", "add", "swarm-agent", `{"a":1,"b":1}`)); err != nil {
		t.Fatal(err)
	}
	got := receiver.decode(receiver.recv())
	if got.Sender.ID != "planner" || got.Operation.Name != "add" {
		t.Fatalf("the swarm agent got %s from %q for %q", got.Act, got.Sender.ID, got.Operation.Name)
	}
	receiver.send(receiver.encode(&canonical.Envelope{Act: canonical.ActResult, ID: "r-1", InReplyTo: got.ID,
		Sender: canonical.Party{ID: "swarm-agent"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "planner"},
		Outcome: canonical.OutcomeSuccess, Result: `{"sum":2}`}))
	for {
		_, frame, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gjson.GetBytes(frame, "result.statusUpdate").Exists() {
			continue
		}
		if gjson.GetBytes(frame, "id").String() != "jwt-1" || gjson.GetBytes(frame, "result.task.artifacts.0.parts.0.data.sum").Int() != 2 {
			t.Errorf("the answer: %s", frame)
		}
		break
	}
	if a, ok := h.srv.Bridge().Agent("planner"); !ok || !a.Connected {
		t.Errorf("the connection is not planner's: %+v", a)
	}
}

// TestA2ADialectCluster: an a2a agent held by another instance answers two
// requests with tasks the bridge cannot tell apart by their identity (the
// same task id, no message id: an agent that reuses a task, or names none
// and gets the same stand-in); each answer reaches its requester, neither
// taken for a duplicate of the other on the instance that relays them.
func TestA2ADialectCluster(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b")
	agent := hs["b"].dial("a2a", "a2a-far")
	hs["a"].awaitAgent("a2a-far", "b", bridge.StatusReady)
	s := hs["a"].dial("swarm", requester("swarm"))
	for i := range 3 {
		id := fmt.Sprintf("far-%d", i)
		s.send(s.encode(request("swarm", "a2a-far", "add", `{"a":1,"b":2}`, id)))
		req := agent.recv()
		rid := gjson.GetBytes(req, "id").String()
		agent.send([]byte(`{"jsonrpc":"2.0","id":` + quoteJSON(rid) + `,"result":{"task":{"id":"t-same","contextId":"c-same",` +
			`"status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"data":{"sum":3}}]}]}}}`))
		reply := answerOf(s)
		if reply.Act != canonical.ActResult || reply.InReplyTo != id || !strings.Contains(string(reply.Result), `"sum":3`) {
			t.Fatalf("request %d: %s in reply to %q: %s %+v", i, reply.Act, reply.InReplyTo, reply.Result, reply.Error)
		}
	}
}
