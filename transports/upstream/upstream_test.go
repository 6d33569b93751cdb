package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
	"github.com/mcp-bridge/mcp-bridge/transports/upstream"
)

// wait bounds every wait of these tests; no test measures time with it.
const wait = 20 * time.Second

// TestMain runs the test binary as the test MCP server on stdio when
// UPSTREAM_TEST_SERVER is set (stdio), or as the link contract's
// (contract): a real child process speaking MCP.
func TestMain(m *testing.M) {
	if os.Getenv("UPSTREAM_TEST_SERVER") == "stdio" {
		if err := server.ServeStdio(testServer()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if os.Getenv("UPSTREAM_TEST_SERVER") == "contract" {
		if err := upstream.ServeContract(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// testServer is an MCP server (mcp-go's) with tools to exercise the
// upstream: echo (text), add (structured), fail (isError), slow (progress,
// then waits to be cancelled or for ms), pid, and grow (adds a tool: the
// list changes).
func testServer() *server.MCPServer {
	s := server.NewMCPServer("test-upstream", "1.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns its text."), mcp.WithString("text", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(r.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("Adds a and b."), mcp.WithNumber("a"), mcp.WithNumber("b")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sum := r.GetFloat("a", 0) + r.GetFloat("b", 0)
			return mcp.NewToolResultStructured(map[string]float64{"sum": sum}, fmt.Sprintf("sum %g", sum)), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Always fails.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the disk is full"), nil
		})
	s.AddTool(mcp.NewTool("pid", mcp.WithDescription("Returns the server's process id.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.Itoa(os.Getpid())), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Reports progress, then waits ms or to be cancelled."), mcp.WithNumber("ms")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r.Params.Meta != nil && r.Params.Meta.ProgressToken != nil {
				_ = s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": r.Params.Meta.ProgressToken, "progress": 1, "total": 2, "message": "halfway"})
			}
			select {
			case <-time.After(time.Duration(r.GetFloat("ms", 0)) * time.Millisecond):
				return mcp.NewToolResultText("done"), nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "slow: cancelled")
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcp.NewTool("grow", mcp.WithDescription("Adds the tool extra.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("extra", mcp.WithDescription("Appeared later.")),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("extra"), nil
				})
			return mcp.NewToolResultText("grown"), nil
		})
	return s
}

// run starts a bridge and the upstream spec on it; it returns the bridge,
// the upstream and its log.
func run(t *testing.T, spec upstream.Spec) (*bridge.Bridge, *upstream.Upstream, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(), Logger: log,
		Heartbeat: -1, RequestTimeout: wait, Retry: &bridge.RetryPolicy{}})
	if err != nil {
		t.Fatal(err)
	}
	spec.Logger = log
	spec.BackoffMin, spec.BackoffMax = 10*time.Millisecond, 100*time.Millisecond
	u := upstream.New(b, spec)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- u.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		sctx, scancel := context.WithTimeout(context.Background(), wait)
		defer scancel()
		_ = b.Shutdown(sctx)
	})
	return b, u, logs
}

// awaitTool waits until the bridge lists the agent's tool name.
func awaitTool(t *testing.T, b *bridge.Bridge, name string) bridge.Tool {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, tool := range b.Tools() {
			if tool.Name == name {
				return tool
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the tool %s never showed: %+v", name, b.Tools())
	return bridge.Tool{}
}

func call(b *bridge.Bridge, ctx context.Context, tool, args string, opts ...bridge.CallOption) (canonical.Envelope, error) {
	return b.Call(ctx, canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "tester"},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "up"},
		Operation: canonical.Operation{Name: tool}, Arguments: canonical.JSON(args)}, opts...)
}

func stdioSpec() upstream.Spec {
	return upstream.Spec{ID: "up", Command: []string{os.Args[0]}, Env: map[string]string{"UPSTREAM_TEST_SERVER": "stdio"}}
}

// TestCalls: the server's tools are declared with their descriptions and
// schemas; a result, structured content, an isError result, an unknown
// tool and bad arguments come back as canonical answers.
func TestCalls(t *testing.T) {
	b, _, _ := run(t, stdioSpec())
	add := awaitTool(t, b, "add")
	if add.Dialect != upstream.Dialect || add.Description != "Adds a and b." || !strings.Contains(string(add.InputSchema), `"a"`) {
		t.Errorf("add: %+v", add)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for _, tc := range []struct {
		tool, args string
		act        canonical.Act
		code       canonical.ErrorCode
		want       string
	}{
		{"add", `{"a":2,"b":40}`, canonical.ActResult, "", `{"sum":42}`},
		{"echo", `{"text":"hi there"}`, canonical.ActResult, "", `"hi there"`},
		{"fail", `{}`, canonical.ActFailure, canonical.ErrExecutionFailed, "the disk is full"},
		{"nope", `{}`, canonical.ActFailure, canonical.ErrNotFound, "not found"},
		{"echo", `[1,2]`, canonical.ActFailure, canonical.ErrInvalidArguments, "object of arguments"},
	} {
		ans, err := call(b, ctx, tc.tool, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		got := string(ans.Result)
		if ans.Error != nil {
			got = ans.Error.Message
			if ans.Error.Code != tc.code {
				t.Errorf("%s: code %s, want %s", tc.tool, ans.Error.Code, tc.code)
			}
		}
		if ans.Act != tc.act || !strings.Contains(got, tc.want) || ans.Sender.ID != "up" {
			t.Errorf("%s %s: %s %q from %s, want %s %q", tc.tool, tc.args, ans.Act, got, ans.Sender.ID, tc.act, tc.want)
		}
	}
}

// TestProgressAndCancel: the server's progress reaches the caller as an
// event about its request; a call the caller gives up is cancelled on the
// server.
func TestProgressAndCancel(t *testing.T) {
	b, _, logs := run(t, stdioSpec())
	awaitTool(t, b, "slow")
	progress := make(chan *canonical.Envelope, 4)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := call(b, ctx, "slow", `{"ms":60000}`, bridge.WithProgress(func(p bridge.Progress) {
			if p.Stage == bridge.StageEvent {
				progress <- p.Env
			}
		}))
		errc <- err
	}()
	select {
	case ev := <-progress:
		if !strings.Contains(string(ev.Arguments), `"message":"halfway"`) {
			t.Errorf("progress %s", ev.Arguments)
		}
	case <-time.After(wait):
		t.Fatal("no progress")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	deadline := time.Now().Add(wait)
	for !strings.Contains(logs.String(), "slow: cancelled") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never saw the cancellation:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := b.Pending(); n != 0 {
		t.Errorf("%d requests open", n)
	}
}

// TestListChanged: the server's tools/list_changed makes the bridge list
// again and declare the new tool.
func TestListChanged(t *testing.T) {
	b, _, _ := run(t, stdioSpec())
	awaitTool(t, b, "grow")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := call(b, ctx, "grow", `{}`); err != nil {
		t.Fatal(err)
	}
	awaitTool(t, b, "extra")
	if ans, err := call(b, ctx, "extra", `{}`); err != nil || string(ans.Result) != `"extra"` {
		t.Errorf("extra: %+v %v", ans, err)
	}
}

// TestKilled: killing the server answers the call in flight unavailable,
// its tools leave the list, and the server is started again.
func TestKilled(t *testing.T) {
	b, u, _ := run(t, stdioSpec())
	awaitTool(t, b, "pid")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ans, err := call(b, ctx, "pid", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.Trim(string(ans.Result), `"`))
	if err != nil {
		t.Fatalf("pid %s: %v", ans.Result, err)
	}
	errc := make(chan error, 1)
	go func() { _, err := call(b, ctx, "slow", `{"ms":60000}`); errc <- err }()
	for b.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	proc, _ := os.FindProcess(pid)
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	var e *canonical.Error
	if err := <-errc; !errors.As(err, &e) || e.Code != canonical.ErrUnavailable {
		t.Fatalf("the call in flight: %v, want unavailable", err)
	}
	deadline := time.Now().Add(wait)
	for u.Restarts() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server was not started again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	awaitTool(t, b, "pid")
	ans, err = call(b, ctx, "pid", `{}`)
	if err != nil || strings.Trim(string(ans.Result), `"`) == strconv.Itoa(pid) {
		t.Errorf("after the restart: %+v %v", ans, err)
	}
}

// TestHTTP: a server over streamable HTTP, with a header on every request;
// when it stops the agent is unavailable and its tools leave the list, and
// when it is back on the same address the bridge reconnects.
func TestHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var sawToken sync.Once
	tokens := make(chan string, 1)
	serve := func(ln net.Listener) *http.Server {
		h := server.NewStreamableHTTPServer(testServer())
		hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sawToken.Do(func() { tokens <- r.Header.Get("Authorization") })
			h.ServeHTTP(w, r)
		})}
		go func() { _ = hs.Serve(ln) }()
		return hs
	}
	hs := serve(ln)
	b, u, _ := run(t, upstream.Spec{ID: "up", URL: "http://" + addr + "/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"},
		PingEvery: 50 * time.Millisecond})
	awaitTool(t, b, "add")
	if got := <-tokens; got != "Bearer s3cret" {
		t.Errorf("the server got Authorization %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if ans, err := call(b, ctx, "add", `{"a":1,"b":2}`); err != nil || string(ans.Result) != `{"sum":3}` {
		t.Fatalf("add: %+v %v", ans, err)
	}
	// The server goes away.
	_ = hs.Close()
	deadline := time.Now().Add(wait)
	for len(b.Tools()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the tools of a stopped server are still listed: %+v", b.Tools())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// It comes back.
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	hs2 := serve(ln2)
	defer hs2.Close()
	awaitTool(t, b, "add")
	if u.Restarts() == 0 {
		t.Error("no reconnection counted")
	}
	if ans, err := call(b, ctx, "add", `{"a":5,"b":5}`); err != nil || string(ans.Result) != `{"sum":10}` {
		t.Fatalf("add after the server came back: %+v %v", ans, err)
	}
}
