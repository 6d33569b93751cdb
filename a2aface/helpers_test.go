package a2aface

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
)

// wait bounds every wait: generous, for a loaded machine.
const wait = 20 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// live is a bridge with its A2A face, served on loopback: agents connect
// to its WebSocket endpoint, A2A clients to its /a2a.
type live struct {
	t   *testing.T
	b   *bridge.Bridge
	f   *Face
	url string // http://host:port
}

// serve starts a bridge and its face of opts on loopback, until the test
// ends.
func serve(t *testing.T, opts Options) *live {
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
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	f, err := New(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	mux := http.NewServeMux()
	(&ws.Handler{Bridge: b, Logger: quiet}).Register(mux)
	mux.Handle(Path, f.Handler())
	mux.Handle(Path+"/", f.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &live{t: t, b: b, f: f, url: srv.URL}
}

// attach connects a reference agent id of dialect offering tools, and
// waits until the bridge lists it READY with its tools.
func (l *live) attach(dialect, id string, tools ...string) {
	l.t.Helper()
	a, err := refagent.New(refagent.Options{ID: id, Dialect: dialect, Tools: tools})
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, "ws"+strings.TrimPrefix(l.url, "http"), "")
	}()
	l.t.Cleanup(func() { cancel(); <-done })
	eventually(l.t, id+" is READY with its tools", func() bool {
		i, ok := l.b.Agent(id)
		return ok && i.Connected && i.Status == bridge.StatusReady && len(i.Tools) >= len(tools)
	})
}

// deployer attaches a bluelabel agent, DEPLOYER, on a WebSocket of its
// own: it answers a deploy without a region with needs_input asking for
// one, and one with a region with the arguments it got.
func (l *live) deployer() {
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
				reply.Act, reply.Description = canonical.ActNeedsInput, "Configuring the deployment"
				reply.Inputs = `[{"id":"region","type":"enum","options":["eu","us"],"description":"where to deploy"}]`
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

// get fetches url with token ("" for none), and decodes its JSON into v;
// it returns the status.
func (l *live) get(url, token string, v any) int {
	l.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK && v != nil {
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			l.t.Fatalf("GET %s: %v", url, err)
		}
	}
	return res.StatusCode
}

// client is an a2a-go client of agent, made from the card the bridge
// serves for it.
func (l *live) client(agent, token string) *a2aclient.Client {
	l.t.Helper()
	var card a2a.AgentCard
	if status := l.get(l.url+Path+"/"+agent+CardPath, token, &card); status != http.StatusOK {
		l.t.Fatalf("card of %s: HTTP %d", agent, status)
	}
	hc := &http.Client{Transport: bearerTransport(token)}
	c, err := a2aclient.NewFromCard(context.Background(), &card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		l.t.Fatalf("client of %s: %v", agent, err)
	}
	l.t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// bearerTransport adds its token to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// message is a user message asking skill ("" for none) with parts.
func message(skill string, parts ...*a2a.Part) *a2a.SendMessageRequest {
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	if skill != "" {
		m.Metadata = map[string]any{"skill": skill}
	}
	return &a2a.SendMessageRequest{Message: m}
}

// send sends req with c, and returns the task it answers.
func send(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage answered %T, not a task", res)
	}
	return task
}

// statusText is the text of a task's status message.
func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var s []string
	for _, p := range task.Status.Message.Parts {
		s = append(s, p.Text())
	}
	return strings.Join(s, " ")
}

// eventually waits until cond holds, or fails the test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// restClient is an a2a-go client of agent that prefers the HTTP+JSON
// binding of the card the bridge serves for it; paths receives the path
// of each request it makes.
func (l *live) restClient(agent string, paths chan<- string) *a2aclient.Client {
	l.t.Helper()
	var card a2a.AgentCard
	if status := l.get(l.url+Path+"/"+agent+CardPath, "", &card); status != http.StatusOK {
		l.t.Fatalf("card of %s: HTTP %d", agent, status)
	}
	c, err := a2aclient.NewFromCard(context.Background(), &card,
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}}),
		a2aclient.WithRESTTransport(&http.Client{Transport: recorder(paths)}))
	if err != nil {
		l.t.Fatalf("client of %s: %v", agent, err)
	}
	l.t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// recorder sends each request's path to its channel.
type recorder chan<- string

func (rec recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case rec <- r.URL.Path:
	default:
	}
	return http.DefaultTransport.RoundTrip(r)
}
