package mcpface

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// wait bounds every wait: generous, for a loaded machine.
const wait = 20 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// live is a bridge with its MCP face, served on loopback: agents connect
// to its WebSocket endpoint, MCP clients to its /mcp.
type live struct {
	t       testing.TB
	b       *bridge.Bridge
	f       *Face
	metrics *prometheus.Registry
	url     string // http://host:port
}

// serve starts a bridge and its face of opts on loopback, until the test
// ends.
func serve(t testing.TB, opts Options) *live {
	t.Helper()
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(), Heartbeat: -1,
		Logger: quiet, RequestTimeout: wait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	reg := prometheus.NewRegistry()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	opts.Metrics = reg
	f, err := New(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	mux := http.NewServeMux()
	(&ws.Handler{Bridge: b, Logger: quiet}).Register(mux)
	mux.Handle(Path, f.Handler())
	mux.Handle("GET "+MetadataPath, f.MetadataHandler())
	mux.Handle("GET "+MetadataPath+Path, f.MetadataHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &live{t: t, b: b, f: f, metrics: reg, url: srv.URL}
}

// agent is a reference agent connected to the bridge.
type agent struct {
	*refagent.Agent
	stop     func()
	received chan string // the frames it receives
}

// attach connects a reference agent id of dialect offering tools, and
// waits until the bridge lists it READY.
func (l *live) attach(dialect, id string, tools ...string) *agent {
	l.t.Helper()
	got := make(chan string, 64)
	a, err := refagent.New(refagent.Options{ID: id, Dialect: dialect, Tools: tools, Observer: func(dir string, frame []byte) {
		if dir == refagent.Received {
			select {
			case got <- string(frame):
			default:
			}
		}
	}})
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, "ws"+strings.TrimPrefix(l.url, "http"), "")
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	l.t.Cleanup(stop)
	eventually(l.t, id+" is READY", func() bool {
		i, ok := l.b.Agent(id)
		return ok && i.Connected && i.Status == bridge.StatusReady
	})
	return &agent{Agent: a, stop: stop, received: got}
}

// client is an MCP client session of the official go-sdk.
type client struct {
	t       testing.TB
	s       *sdk.ClientSession
	changed chan struct{} // a tools/list_changed came
}

// connect connects a go-sdk client to the face, presenting token as a
// bearer token when it is set, speaking the protocol version given (the
// client's latest when none).
func (l *live) connect(token string, version ...string) *client {
	l.t.Helper()
	v := ""
	if len(version) > 0 {
		v = version[0]
	}
	return l.connectWith(token, v, nil)
}

// connectWith connects a go-sdk client of opts (nil: none) speaking
// version ("": the client's latest).
func (l *live) connectWith(token, version string, opts *sdk.ClientOptions) *client {
	l.t.Helper()
	c := &client{t: l.t, changed: make(chan struct{}, 64)}
	if opts == nil {
		opts = &sdk.ClientOptions{}
	}
	opts.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) {
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	transport := &sdk.StreamableClientTransport{Endpoint: l.url + Path}
	if token != "" {
		transport.HTTPClient = &http.Client{Transport: bearerTransport(token)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var so *sdk.ClientSessionOptions
	if version != "" {
		so = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	s, err := sdk.NewClient(&sdk.Implementation{Name: "mcpface-test", Version: "1"}, opts).Connect(ctx, transport, so)
	if err != nil {
		l.t.Fatalf("connect: %v", err)
	}
	l.t.Cleanup(func() { _ = s.Close() })
	c.s = s
	return c
}

// bearerTransport adds "Authorization: Bearer token" to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// tools returns the tools listed, by name.
func (c *client) tools() map[string]*sdk.Tool {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := c.s.ListTools(ctx, nil)
	if err != nil {
		c.t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// call calls the tool with args; an error of the protocol is returned as
// it is.
func (c *client) call(name string, args any) (*sdk.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return c.s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
}

// awaitChanged waits for a tools/list_changed.
func (c *client) awaitChanged(what string) {
	c.t.Helper()
	select {
	case <-c.changed:
	case <-time.After(wait):
		c.t.Fatalf("no tools/list_changed after %s", what)
	}
}

// text is the text of a tool's result.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// eventually polls cond until it holds; the test fails when it does not
// within wait.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
