package mcpface

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestArguments: a call's arguments become the request's: a JSON object
// as the client wrote it, {} for none or null; anything else is refused.
func TestArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		args any
		want string
		err  string
	}{
		{"raw object", `{"b":2,"a":1}`, nil, `{"b":2,"a":1}`, ""},
		{"raw null", `null`, nil, `{}`, ""},
		{"none", ``, nil, `{}`, ""},
		{"decoded map", ``, map[string]any{"a": 1}, `{"a":1}`, ""},
		{"raw array", `[1,2]`, nil, "", "must be a JSON object"},
		{"raw string", `"x"`, nil, "", "must be a JSON object"},
		{"decoded array", ``, []any{1}, "", "must be a JSON object"},
		{"not JSON", ``, func() {}, "", "not JSON"},
	} {
		var req mcp.CallToolRequest
		req.Params.RawArguments, req.Params.Arguments = json.RawMessage(tc.raw), tc.args
		got, err := arguments(req)
		if string(got) != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %s, %v; want %s, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// TestEventText: what a call's progress says of an agent's event.
// TestIsObject: a result is structured content only when it is a JSON
// object.
func TestIsObject(t *testing.T) {
	for _, tc := range []struct {
		in   canonical.JSON
		want bool
	}{
		{`{"sum":3}`, true}, {" \n\t{}", true}, {`{"sum":`, false}, {`{"a":1}x`, false},
		{`[1,2]`, false}, {`"text"`, false}, {`3`, false}, {``, false}, {`  `, false}, {`null`, false},
	} {
		if got := isObject(tc.in); got != tc.want {
			t.Errorf("isObject(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestEventText(t *testing.T) {
	for _, tc := range []struct {
		env  *canonical.Envelope
		want string
	}{
		{nil, "progress"},
		{&canonical.Envelope{Act: canonical.ActEvent, Description: "half done", Arguments: `{"p":50}`}, "half done"},
		{&canonical.Envelope{Act: canonical.ActEvent, Arguments: `{"p":50}`}, `{"p":50}`},
		{&canonical.Envelope{Act: canonical.ActEvent, Operation: canonical.Operation{Name: "tick"}}, "tick"},
		{&canonical.Envelope{Act: canonical.ActEvent}, "event"},
	} {
		if got := eventText(tc.env); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestCall: a tools/call reaches the agent as a request of its dialect,
// from the configured sender, with the client's arguments; its answer
// comes back as the tool's result (structured when an object), its
// failure as an isError result naming the agent; each call is counted by
// outcome.
func TestCall(t *testing.T) {
	l := serve(t, Options{Sender: "the-client"})
	calc := l.attach("swarm", "calc", "add", "echo", "fail")
	c := l.connect("")
	eventually(t, "calc's tools listed", func() bool { return len(c.tools()) == 3 })
	for _, tc := range []struct {
		tool    string
		args    any
		isError bool
		text    []string
		object  bool
	}{
		{"calc__add", map[string]any{"a": 2, "b": 40}, false, []string{`"sum":42`}, true},
		{"calc__echo", map[string]any{"nested": map[string]any{"list": []int{1, 2}}}, false, []string{`"list":[1,2]`}, true},
		{"calc__add", map[string]any{"a": "two"}, true, []string{"agent calc (swarm)"}, false},
		{"calc__fail", map[string]any{"message": "on purpose"}, true, []string{"calc", "on purpose"}, false},
		{"calc__add", []int{1, 2}, true, []string{"must be a JSON object"}, false},
	} {
		res, err := c.call(tc.tool, tc.args)
		if err != nil {
			t.Errorf("%s %v: %v", tc.tool, tc.args, err)
			continue
		}
		got := text(res)
		if res.IsError != tc.isError || (res.StructuredContent != nil) != tc.object {
			t.Errorf("%s %v: isError %v, structured %v: %s", tc.tool, tc.args, res.IsError, res.StructuredContent, got)
		}
		for _, w := range tc.text {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: %q lacks %q", tc.tool, tc.args, got, w)
			}
		}
	}
	// The agent got the calls from the configured sender.
	var frames []string
	for len(calc.received) > 0 {
		frames = append(frames, <-calc.received)
	}
	if all := strings.Join(frames, "\n"); !strings.Contains(all, "the-client") || !strings.Contains(all, `"b":40`) {
		t.Errorf("the agent received:\n%s", all)
	}
	for _, tc := range []struct {
		tool, outcome string
		want          float64
	}{{"calc__add", outcomeSuccess, 1}, {"calc__echo", outcomeSuccess, 1}, {"calc__add", outcomeFailure, 1}, {"calc__fail", outcomeFailure, 1}} {
		// A call is counted once its answer is on its way.
		eventually(t, fmt.Sprintf("mcp_tool_calls_total{tool=%s,outcome=%s} is %v", tc.tool, tc.outcome, tc.want), func() bool {
			return testutil.ToFloat64(l.f.metrics.calls.WithLabelValues(tc.tool, tc.outcome)) == tc.want
		})
	}
	// An unknown tool is the protocol's error, or an isError result.
	if res, err := c.call("nobody__nothing", map[string]any{}); err == nil && !res.IsError {
		t.Errorf("an unknown tool: %q", text(res))
	}
}

// TestCallSender: a client whose bearer token was verified calls as the
// agent the token names.
func TestCallSender(t *testing.T) {
	l := serve(t, Options{Verify: func(token string) (string, error) { return strings.TrimPrefix(token, "jwt-"), nil }, Required: true})
	calc := l.attach("swarm", "calc", "echo")
	c := l.connect("jwt-claude")
	eventually(t, "calc's tool listed", func() bool { return len(c.tools()) == 1 })
	if res, err := c.call("calc__echo", map[string]any{"x": 1}); err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	for {
		select {
		case f := <-calc.received:
			if strings.Contains(f, `"x":1`) {
				if !strings.Contains(f, "claude") || strings.Contains(f, DefaultSender) {
					t.Errorf("the call's sender is not the token's agent:\n%s", f)
				}
				return
			}
		default:
			t.Fatal("the agent never received the call")
		}
	}
}

// TestCallCancelled: a client that cancels its call gives up the request:
// the bridge holds nothing for it, and the call is counted cancelled; in
// the protocol version of sessions and in the client's latest (whose
// notifications/cancelled compat mends).
func TestCallCancelled(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			l := serve(t, Options{})
			slow := l.attach("swarm", "slow", "sleep")
			c := l.connect("", version)
			eventually(t, "slow's tool listed", func() bool { return len(c.tools()) == 1 })
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := c.s.CallTool(ctx, &sdk.CallToolParams{Name: "slow__sleep", Arguments: map[string]any{"ms": 300000}})
				done <- err
			}()
			for reached := false; !reached; {
				select {
				case f := <-slow.received:
					reached = strings.Contains(f, "300000")
				case <-time.After(wait):
					t.Fatal("the call never reached the agent")
				}
			}
			if n := l.b.Pending(); n != 1 {
				t.Errorf("%d requests open while the call waits, want 1", n)
			}
			cancel()
			select {
			case err := <-done:
				if err == nil {
					t.Error("a cancelled call returned a result")
				}
			case <-time.After(wait):
				t.Fatal("the cancelled call never returned")
			}
			eventually(t, "the request given up", func() bool { return l.b.Pending() == 0 })
			eventually(t, "the call counted cancelled", func() bool {
				return testutil.ToFloat64(l.f.metrics.calls.WithLabelValues("slow__sleep", outcomeCancelled)) == 1
			})
			// The session goes on: another call is answered.
			l.attach("swarm", "calc", "add")
			eventually(t, "calc's tool listed", func() bool { return len(c.tools()) == 2 })
			if res, err := c.call("calc__add", map[string]any{"a": 1, "b": 1}); err != nil || res.IsError {
				t.Errorf("a call after the cancelled one: %v %v", err, res)
			}
		})
	}
}
