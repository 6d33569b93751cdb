package mcpface

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// deployer attaches a bluelabel agent, DEPLOYER, on a WebSocket of its
// own: it answers a deploy without a region with needs_input asking for
// inputs, and one with a region with the arguments it got.
func (l *live) deployer(inputs string) {
	l.t.Helper()
	l.b.Declare(bridge.AgentSpec{ID: "DEPLOYER", Dialect: "bluelabel", Tools: []canonical.Tool{{Name: "deploy"}}})
	codec, _ := builtin.Default().Lookup("bluelabel")
	ctx, cancel := context.WithCancel(context.Background())
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(l.url, "http")+"/ws/bluelabel?agent=DEPLOYER", nil)
	if err != nil {
		cancel()
		l.t.Fatal(err)
	}
	done := make(chan struct{})
	l.t.Cleanup(func() { cancel(); conn.CloseNow(); <-done })
	go func() {
		defer close(done)
		for {
			_, frame, err := conn.Read(ctx)
			if err != nil {
				return
			}
			req, err := codec.Decode(frame)
			if err != nil || req.Act != canonical.ActRequest {
				continue
			}
			reply := &canonical.Envelope{TaskID: req.TaskID, Sender: canonical.Party{ID: "DEPLOYER"},
				Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID}}
			if !strings.Contains(string(req.Arguments), `"region"`) {
				reply.Act, reply.Inputs, reply.Description = canonical.ActNeedsInput, canonical.JSON(inputs), "Configuring the deployment"
			} else {
				reply.Act, reply.Outcome = canonical.ActResult, canonical.OutcomeSuccess
				reply.Result = canonical.JSON(`{"deployed":` + string(req.Arguments) + `}`)
			}
			out, err := codec.Encode(nil, reply, &dialects.EncodeContext{})
			if err != nil {
				l.t.Errorf("deployer: %v", err)
				return
			}
			if conn.Write(ctx, websocket.MessageText, out) != nil {
				return
			}
		}
	}()
	eventually(l.t, "DEPLOYER connected", func() bool {
		a, ok := l.b.Agent("DEPLOYER")
		return ok && a.Connected
	})
}

// TestElicitationLive: an agent's needs_input becomes an elicitation to a
// client that declared it, in either protocol version: the form it is
// asked, the answer it gives going back to the agent as the same task,
// added to the call's arguments; a client that declines ends the call
// saying so.
func TestElicitationLive(t *testing.T) {
	l := serve(t, Options{})
	l.deployer(`[{"id":"region","type":"enum","options":["eu","us"],"description":"where to deploy"}]`)
	for _, tc := range []struct {
		version, action string
		isError         bool
		text            []string
	}{
		{"2025-11-25", "accept", false, []string{`"region":"eu"`, `"service":"web"`}},
		{"", "accept", false, []string{`"region":"eu"`, `"service":"web"`}},
		{"2025-11-25", "decline", true, []string{"DEPLOYER", "decline"}},
		{"", "cancel", true, []string{"DEPLOYER", "cancel"}},
	} {
		label := tc.version
		if label == "" {
			label = "latest"
		}
		t.Run(label+"/"+tc.action, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			c := l.connectWith("", tc.version, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					schema, _ := json.Marshal(r.Params.RequestedSchema)
					mu.Lock()
					asked = append(asked, r.Params.Message+" "+string(schema))
					mu.Unlock()
					if tc.action != "accept" {
						return &sdk.ElicitResult{Action: tc.action}, nil
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"region": "eu"}}, nil
				},
			})
			res, err := c.call("DEPLOYER__deploy", map[string]any{"service": "web"})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError {
				t.Errorf("isError %v: %s", res.IsError, text(res))
			}
			for _, w := range tc.text {
				if !strings.Contains(text(res), w) {
					t.Errorf("%q lacks %q", text(res), w)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || !strings.Contains(asked[0], "Agent DEPLOYER (bluelabel) needs more input for deploy: Configuring the deployment") ||
				!strings.Contains(asked[0], `"enum":["eu","us"]`) {
				t.Errorf("asked %q", asked)
			}
		})
	}
	eventually(t, "nothing left open", func() bool { return l.b.Pending() == 0 })
}

// TestElicitationUnavailable: a client that cannot be asked gets an
// isError result listing the inputs, counted needs_input; an input marked
// sensitive is never asked for.
func TestElicitationUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name, inputs string
		elicit       bool
		text         string
		outcome      string
	}{
		{"a client that cannot be asked", `[{"id":"region","type":"enum","description":"where to deploy"}]`, false,
			"region (enum): where to deploy", outcomeInputs},
		{"a sensitive input", `[{"id":"api_key","type":"string","description":"the key","sensitive":true}]`, true,
			"sensitive input (api_key)", outcomeBridge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := serve(t, Options{})
			l.deployer(tc.inputs)
			var opts *sdk.ClientOptions
			if tc.elicit {
				opts = &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					t.Error("the client was asked")
					return &sdk.ElicitResult{Action: "decline"}, nil
				}}
			}
			c := l.connectWith("", "2025-11-25", opts)
			res, err := c.call("DEPLOYER__deploy", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(text(res), tc.text) {
				t.Errorf("isError %v: %q, want %q", res.IsError, text(res), tc.text)
			}
			eventually(t, "mcp_tool_calls_total{outcome="+tc.outcome+"} is 1", func() bool {
				return testutil.ToFloat64(l.f.metrics.calls.WithLabelValues("DEPLOYER__deploy", tc.outcome)) == 1
			})
		})
	}
}
