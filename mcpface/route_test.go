package mcpface

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestDispatch: with agents connected, mcp-go's registry holds the
// dispatcher alone, and every call is routed by the face: a tool the
// token may call answers; one it may not, one the table lacks, and the
// dispatcher's name as a client can send it are not found, named as the
// client sent them.
func TestDispatch(t *testing.T) {
	l := serve(t, Options{Tokens: []Token{{Token: "all"}, {Token: "calc-only", Agents: []string{"calc"}}}})
	l.attach("swarm", "calc", "add")
	l.attach("fuse", "other", "add")
	all, scoped := l.connect("all"), l.connect("calc-only")
	eventually(t, "both agents' tools listed", func() bool {
		return slices.Equal(names(all.tools()), []string{"calc__add", "other__add"})
	})
	l.f.sync()
	if reg := names(l.f.srv.ListTools()); !slices.Equal(reg, []string{dispatchName}) {
		t.Errorf("mcp-go's registry holds %q", reg)
	}
	for _, tc := range []struct {
		what    string
		c       *client
		name    string
		refused string // the protocol error's text; "" for an answer
	}{
		{"a tool of the token's agent", scoped, "calc__add", ""},
		{"a tool of any agent", all, "other__add", ""},
		{"a tool of another agent than the token's", scoped, "other__add", "tool 'other__add' not found"},
		{"a tool the table lacks", all, "nope", "tool 'nope' not found"},
		{"the dispatcher's name, as JSON carries it", all, dispatchName, "tool '\uFFFDmcp-bridge' not found"},
	} {
		res, err := tc.c.call(tc.name, map[string]any{"a": 1, "b": 2})
		switch {
		case tc.refused == "" && (err != nil || res.IsError || !strings.Contains(text(res), "3")):
			t.Errorf("%s: %v %+v", tc.what, err, res)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: %v %+v, want the error %q", tc.what, err, res, tc.refused)
		}
	}
}

// TestHeaderTools: a tool whose input schema binds a parameter to a header
// (x-mcp-header) is held by mcp-go under its own name, which checks a
// call's header against its argument; one whose binding mcp-go would
// refuse is routed, unchecked, and does not stop the face; a tool that no
// longer binds one, or whose agent went, is let go.
func TestHeaderTools(t *testing.T) {
	l := serve(t, Options{})
	region := canonical.Tool{Name: "locate",
		InputSchema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`}
	bad := canonical.Tool{Name: "locate",
		InputSchema: `{"type":"object","properties":{"where":{"type":"object","x-mcp-header":"Where"}}}`}
	l.b.Declare(bridge.AgentSpec{ID: "geo", Dialect: "fuse", Tools: []canonical.Tool{region}})
	l.b.Declare(bridge.AgentSpec{ID: "bad", Dialect: "fuse", Tools: []canonical.Tool{bad}})
	l.f.sync()
	if reg := names(l.f.srv.ListTools()); !slices.Equal(reg, []string{"geo__locate", dispatchName}) {
		t.Errorf("mcp-go's registry holds %q", reg)
	}

	h := &paramHeader{}
	c := &client{t: t, s: h.connect(t, l)}
	for _, tc := range []struct {
		what, tool, header, region string
		mismatch                   bool
	}{
		{"the header agrees", "geo__locate", "eu", "eu", false},
		{"the header disagrees", "geo__locate", "us", "eu", true},
		{"no header", "geo__locate", "", "eu", true},
		{"a binding mcp-go refuses: not checked", "bad__locate", "us", "eu", false},
	} {
		h.set("Mcp-Param-Region", tc.header)
		res, err := c.call(tc.tool, map[string]any{"region": tc.region})
		switch {
		case tc.mismatch && (err == nil || !strings.Contains(err.Error(), "Mcp-Param-Region")):
			t.Errorf("%s: %v %+v, want a header mismatch", tc.what, err, res)
		case !tc.mismatch && (err != nil || !res.IsError || !strings.Contains(text(res), "could not get an answer")):
			// Declared, never connected: the face answers the call.
			t.Errorf("%s: %v %+v, want the face's answer", tc.what, err, res)
		}
	}

	// geo's tool binds no header any more, then geo goes: mcp-go lets it
	// go, and the sessions hear of each once.
	for _, step := range []struct {
		what string
		do   func()
	}{
		{"geo's tool binds no header", func() {
			l.b.Redeclare(bridge.AgentSpec{ID: "geo", Dialect: "fuse", Tools: []canonical.Tool{{Name: "locate"}}})
		}},
		{"geo's tool binds one again", func() {
			l.b.Redeclare(bridge.AgentSpec{ID: "geo", Dialect: "fuse", Tools: []canonical.Tool{region}})
		}},
		{"geo removed", func() { l.b.Remove("geo", "gone from the config") }},
	} {
		told := testutil.ToFloat64(l.f.metrics.listChanged)
		step.do()
		l.f.sync()
		if n := testutil.ToFloat64(l.f.metrics.listChanged); n != told+1 {
			t.Errorf("%s: %v list_changed, want 1", step.what, n-told)
		}
	}
	if reg := names(l.f.srv.ListTools()); !slices.Equal(reg, []string{dispatchName}) {
		t.Errorf("mcp-go's registry still holds %q", reg)
	}
	l.f.mu.Lock()
	held := len(l.f.holding)
	l.f.mu.Unlock()
	if held != 0 {
		t.Errorf("the face thinks mcp-go holds %d tools", held)
	}
}

// paramHeader is an HTTP transport that sets one header on every request.
type paramHeader struct {
	mu          sync.Mutex
	name, value string
}

func (p *paramHeader) set(name, value string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name, p.value = name, value
}

func (p *paramHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	name, value := p.name, p.value
	p.mu.Unlock()
	r = r.Clone(r.Context())
	if value != "" {
		r.Header.Set(name, value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect connects a go-sdk client to l's face through p.
func (p *paramHeader) connect(t *testing.T, l *live) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	transport := &sdk.StreamableClientTransport{Endpoint: l.url + Path, HTTPClient: &http.Client{Transport: p}}
	s, err := sdk.NewClient(&sdk.Implementation{Name: "mcpface-test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
