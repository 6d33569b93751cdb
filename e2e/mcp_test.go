package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP face, driven by the official Go SDK as an independent client, in
// the two protocol eras it speaks: 2025-11-25 (sessions, server-initiated
// requests) and 2026-07-28 (stateless core, multi round-trip requests).
var protocolVersions = []string{"2025-11-25", "2026-07-28"}

// mcpClient is an MCP client session of the go-sdk on the bridge's /mcp.
type mcpClient struct {
	t       *testing.T
	s       *mcp.ClientSession
	changed chan struct{} // a tools/list_changed came
	mu      sync.Mutex
	prog    []string // progress messages, in order
}

// mcpConnect connects a go-sdk client speaking version to h's /mcp; opts
// may set handlers (elicitation) and HTTP headers.
func (h *harness) mcpConnect(t *testing.T, version string, opts *mcp.ClientOptions, header http.Header) *mcpClient {
	t.Helper()
	c := &mcpClient{t: t, changed: make(chan struct{}, 64)}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.prog = append(c.prog, r.Params.Message)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	transport := &mcp.StreamableClientTransport{Endpoint: h.httpURL() + "/mcp"}
	if header != nil {
		transport.HTTPClient = &http.Client{Transport: headerTransport{header}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	s, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { s.Close() })
	c.s = s
	return c
}

// headerTransport adds headers to every request.
type headerTransport struct{ h http.Header }

func (ht headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range ht.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// tools returns the names of the tools listed, each with its description.
func (c *mcpClient) tools() map[string]*mcp.Tool {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := c.s.ListTools(ctx, nil)
	if err != nil {
		c.t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// call calls a tool and returns its result.
func (c *mcpClient) call(ctx context.Context, name string, args any, progress bool) *mcp.CallToolResult {
	c.t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if progress {
		p.SetProgressToken("p-1")
	}
	res, err := c.s.CallTool(ctx, p)
	if err != nil {
		c.t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// awaitChanged waits for a tools/list_changed.
func (c *mcpClient) awaitChanged(what string) {
	c.t.Helper()
	select {
	case <-c.changed:
	case <-time.After(wait):
		c.t.Fatalf("no tools/list_changed after %s", what)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// mcpHarness starts a bridge with one reference agent of each dialect
// (those of bluelabel and a2a, which cannot declare, get their tools from
// the config).
func mcpHarness(t *testing.T) *harness {
	cfg := config.Default()
	for _, d := range dialectNames {
		if !declaresTools(d) {
			cfg.Agents = append(cfg.Agents, config.Agent{ID: responder(d), Dialect: d, Tools: config.Named(refagent.ToolNames()...)})
		}
	}
	h := start(t, cfg)
	for _, d := range dialectNames {
		h.runAgent(d, responder(d))
	}
	return h
}

// TestMCPTools: every reference agent's tools are listed, named
// <agent>__<tool>, with a description and an input schema, and a call to
// each dialect's echo and add comes back as the result, structured where it
// is an object.
func TestMCPTools(t *testing.T) {
	h := mcpHarness(t)
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			c := h.mcpConnect(t, v, nil, nil)
			tools := c.tools()
			for _, d := range dialectNames {
				for _, tool := range refagent.ToolNames() {
					name := responder(d) + "__" + tool
					got := tools[name]
					if got == nil {
						t.Fatalf("%s is not listed; listed: %v", name, keys(tools))
					}
					if got.Description == "" || got.InputSchema == nil {
						t.Errorf("%s: description %q, input schema %v", name, got.Description, got.InputSchema)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				res := c.call(ctx, responder(d)+"__add", map[string]any{"a": 2, "b": 3}, false)
				cancel()
				if res.IsError || !strings.Contains(text(res), `"sum":5`) {
					t.Errorf("%s add: isError %v, %q", d, res.IsError, text(res))
				}
				if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"sum":5`) {
					t.Errorf("%s add: structured content %s", d, sc)
				}
			}
		})
	}
}

// TestMCPErrors: a failing tool and a vanished agent are isError results
// that say what went wrong and which agent; an unknown tool is a JSON-RPC
// error.
func TestMCPErrors(t *testing.T) {
	h := start(t, nil)
	stop := h.runStoppable("swarm", "swarm-agent")
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			c := h.mcpConnect(t, v, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res := c.call(ctx, "swarm-agent__fail", map[string]any{"message": "on purpose"}, false)
			if !res.IsError || !strings.Contains(text(res), "swarm-agent") || !strings.Contains(text(res), "on purpose") {
				t.Errorf("failing tool: isError %v, %q", res.IsError, text(res))
			}
			if _, err := c.s.CallTool(ctx, &mcp.CallToolParams{Name: "nobody__nothing"}); err == nil {
				t.Error("an unknown tool was not a JSON-RPC error")
			}
		})
	}
	// The agent goes away: its tools leave the list, and a call to one is
	// an isError result naming it.
	c := h.mcpConnect(t, "2025-11-25", nil, nil)
	stop()
	h.awaitStatus("swarm-agent", "STOPPED")
	c.awaitChanged("the agent left")
	if tools := c.tools(); tools["swarm-agent__echo"] != nil {
		t.Errorf("a gone agent's tool is still listed: %v", keys(tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res := c.call(ctx, "swarm-agent__echo", map[string]any{}, false)
	if !res.IsError || !strings.Contains(text(res), "swarm-agent") || !strings.Contains(text(res), "not connected") {
		t.Errorf("vanished agent: isError %v, %q", res.IsError, text(res))
	}
}

// runStoppable connects a reference agent of dialect d as id, and returns
// what disconnects it.
func (h *harness) runStoppable(d, id string) (stop func()) {
	h.t.Helper()
	a, err := refagent.New(refagent.Options{ID: id, Dialect: d})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, h.wsURL(), "")
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	h.t.Cleanup(stop)
	h.agentUp(id, 1)
	return stop
}

// TestMCPListChanged: list_changed reaches every session when an agent
// connects and when it leaves; tools/list reflects it at once.
func TestMCPListChanged(t *testing.T) {
	h := start(t, nil)
	var clients []*mcpClient
	for _, v := range protocolVersions {
		clients = append(clients, h.mcpConnect(t, v, nil, nil))
	}
	h.runAgent("collab", "newcomer")
	for _, c := range clients {
		c.awaitChanged("an agent connected")
		if tools := c.tools(); tools["newcomer__echo"] == nil {
			t.Errorf("the newcomer's tools are not listed: %v", keys(tools))
		}
	}
}

// TestMCPProgressAndCancel: a call with a progress token hears of its
// delivery; a cancelled call frees what the bridge held for it.
func TestMCPProgressAndCancel(t *testing.T) {
	h := start(t, nil)
	h.runAgent("elizaacl", "elizaacl-agent")
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			c := h.mcpConnect(t, v, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			// A short sleep, not an echo: mcp-go drops a notification still
			// queued when the call's result is written, and on a busy
			// machine the delivery's would race the echo's result.
			res := c.call(ctx, "elizaacl-agent__sleep", map[string]any{"ms": 100}, true)
			if res.IsError {
				t.Fatalf("sleep: %s", text(res))
			}
			deadline := time.Now().Add(wait)
			for {
				c.mu.Lock()
				got := strings.Join(c.prog, "|")
				c.mu.Unlock()
				if strings.Contains(got, "delivered to agent elizaacl-agent") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("progress %q, want the delivery", got)
				}
				time.Sleep(5 * time.Millisecond)
			}
			// Cancellation: a sleep cancelled by the client's context.
			cctx, ccancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := c.s.CallTool(cctx, &mcp.CallToolParams{Name: "elizaacl-agent__sleep", Arguments: map[string]any{"ms": 60000}})
				errc <- err
			}()
			h.awaitPending(1)
			ccancel()
			if err := <-errc; err == nil {
				t.Error("the cancelled call returned no error")
			}
			h.awaitPending(0)
			// The session still works.
			if res := c.call(ctx, "elizaacl-agent__echo", map[string]any{}, false); res.IsError {
				t.Errorf("after the cancellation: %s", text(res))
			}
		})
	}
}

// awaitPending waits until the bridge holds n open requests.
func (h *harness) awaitPending(n int) {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for h.srv.Bridge().Pending() != n {
		if time.Now().After(deadline) {
			h.t.Fatalf("%d requests open, want %d", h.srv.Bridge().Pending(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// deployer is a raw bluelabel agent that asks for inputs before it
// deploys: needs_input until the arguments carry every input, then the
// result. It serves until its connection closes.
func deployer(h *harness, inputs string) {
	c := h.dial("bluelabel", "DEPLOYER")
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, frame, err := c.c.Read(ctx)
			cancel()
			if err != nil {
				return
			}
			req := c.decode(frame)
			reply := &canonical.Envelope{TaskID: req.TaskID, Sender: canonical.Party{ID: "DEPLOYER"},
				Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID}}
			if !strings.Contains(string(req.Arguments), `"region"`) {
				reply.Act, reply.Inputs = canonical.ActNeedsInput, canonical.JSON(inputs)
				reply.Context = `"Configuring the deployment"`
			} else {
				reply.Act, reply.Outcome = canonical.ActResult, canonical.OutcomeSuccess
				reply.Result = canonical.JSON(`{"deployed":` + string(req.Arguments) + `}`)
			}
			out, err := c.codec.Encode(nil, reply, &dialects.EncodeContext{})
			if err != nil {
				h.t.Errorf("deployer: %v", err)
				return
			}
			wctx, wcancel := context.WithTimeout(context.Background(), wait)
			err = c.c.Write(wctx, websocket.MessageText, out)
			wcancel()
			if err != nil {
				return
			}
		}
	}()
}

// TestMCPElicitation: a bluelabel agent's needs_input becomes an
// elicitation to a client that declared it; the answer goes back as the
// same task and the call ends with the result. A client that cannot be
// asked gets an isError result listing the inputs; a sensitive input is
// never asked for in a form.
func TestMCPElicitation(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = append(cfg.Agents, config.Agent{ID: "DEPLOYER", Dialect: "bluelabel", Tools: config.Named("deploy")})
	h := start(t, cfg)
	deployer(h, `[{"id":"region","type":"enum","options":["eu","us"],"description":"where to deploy"}]`)
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			var asked []string
			var mu sync.Mutex
			c := h.mcpConnect(t, v, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					schema, _ := json.Marshal(r.Params.RequestedSchema)
					asked = append(asked, r.Params.Message+" "+string(schema))
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"region": "eu"}}, nil
				},
			}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res := c.call(ctx, "DEPLOYER__deploy", map[string]any{"service": "web"}, false)
			if res.IsError || !strings.Contains(text(res), `"region":"eu"`) || !strings.Contains(text(res), `"service":"web"`) {
				t.Fatalf("isError %v: %s", res.IsError, text(res))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || !strings.Contains(asked[0], "DEPLOYER") || !strings.Contains(asked[0], `"enum":["eu","us"]`) {
				t.Errorf("asked %q", asked)
			}
		})
	}
	c := h.mcpConnect(t, "2025-11-25", nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res := c.call(ctx, "DEPLOYER__deploy", map[string]any{"service": "web"}, false)
	if !res.IsError || !strings.Contains(text(res), "region (enum): where to deploy") {
		t.Errorf("without elicitation: isError %v: %s", res.IsError, text(res))
	}
	h.awaitPending(0)
}

// TestMCPSensitiveInput: an input marked sensitive is not asked for.
func TestMCPSensitiveInput(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = append(cfg.Agents, config.Agent{ID: "DEPLOYER", Dialect: "bluelabel", Tools: config.Named("deploy")})
	h := start(t, cfg)
	deployer(h, `[{"id":"api_key","type":"string","description":"the key","sensitive":true}]`)
	c := h.mcpConnect(t, "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a sensitive input was asked for")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res := c.call(ctx, "DEPLOYER__deploy", map[string]any{}, false)
	if !res.IsError || !strings.Contains(text(res), "sensitive input (api_key)") {
		t.Errorf("isError %v: %s", res.IsError, text(res))
	}
}

// TestMCPTokens: on a bridge with MCP tokens, a request without one or
// with a wrong one is refused 401 with a challenge; a token limited to one
// agent sees and calls only that agent's tools.
func TestMCPTokens(t *testing.T) {
	cfg := config.Default()
	cfg.MCP.Tokens = []config.MCPToken{{Token: "all-of-it"}, {Token: "just-swarm", Agents: []string{"swarm-agent"}}}
	h := start(t, cfg)
	h.runAgent("swarm", "swarm-agent")
	h.runAgent("collab", "collab-agent")
	for _, tc := range []struct{ name, header string }{{"none", ""}, {"wrong", "Bearer nope"}, {"not bearer", "Basic YTpi"}} {
		req, _ := http.NewRequest(http.MethodPost, h.httpURL()+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %q, want 401 with a Bearer challenge", tc.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			all := h.mcpConnect(t, v, nil, http.Header{"Authorization": {"Bearer all-of-it"}})
			if tools := all.tools(); tools["swarm-agent__echo"] == nil || tools["collab-agent__echo"] == nil {
				t.Errorf("the full token sees %v", keys(tools))
			}
			one := h.mcpConnect(t, v, nil, http.Header{"Authorization": {"Bearer just-swarm"}})
			tools := one.tools()
			if tools["swarm-agent__echo"] == nil || tools["collab-agent__echo"] != nil {
				t.Errorf("the limited token sees %v", keys(tools))
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if _, err := one.s.CallTool(ctx, &mcp.CallToolParams{Name: "collab-agent__echo", Arguments: map[string]any{}}); err == nil {
				t.Error("the limited token called a hidden tool")
			}
			if res := one.call(ctx, "swarm-agent__echo", map[string]any{"a": 1}, false); res.IsError {
				t.Errorf("the limited token's own tool: %s", text(res))
			}
		})
	}
}

// TestMCPCoalesce: a burst of directory changes within one coalesce
// interval sends at most two list_changed notifications (the first change
// at once, the rest together at the end of the interval).
func TestMCPCoalesce(t *testing.T) {
	h := start(t, nil)
	c := h.mcpConnect(t, "2025-11-25", nil, nil)
	before := h.metric("mcp_tools_list_changed_total")
	// Ten declarations in a burst (an agent declaring again, as fast as it
	// can): well within one interval of 250 ms.
	raw := h.dial("swarm", "burst")
	for i := range 10 {
		raw.send(raw.encode(&canonical.Envelope{Act: canonical.ActInformCapabilities, ID: fmt.Sprintf("decl-%d", i),
			Sender: canonical.Party{ID: "burst"}, Capabilities: &canonical.Capabilities{Tools: []canonical.Tool{{Name: fmt.Sprintf("t%d", i)}}}}))
	}
	deadline := time.Now().Add(wait)
	for c.tools()["burst__t9"] == nil {
		if time.Now().After(deadline) {
			t.Fatal("the last declaration never showed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // the trailing notification, if any
	if n := h.metric("mcp_tools_list_changed_total") - before; n < 1 || n > 3 {
		t.Errorf("%v notifications for one burst (the agent connecting, then ten declarations), want 1 to 3", n)
	}
}

// metric returns the value of the unlabelled metric name, 0 if absent.
func (h *harness) metric(name string) float64 {
	h.t.Helper()
	for _, l := range strings.Split(metrics(h.t.(*testing.T), h), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				h.t.Fatalf("%s: %v", l, err)
			}
			return f
		}
	}
	return 0
}
