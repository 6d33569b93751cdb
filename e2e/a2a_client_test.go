package e2e

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	a2aagent "github.com/mcp-bridge/mcp-bridge/transports/a2a"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// planner is an A2A agent on loopback, the SDK's server (a2asrv), whose
// executor answers by the skill a message names (metadata.skill):
//   - echo: a completed task whose artifact's data part is the arguments;
//   - text: a message of two text parts;
//   - fail, reject, canceled: a failed, rejected, canceled task;
//   - ask: asks for a city (input required), then answers it on the same task;
//   - later: two working updates a while apart, then the arguments;
//   - hang: working until its task is cancelled.
type planner struct {
	srv       *httptest.Server
	working   chan a2a.TaskID
	cancelled chan a2a.TaskID
	auth      chan string // the Authorization header of each call
	stops     sync.Map    // a2a.TaskID -> chan struct{}
}

var plannerSkills = []string{"echo", "text", "fail", "reject", "canceled", "ask", "later", "hang"}

func startPlanner(t *testing.T, streaming bool) *planner {
	p := &planner{working: make(chan a2a.TaskID, 8), cancelled: make(chan a2a.TaskID, 8), auth: make(chan string, 256)}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	caps := a2a.AgentCapabilities{Streaming: streaming}
	var skills []a2a.AgentSkill
	for _, s := range plannerSkills {
		skills = append(skills, a2a.AgentSkill{ID: s, Name: strings.ToUpper(s[:1]) + s[1:], Description: "The skill " + s + "."})
	}
	card := &a2a.AgentCard{Name: "planner", Version: "1", Description: "Plans.", Capabilities: caps, Skills: skills,
		DefaultInputModes: []string{"application/json"}, DefaultOutputModes: []string{"application/json"},
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(p.srv.URL+"/rpc", a2a.TransportProtocolJSONRPC)}}
	h := a2asrv.NewHandler(p, a2asrv.WithCapabilityChecks(&caps), a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	rpc := a2asrv.NewJSONRPCHandler(h)
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case p.auth <- r.Header.Get("Authorization"):
		default:
		}
		rpc.ServeHTTP(w, r)
	}))
	return p
}

func (p *planner) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		skill, _ := ec.Message.Metadata["skill"].(string)
		var args any
		for _, part := range ec.Message.Parts {
			if d, ok := part.Content.(a2a.Data); ok {
				args = d.Value
				break
			}
		}
		status := func(s a2a.TaskState, parts ...*a2a.Part) bool {
			var m *a2a.Message
			if len(parts) > 0 {
				m = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
			}
			return yield(a2a.NewStatusUpdateEvent(ec, s, m), nil)
		}
		result := func(v any) {
			if yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(v)), nil) {
				status(a2a.TaskStateCompleted)
			}
		}
		if skill == "text" {
			yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("hello"), a2a.NewTextPart("world")), nil)
			return
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch skill {
		case "echo":
			result(args)
		case "fail":
			status(a2a.TaskStateFailed, a2a.NewTextPart("boom"))
		case "reject":
			status(a2a.TaskStateRejected, a2a.NewTextPart("not for me"))
		case "canceled":
			status(a2a.TaskStateCanceled)
		case "ask":
			in, _ := args.(map[string]any)
			if in["city"] == nil {
				status(a2a.TaskStateInputRequired, a2a.NewTextPart("which city?"),
					a2a.NewDataPart([]any{map[string]any{"id": "city", "type": "string", "description": "the city"}}))
				return
			}
			result(map[string]any{"task": string(ec.TaskID), "city": in["city"]})
		case "later":
			for _, step := range []string{"step 1", "step 2"} {
				if !status(a2a.TaskStateWorking, a2a.NewTextPart(step)) {
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
			result(args)
		case "hang":
			stop := make(chan struct{})
			p.stops.Store(ec.TaskID, stop)
			if !status(a2a.TaskStateWorking, a2a.NewTextPart("working")) {
				return
			}
			p.working <- ec.TaskID
			select {
			case <-stop:
			case <-ctx.Done():
			}
		default:
			status(a2a.TaskStateRejected, a2a.NewTextPart("no skill "+skill))
		}
	}
}

func (p *planner) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if stop, ok := p.stops.LoadAndDelete(ec.TaskID); ok {
			close(stop.(chan struct{}))
		}
		p.cancelled <- ec.TaskID
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// withPlanner returns a bridge whose agent planner is the A2A agent p,
// reached with the header Authorization, and waits until it is READY.
func withPlanner(t *testing.T, p *planner) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.Agents = append(cfg.Agents, config.Agent{ID: "planner", Dialect: a2aagent.Dialect, Reach: "a2a",
		Settings:   a2aagent.Card{URL: p.srv.URL + "/.well-known/agent-card.json", Headers: map[string]string{"Authorization": "Bearer pl4nner"}},
		BackoffMin: 10 * time.Millisecond, BackoffMax: time.Second})
	h := start(t, cfg)
	h.agentUp("planner", len(plannerSkills))
	return h
}

// TestA2AClientDialects: an agent of each dialect calls the skills of an
// A2A agent behind the bridge, and gets its result (a data part, text),
// failures (failed, rejected, canceled) in its own dialect; a bluelabel
// agent answers the agent's request for input, which continues the same
// A2A task.
func TestA2AClientDialects(t *testing.T) {
	p := startPlanner(t, false)
	h := withPlanner(t, p)
	for _, d := range dialectNames {
		t.Run(d, func(t *testing.T) {
			c := h.dial(d, requester(d))
			c.t = t
			t.Cleanup(func() {
				if t.Failed() {
					t.Log(h.logs.String())
				}
			})
			id := "a2a-" + d
			for _, tc := range []struct{ skill, args, want string }{
				{"echo", `{"n":42}`, `{"n":42}`},
				{"text", `{}`, `{"text":"hello\nworld"}`},
			} {
				c.send(c.encode(request(d, "planner", tc.skill, tc.args, id+"-"+tc.skill)))
				reply := answerOf(c)
				if reply.Act != canonical.ActResult || !strings.Contains(compact(reply.Result), tc.want) {
					t.Errorf("%s: %s %s %+v", tc.skill, reply.Act, reply.Result, reply.Error)
				}
				if got, want := correlationOf(d, reply), spellFor(d, id+"-"+tc.skill); got != want {
					t.Errorf("%s answers %q, want %q", tc.skill, got, want)
				}
			}
			for _, tc := range []struct{ skill, want string }{{"fail", "boom"}, {"reject", "not for me"}, {"canceled", "canceled"}} {
				c.send(c.encode(request(d, "planner", tc.skill, `{}`, id+"-"+tc.skill)))
				reply := answerOf(c)
				if !reply.Act.IsError() || reply.Error == nil || !strings.Contains(reply.Error.Message, tc.want) {
					t.Errorf("%s: %s %+v", tc.skill, reply.Act, reply.Error)
				}
			}
			// A task working a while: elizaacl hears its first update as
			// TASK_ACCEPT, then its result.
			c.send(c.encode(request(d, "planner", "later", `{"k":"v"}`, id+"-later")))
			accepted := false
			for {
				env := c.decode(c.recv())
				if env.Act == canonical.ActAccept {
					accepted = true
					continue
				}
				if env.Act == canonical.ActEvent {
					continue // progress, where the dialect has events about a request
				}
				if env.Act != canonical.ActResult || !strings.Contains(compact(env.Result), `{"k":"v"}`) {
					t.Errorf("later: %s %s %+v", env.Act, env.Result, env.Error)
				}
				break
			}
			if d == "elizaacl" && !accepted {
				t.Error("later: no TASK_ACCEPT")
			}
			if d != "bluelabel" {
				return
			}
			c.send(c.encode(request(d, "planner", "ask", `{}`, id+"-ask")))
			reply := answerOf(c)
			if reply.Act != canonical.ActNeedsInput || !strings.Contains(string(reply.Inputs), `"city"`) {
				t.Fatalf("ask: %s %s %+v", reply.Act, reply.Inputs, reply.Error)
			}
			// The answer: the same assignment, same task_id, with the
			// input; its retry_count tells it from a duplicate of the
			// assignment (the bridge's dedupe knows a bluelabel message by
			// its task_id and retry_count).
			answer := request(d, "planner", "ask", `{"city":"Lyon"}`, id+"-ask")
			answer.Extra = append(answer.Extra, canonical.Field{Dialect: "bluelabel", Key: "retry_count", Value: "1"})
			c.send(c.encode(answer))
			reply = answerOf(c)
			if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), `"city":"Lyon"`) {
				t.Errorf("ask answered: %s %s %+v", reply.Act, reply.Result, reply.Error)
			}
		})
	}
	if got := <-p.auth; got != "Bearer pl4nner" {
		t.Errorf("Authorization %q", got)
	}
}

func compact(j canonical.JSON) string {
	var v any
	if err := json.Unmarshal([]byte(j), &v); err != nil {
		return string(j)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestA2AClientThroughMCP: an MCP client of the bridge (the go-sdk) sees
// the A2A agent's skills as tools, calls them, sees a working task's
// updates as progress (streaming, and GetTask polling), answers a request
// for input by elicitation, and a call it cancels cancels the A2A task.
func TestA2AClientThroughMCP(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		name := "polling"
		if streaming {
			name = "streaming"
		}
		t.Run(name, func(t *testing.T) {
			p := startPlanner(t, streaming)
			h := withPlanner(t, p)
			c := h.mcpConnect(t, "2025-11-25", &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"city": "Lyon"}}, nil
				},
			}, nil)
			tools := c.tools()
			if tl := tools["planner__echo"]; tl == nil || tl.Description != "The skill echo." || tl.Title != "Echo" {
				t.Fatalf("listed %v", keys(tools))
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if res := c.call(ctx, "planner__echo", map[string]any{"n": 42}, false); res.IsError || !strings.Contains(text(res), `"n":42`) {
				t.Errorf("echo: %s", text(res))
			}
			if res := c.call(ctx, "planner__fail", map[string]any{}, false); !res.IsError || !strings.Contains(text(res), "boom") {
				t.Errorf("fail: %s", text(res))
			}
			if res := c.call(ctx, "planner__ask", map[string]any{}, false); res.IsError || !strings.Contains(text(res), `"city":"Lyon"`) {
				t.Errorf("ask: %s", text(res))
			}
			if res := c.call(ctx, "planner__later", map[string]any{"k": "v"}, true); res.IsError || !strings.Contains(text(res), `"k":"v"`) {
				t.Errorf("later: %s", text(res))
			}
			deadline := time.Now().Add(wait)
			for {
				c.mu.Lock()
				got := strings.Join(c.prog, "|")
				c.mu.Unlock()
				if strings.Contains(got, "accepted by agent planner") && strings.Contains(got, "step 2") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("progress %q", got)
				}
				time.Sleep(5 * time.Millisecond)
			}
			cctx, ccancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := c.s.CallTool(cctx, &mcp.CallToolParams{Name: "planner__hang", Arguments: map[string]any{}})
				errc <- err
			}()
			id := <-p.working
			ccancel()
			if err := <-errc; err == nil {
				t.Error("the cancelled call returned no error")
			}
			select {
			case got := <-p.cancelled:
				if got != id {
					t.Errorf("cancelled %s, want %s", got, id)
				}
			case <-time.After(wait):
				t.Fatal("the A2A task was not cancelled")
			}
		})
	}
}
