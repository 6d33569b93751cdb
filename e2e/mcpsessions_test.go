package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionVersion is the revision the session tests speak: the last with
// MCP sessions (go-sdk negotiates the stateless 2026-07-28 by default).
const sessionVersion = "2025-11-25"

// roundRobin is an HTTP proxy that sends each request to the next of its
// backends in turn, and remembers which got the GET streams. With
// crossAnswers, a client's answer (a JSON-RPC response POSTed) goes to the
// next backend but the one that got the latest tools/call, and is noted.
type roundRobin struct {
	backends     []*httputil.ReverseProxy
	crossAnswers bool
	mu           sync.Mutex
	next         int
	gets         []int // the backend of each GET, in order
	lastCall     int   // the backend of the latest tools/call
	answers      []int // the backend of each answer, in order
}

// newRoundRobin serves a roundRobin over targets until the test ends.
func newRoundRobin(t *testing.T, targets ...string) (*httptest.Server, *roundRobin) {
	rr := &roundRobin{}
	for _, target := range targets {
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1 // server-sent events pass at once
		rr.backends = append(rr.backends, p)
	}
	srv := httptest.NewServer(rr)
	t.Cleanup(srv.Close)
	return srv, rr
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if r.Method == http.MethodPost && rr.crossAnswers {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.Unmarshal(body, &msg)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rr.mu.Lock()
	i := rr.next
	rr.next = (rr.next + 1) % len(rr.backends)
	switch {
	case r.Method == http.MethodGet:
		rr.gets = append(rr.gets, i)
	case msg.Method == "tools/call":
		rr.lastCall = i
	case msg.Method == "" && msg.Result != nil && rr.crossAnswers:
		if i == rr.lastCall {
			i = (i + 1) % len(rr.backends)
		}
		rr.answers = append(rr.answers, i)
	}
	rr.mu.Unlock()
	rr.backends[i].ServeHTTP(w, r)
}

// lastGet is the backend of the latest GET stream, waiting for one.
func (rr *roundRobin) lastGet(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		rr.mu.Lock()
		n := len(rr.gets)
		var last int
		if n > 0 {
			last = rr.gets[n-1]
		}
		rr.mu.Unlock()
		if n > 0 {
			return last
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the client opened no GET stream")
	return 0
}

// sessionClient connects a go-sdk client named name on sessionVersion to
// endpoint, with what opts adds to its options; changed hears its
// tools/list_changed.
func sessionClient(t *testing.T, endpoint, name string, opts ...func(*mcp.ClientOptions)) (s *mcp.ClientSession, changed chan struct{}) {
	t.Helper()
	changed = make(chan struct{}, 64)
	o := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}}
	for _, opt := range opts {
		opt(o)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, o)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint + "/mcp"},
		&mcp.ClientSessionOptions{ProtocolVersion: sessionVersion})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, changed
}

// postStatus is the status of a tools/list posted to base in session id.
func postStatus(t *testing.T, base, id string) int {
	t.Helper()
	return postIn(t, base, id, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
}

// postIn is the status of body posted to base in session id.
func postIn(t *testing.T, base, id, body string) int {
	t.Helper()
	status, _ := postBody(t, base, id, body)
	return status
}

// postBody is the status and body of the answer to body posted to base in
// session id.
func postBody(t *testing.T, base, id, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", sessionVersion)
	req.Header.Set("Mcp-Session-Id", id)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(data)
}

// awaitStatus waits until a tools/list in session id on base answers want.
func awaitStatus(t *testing.T, base, id string, want int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	got := 0
	for time.Now().Before(deadline) {
		if got = postStatus(t, base, id); got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("a tools/list in session %s on %s answers %d, want %d", id, base, got, want)
}

// TestMCPSessionDelete: on one bridge, a session that was deleted, or was
// never made, is answered 404; one that is on is served.
func TestMCPSessionDelete(t *testing.T) {
	h := start(t, nil)
	on, _ := sessionClient(t, h.httpURL(), "kept")
	deleted, _ := sessionClient(t, h.httpURL(), "deleted")
	deletedID := deleted.ID()
	if err := deleted.Close(); err != nil { // sends DELETE
		t.Fatalf("close: %v", err)
	}
	for _, tc := range []struct {
		name, id string
		want     int
	}{
		{"on", on.ID(), http.StatusOK},
		{"deleted", deletedID, http.StatusNotFound},
		{"never made", "s-00000000000000000000000000000000", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := postStatus(t, h.httpURL(), tc.id); got != tc.want {
				t.Errorf("session %q: %d, want %d", tc.id, got, tc.want)
			}
		})
	}
}

// TestMCPSessionsAcrossInstances: two bridges on one NATS behind a
// round-robin proxy, so that each of a session's requests goes to the
// other instance than the one before. The go-sdk client lists the tools of
// both instances' agents, calls them, hears of a tools/list_changed caused
// on the instance its GET stream is not on, and its DELETE ends the session
// on both; every instance's audit line names the client.
func TestMCPSessionsAcrossInstances(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b")
	order := []*harness{hs["a"], hs["b"]}
	names := []string{"a", "b"}
	for i, h := range order {
		h.runAgent("collab", "agent-"+names[i])
	}
	for i, h := range order {
		h.awaitAgent("agent-"+names[1-i], names[1-i], bridge.StatusReady)
	}
	proxy, rr := newRoundRobin(t, order[0].httpURL(), order[1].httpURL())
	s, changed := sessionClient(t, proxy.URL, "spread-client")

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	listed := map[string]bool{}
	for _, tool := range list.Tools {
		listed[tool.Name] = true
	}
	for _, name := range names {
		if !listed["agent-"+name+"__add"] {
			t.Fatalf("agent-%s__add is not listed: %v", name, listed)
		}
	}
	// Sequential calls alternate between the instances; four per agent put
	// calls to each agent on each instance, whatever the GET took.
	for i := range 8 {
		tool := "agent-" + names[i%2] + "__add"
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"a": i, "b": 1}})
		if err != nil {
			t.Fatalf("tools/call %s: %v", tool, err)
		}
		if want := fmt.Sprintf(`"sum":%d`, i+1); res.IsError || !strings.Contains(text(res), want) {
			t.Fatalf("tools/call %s: isError %v, %q; want %s", tool, res.IsError, text(res), want)
		}
	}
	for i, h := range order {
		var calls int
		for _, line := range strings.Split(h.logs.String(), "\n") {
			if !strings.Contains(line, `"mcp: tools/call"`) {
				continue
			}
			calls++
			if !strings.Contains(line, `"client":"spread-client"`) {
				t.Errorf("instance %s's audit line does not name the client: %s", names[i], line)
			}
		}
		if calls == 0 {
			t.Errorf("instance %s served no tools/call", names[i])
		}
	}

	// An agent joins the instance the stream is not on.
	stream := rr.lastGet(t)
	other := order[1-stream]
	emptied(changed)
	other.runAgent("collab", "newcomer")
	select {
	case <-changed:
	case <-time.After(wait):
		t.Fatalf("no tools/list_changed on the stream on %s when an agent joined %s", names[stream], names[1-stream])
	}

	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatalf("close (DELETE): %v", err)
	}
	for _, h := range order {
		awaitStatus(t, h.httpURL(), id, http.StatusNotFound, 3*time.Second)
	}
	// Neither instance keeps anything of the session.
	for i, h := range order {
		deadline := time.Now().Add(wait)
		for h.metric("mcp_sessions_open") != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("instance %s still has %v MCP sessions open", names[i], h.metric("mcp_sessions_open"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// startSessionInstances runs one bridge per name on the NATS at url, the
// first with the bluelabel agent DEPLOYER declared (deployer serves it).
func startSessionInstances(t *testing.T, url string, names ...string) []*harness {
	t.Helper()
	var out []*harness
	for i, name := range names {
		cfg := config.Default()
		cfg.Cluster = config.Cluster{NATS: url, Name: name, Heartbeat: clusterBeat}
		if i == 0 {
			cfg.Agents = append(cfg.Agents, config.Agent{ID: "DEPLOYER", Dialect: "bluelabel", Tools: config.Named("deploy")})
		}
		out = append(out, start(t, cfg))
	}
	return out
}

// TestMCPElicitationAcrossInstances: two bridges on one NATS behind a
// round-robin proxy that sends each of the client's answers to the other
// instance than the one that took its tools/call. A go-sdk client calls a
// bluelabel agent that asks for input; the elicitation reaches the client,
// its answer reaches the instance that asked through the cluster, and the
// call ends with the agent's result.
func TestMCPElicitationAcrossInstances(t *testing.T) {
	n := startNATS(t)
	names := []string{"a", "b"}
	order := startSessionInstances(t, n.URL(), names...)
	deployer(order[0], `[{"id":"region","type":"enum","options":["eu","us"],"description":"where to deploy"}]`)
	order[1].awaitAgent("DEPLOYER", "a", bridge.StatusReady)
	proxy, rr := newRoundRobin(t, order[0].httpURL(), order[1].httpURL())
	rr.crossAnswers = true
	var mu sync.Mutex
	var asked []string
	s, _ := sessionClient(t, proxy.URL, "eliciting-client", func(o *mcp.ClientOptions) {
		o.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"region": []string{"eu", "us"}[len(asked)%2]}}, nil
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	// Two calls: with the round robin, the second is likelier on the
	// instance the first was not.
	for i := range 2 {
		service := fmt.Sprintf("web-%d", i)
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "DEPLOYER__deploy", Arguments: map[string]any{"service": service}})
		if err != nil {
			t.Fatalf("tools/call %d: %v", i, err)
		}
		region := []string{"eu", "us"}[(i+1)%2]
		if res.IsError || !strings.Contains(text(res), `"region":"`+region+`"`) || !strings.Contains(text(res), `"service":"`+service+`"`) {
			t.Fatalf("tools/call %d: isError %v, %s; want region %s, service %s", i, res.IsError, text(res), region, service)
		}
	}
	mu.Lock()
	if len(asked) != 2 || !strings.Contains(asked[0], "DEPLOYER") {
		t.Errorf("asked %q, want two elicitations of DEPLOYER", asked)
	}
	mu.Unlock()
	rr.mu.Lock()
	answers := slices.Clone(rr.answers)
	rr.mu.Unlock()
	if len(answers) != 2 {
		t.Fatalf("the proxy saw %d answers, want 2", len(answers))
	}
	// Each answer went to the instance that did not ask: it was relayed.
	var relayed float64
	for _, h := range order {
		relayed += h.metric("mcp_answers_relayed_total")
	}
	if relayed != 2 {
		t.Errorf("mcp_answers_relayed_total: %v over the instances, want 2", relayed)
	}
	order[0].awaitPending(0)

	// An answer to no request: the instance named says so (mcp-go: no
	// request pending, or none of the session's at all, as it made none
	// there), through the relay; one to an instance that is not there is
	// refused.
	for _, tc := range []struct {
		name, id string
		want     map[int]string // a status and what its body says
	}{
		{"no such request", `"99@b"`, map[int]string{http.StatusBadRequest: "No pending sampling request",
			http.StatusNotFound: "No active session"}},
		{"no such instance", `"99@z"`, map[int]string{http.StatusNotFound: "instance z, which asked, is gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postBody(t, order[0].httpURL(), s.ID(), `{"jsonrpc":"2.0","id":`+tc.id+`,"result":{"action":"accept"}}`)
			if says, ok := tc.want[status]; !ok || !strings.Contains(body, says) {
				t.Errorf("%d %q; want one of %v", status, body, tc.want)
			}
		})
	}
}

// TestMCPLogLevelAcrossInstances: a client's log level, set on the
// instance its GET stream is not on, is heeded by the instance its stream
// is on: it hears there that an agent that joined the other is READY.
func TestMCPLogLevelAcrossInstances(t *testing.T) {
	n := startNATS(t)
	names := []string{"a", "b"}
	order := startSessionInstances(t, n.URL(), names...)
	proxy, rr := newRoundRobin(t, order[0].httpURL(), order[1].httpURL())
	heard := make(chan string, 64)
	s, _ := sessionClient(t, proxy.URL, "logged-client", func(o *mcp.ClientOptions) {
		//lint:ignore SA1019 logging is what the face offers sessions of 2025-11-25; deprecated only from 2026-07-28
		o.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) {
			data, _ := json.Marshal(r.Params.Data)
			select {
			case heard <- string(r.Params.Level) + " " + string(data):
			default:
			}
		}
	})
	stream := rr.lastGet(t)
	other := order[1-stream]
	if got := postIn(t, other.httpURL(), s.ID(), `{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"info"}}`); got != http.StatusOK {
		t.Fatalf("logging/setLevel on %s: %d", names[1-stream], got)
	}
	// The level reaches every instance over NATS; an agent that joins
	// before it does is not logged, so agents join until one is.
	deadline := time.After(wait)
	for i := 0; ; i++ {
		id := fmt.Sprintf("logged-%d", i)
		other.runAgent("collab", id)
		select {
		case line := <-heard:
			if !strings.HasPrefix(line, "info ") || !strings.Contains(line, `"status":"READY"`) {
				t.Fatalf("heard %q, want an info line of an agent READY", line)
			}
			return
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the stream on %s heard no log line at the level set on %s", names[stream], names[1-stream])
		}
	}
}

// emptied empties c.
func emptied(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// TestMCPSessionBoundsFromConfig: memory.mcp_sessions and mcp.session_idle
// bound a bridge's sessions: past the count the session used least lately
// ends, and a session unused for the idle time ends when the table is next
// swept (a new session sweeps it); the sessions within the bounds are
// served. The table's bound, size and drops are in /metrics.
func TestMCPSessionBoundsFromConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sessions int
		idle     time.Duration
		pause    time.Duration // between the first session and the others
	}{
		{"count", 2, 0, 0},
		{"idle", 0, 300 * time.Millisecond, 600 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			if tc.sessions > 0 {
				cfg.Memory.MCPSessions = tc.sessions
			}
			if tc.idle > 0 {
				cfg.MCP.SessionIdle = tc.idle
			}
			h := start(t, cfg)
			first, _ := sessionClient(t, h.httpURL(), "first")
			time.Sleep(tc.pause)
			second, _ := sessionClient(t, h.httpURL(), "second")
			last := second
			if tc.sessions > 0 {
				last, _ = sessionClient(t, h.httpURL(), "third")
			}
			if got := postStatus(t, h.httpURL(), first.ID()); got != http.StatusNotFound {
				t.Errorf("the first session: %d, want 404", got)
			}
			if got := postStatus(t, h.httpURL(), last.ID()); got != http.StatusOK {
				t.Errorf("the last session: %d, want 200", got)
			}
			if tc.sessions > 0 {
				// The table's bound and what went past it, as the other tables show theirs.
				for series, want := range map[string]float64{
					`bridge_table_limit{table="mcp_sessions"}`:         float64(tc.sessions),
					`bridge_table_size{table="mcp_sessions"}`:          float64(tc.sessions),
					`bridge_table_dropped_total{table="mcp_sessions"}`: 1,
				} {
					if got := metricValue(t, h, series); got != want {
						t.Errorf("%s = %v, want %v", series, got, want)
					}
				}
			}
		})
	}
}
