package a2a

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// testAgent is a real A2A agent on loopback: the SDK's server (a2asrv)
// with the executor below, its card at /.well-known/agent-card.json, its
// JSON-RPC binding at /rpc and its HTTP+JSON binding at /rest.
type testAgent struct {
	srv  *httptest.Server
	exec *executor
	// headers has the headers of each call to a binding.
	headers chan http.Header
	mu      sync.Mutex
	down    bool // the card is not found
}

// executor answers by the skill a message names:
//   - echo: a completed task whose artifact's data part is the arguments;
//   - text: a message of two text parts;
//   - fail, reject: a failed (rejected) task, saying why;
//   - canceled: a canceled task;
//   - ask: needs input (a city) first, then a result naming it, on the same task;
//   - later: working, two status updates, then the arguments;
//   - hang: working until the task is cancelled;
//   - record: the arguments, reported on got.
type executor struct {
	got       chan []byte
	working   chan a2a.TaskID
	cancelled chan a2a.TaskID
	tasks     sync.Map // a2a.TaskID -> chan struct{} closed by Cancel
}

func newExecutor() *executor {
	return &executor{got: make(chan []byte, 64), working: make(chan a2a.TaskID, 8), cancelled: make(chan a2a.TaskID, 8)}
}

// argsOf returns the value of a message's data part, and its JSON.
func argsOf(m *a2a.Message) (any, []byte) {
	for _, p := range m.Parts {
		if d, ok := p.Content.(a2a.Data); ok {
			b, _ := json.Marshal(d.Value)
			return d.Value, b
		}
	}
	return nil, nil
}

func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		skill, _ := ec.Message.Metadata[skillKey].(string)
		value, args := argsOf(ec.Message)
		status := func(s a2a.TaskState, parts ...*a2a.Part) bool {
			var m *a2a.Message
			if len(parts) > 0 {
				m = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
			}
			return yield(a2a.NewStatusUpdateEvent(ec, s, m), nil)
		}
		switch skill {
		case "text":
			yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("hello"), a2a.NewTextPart("world")), nil)
			return
		case "echo", "record", "fail", "reject", "canceled", "ask", "later", "hang":
		default:
			yield(nil, a2a.ErrUnsupportedOperation)
			return
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch skill {
		case "echo", "record":
			if skill == "record" {
				e.got <- args
			}
			if yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(value)), nil) {
				status(a2a.TaskStateCompleted)
			}
		case "fail":
			status(a2a.TaskStateFailed, a2a.NewTextPart("boom"))
		case "reject":
			status(a2a.TaskStateRejected, a2a.NewTextPart("not for me"))
		case "canceled":
			status(a2a.TaskStateCanceled)
		case "ask":
			if ec.StoredTask == nil {
				status(a2a.TaskStateInputRequired, a2a.NewTextPart("which city?"), a2a.NewDataPart(map[string]any{"city": "string"}))
				return
			}
			in, _ := value.(map[string]any)
			if yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"task": string(ec.TaskID), "city": in["city"]})), nil) {
				status(a2a.TaskStateCompleted)
			}
		case "later":
			for _, step := range []string{"step 1", "step 2"} {
				if !status(a2a.TaskStateWorking, a2a.NewTextPart(step)) {
					return
				}
				time.Sleep(150 * time.Millisecond)
			}
			if yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(value)), nil) {
				status(a2a.TaskStateCompleted)
			}
		case "hang":
			stop := make(chan struct{})
			e.tasks.Store(ec.TaskID, stop)
			if !status(a2a.TaskStateWorking, a2a.NewTextPart("working")) {
				return
			}
			e.working <- ec.TaskID
			select {
			case <-stop:
			case <-ctx.Done():
			}
		}
	}
}

func (e *executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if stop, ok := e.tasks.LoadAndDelete(ec.TaskID); ok {
			close(stop.(chan struct{}))
		}
		e.cancelled <- ec.TaskID
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// skills are the test agent's skills.
var skills = []a2a.AgentSkill{
	{ID: "echo", Name: "Echo", Description: "Answers its arguments."},
	{ID: "text", Name: "Text", Description: "Answers in words."},
	{ID: "fail", Name: "Fail", Description: "Fails."},
	{ID: "reject", Name: "Reject", Description: "Rejects."},
	{ID: "canceled", Name: "Canceled", Description: "Cancels itself."},
	{ID: "ask", Name: "Ask", Description: "Asks for a city."},
	{ID: "later", Name: "Later", Description: "Works a while."},
	{ID: "hang", Name: "Hang", Description: "Works until cancelled."},
	{ID: "record", Name: "Record", Description: "Reports its arguments."},
}

// startAgent starts a test agent whose card offers binding, streaming or
// not.
func startAgent(t *testing.T, binding a2a.TransportProtocol, streaming bool) *testAgent {
	ta := &testAgent{exec: newExecutor(), headers: make(chan http.Header, 256)}
	mux := http.NewServeMux()
	ta.srv = httptest.NewServer(mux)
	t.Cleanup(ta.srv.Close)
	caps := a2a.AgentCapabilities{Streaming: streaming}
	h := a2asrv.NewHandler(ta.exec, a2asrv.WithCapabilityChecks(&caps), a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	url := ta.srv.URL + "/rpc"
	if binding == a2a.TransportProtocolHTTPJSON {
		url = ta.srv.URL + "/rest"
	}
	card := &a2a.AgentCard{Name: "planner", Version: "1", Description: "Plans.", Capabilities: caps, Skills: skills,
		DefaultInputModes: []string{"application/json"}, DefaultOutputModes: []string{"application/json"},
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(url, binding)}}
	cardHandler := a2asrv.NewStaticAgentCardHandler(card)
	mux.Handle("/.well-known/agent-card.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ta.mu.Lock()
		down := ta.down
		ta.mu.Unlock()
		if down {
			http.NotFound(w, r)
			return
		}
		cardHandler.ServeHTTP(w, r)
	}))
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case ta.headers <- r.Header.Clone():
			default:
			}
			next.ServeHTTP(w, r)
		})
	}
	mux.Handle("/rpc", record(a2asrv.NewJSONRPCHandler(h)))
	mux.Handle("/rest/", record(http.StripPrefix("/rest", a2asrv.NewRESTHandler(h))))
	return ta
}

// setDown makes the card not found (true) or found again.
func (ta *testAgent) setDown(down bool) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ta.down = down
}

func (ta *testAgent) cardURL() string { return ta.srv.URL + "/.well-known/agent-card.json" }

// newBridge returns a bridge that knows the agent planner.
func newBridge(t *testing.T, timeout time.Duration) *bridge.Bridge {
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(),
		Heartbeat: -1, RequestTimeout: timeout, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b.Declare(bridge.AgentSpec{ID: "planner", Dialect: Dialect})
	return b
}

// quiet is a logger that writes nothing.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// run runs the agent of spec on b until the test ends.
func run(t *testing.T, b *bridge.Bridge, s Spec) *Agent {
	s.ID = "planner"
	s.Logger = quiet()
	if s.BackoffMax == 0 {
		s.BackoffMin, s.BackoffMax = 20*time.Millisecond, 100*time.Millisecond
	}
	a := New(b, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return a
}

// awaitStatus waits until b lists planner with status.
func awaitStatus(t *testing.T, b *bridge.Bridge, status bridge.Status) bridge.AgentInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, _ := b.Agent("planner")
		if info.Status == status {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("planner is %s, not %s", info.Status, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// request returns a request from tester to planner for skill.
func request(skill, args string) canonical.Envelope {
	return canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "tester"},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "planner"},
		Operation: canonical.Operation{Name: skill}, Arguments: canonical.JSON(args)}
}

// TestAnswers: each way an A2A agent answers, over each binding, streaming
// and not, maps to its canonical answer; the skills are the agent's tools;
// the work of a task still working is told as progress.
func TestAnswers(t *testing.T) {
	type want struct {
		act    canonical.Act
		result string
		code   canonical.ErrorCode
		msg    string
	}
	cases := []struct {
		skill, args string
		want        want
		progress    []string // the descriptions of the progress told
	}{
		{"echo", `{"n":1,"s":"grüße"}`, want{act: canonical.ActResult, result: `{"n":1,"s":"grüße"}`}, nil},
		{"echo", ``, want{act: canonical.ActResult, result: `{}`}, nil},
		{"text", `{}`, want{act: canonical.ActResult, result: `{"text":"hello\nworld"}`}, nil},
		{"fail", `{}`, want{act: canonical.ActFailure, code: canonical.ErrExecutionFailed, msg: "boom"}, nil},
		{"reject", `{}`, want{act: canonical.ActFailure, code: canonical.ErrRejected, msg: "not for me"}, nil},
		{"canceled", `{}`, want{act: canonical.ActFailure, code: canonical.ErrExecutionFailed, msg: "canceled"}, nil},
		{"nosuch", `{}`, want{act: canonical.ActFailure, code: canonical.ErrRejected, msg: "A2A error UNSUPPORTED_OPERATION"}, nil},
		{"echo", `[1]`, want{act: canonical.ActFailure, code: canonical.ErrInvalidArguments, msg: "not an array"}, nil},
		{"later", `{"k":"v"}`, want{act: canonical.ActResult, result: `{"k":"v"}`}, []string{"step 1", "step 2"}},
	}
	for _, bind := range []struct {
		name      string
		binding   a2a.TransportProtocol
		streaming bool
	}{
		{"jsonrpc", a2a.TransportProtocolJSONRPC, false},
		{"jsonrpc-streaming", a2a.TransportProtocolJSONRPC, true},
		{"rest", a2a.TransportProtocolHTTPJSON, false},
		{"rest-streaming", a2a.TransportProtocolHTTPJSON, true},
	} {
		t.Run(bind.name, func(t *testing.T) {
			ta := startAgent(t, bind.binding, bind.streaming)
			b := newBridge(t, 10*time.Second)
			run(t, b, Spec{Card: ta.cardURL(), PollEvery: 50 * time.Millisecond})
			info := awaitStatus(t, b, bridge.StatusReady)
			if len(info.Tools) != len(skills) {
				t.Fatalf("tools %+v", info.Tools)
			}
			if tl := info.Tools[0]; tl.Name != "echo" || tl.Title != "Echo" || tl.Description != "Answers its arguments." {
				t.Errorf("the first tool is %+v", tl)
			}
			for _, tc := range cases {
				var mu sync.Mutex
				var told []string
				var accepted bool
				got, err := b.Call(context.Background(), request(tc.skill, tc.args), bridge.WithProgress(func(p bridge.Progress) {
					mu.Lock()
					defer mu.Unlock()
					switch p.Stage {
					case bridge.StageAccepted:
						accepted = true
					case bridge.StageEvent:
						told = append(told, p.Env.Description)
					}
				}))
				if err != nil {
					t.Fatalf("%s: %v", tc.skill, err)
				}
				if got.Act != tc.want.act || string(got.Result) != tc.want.result && tc.want.result != "" {
					t.Errorf("%s %s: %s %s, want %s %s", tc.skill, tc.args, got.Act, got.Result, tc.want.act, tc.want.result)
				}
				if tc.want.code != "" && (got.Error == nil || got.Error.Code != tc.want.code || !strings.Contains(got.Error.Message, tc.want.msg)) {
					t.Errorf("%s: error %+v, want %s %q", tc.skill, got.Error, tc.want.code, tc.want.msg)
				}
				mu.Lock()
				if tc.progress != nil {
					// The first update (submitted, or step 1) is the
					// accept; what follows is progress, each status once.
					if !accepted || !containsAll(told, tc.progress[1:]) {
						t.Errorf("%s: accepted %v, progress %q, want %q", tc.skill, accepted, told, tc.progress)
					}
				}
				mu.Unlock()
			}
		})
	}
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestInputRequired: a task that needs input is a needs-input; the
// caller's answer continues the same task.
func TestInputRequired(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		ta := startAgent(t, a2a.TransportProtocolJSONRPC, streaming)
		b := newBridge(t, 10*time.Second)
		run(t, b, Spec{Card: ta.cardURL(), PollEvery: 50 * time.Millisecond})
		awaitStatus(t, b, bridge.StatusReady)
		var asked *canonical.Envelope
		got, err := b.Call(context.Background(), request("ask", `{}`), bridge.WithInputs(func(_ context.Context, ask *canonical.Envelope) (canonical.JSON, error) {
			asked = ask
			return `{"city":"Lyon"}`, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if asked == nil || asked.Description != "which city?" || string(asked.Inputs) != `{"city":"string"}` {
			t.Errorf("streaming %v: asked %+v", streaming, asked)
		}
		var res struct{ Task, City string }
		if err := json.Unmarshal([]byte(got.Result), &res); err != nil || got.Act != canonical.ActResult || res.City != "Lyon" || res.Task == "" {
			t.Errorf("streaming %v: %s %s %+v (%v)", streaming, got.Act, got.Result, got.Error, err)
		}
	}
}

// TestCancel: a request the caller gives up, or that times out, cancels
// its task (CancelTask).
func TestCancel(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		ta := startAgent(t, a2a.TransportProtocolJSONRPC, streaming)
		b := newBridge(t, 500*time.Millisecond)
		run(t, b, Spec{Card: ta.cardURL(), PollEvery: 50 * time.Millisecond})
		awaitStatus(t, b, bridge.StatusReady)
		// Given up by its caller.
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := b.Call(ctx, request("hang", `{}`))
			errc <- err
		}()
		id := <-ta.exec.working
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("streaming %v: the call ended with %v", streaming, err)
		}
		select {
		case got := <-ta.exec.cancelled:
			if got != id {
				t.Errorf("streaming %v: cancelled %s, want %s", streaming, got, id)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("streaming %v: the task was not cancelled", streaming)
		}
		// Timed out.
		_, err := b.Call(context.Background(), request("hang", `{}`))
		var e *canonical.Error
		if !errors.As(err, &e) || e.Code != canonical.ErrTimeout {
			t.Errorf("streaming %v: the call ended with %v, want a timeout", streaming, err)
		}
		id = <-ta.exec.working
		select {
		case got := <-ta.exec.cancelled:
			if got != id {
				t.Errorf("streaming %v: cancelled %s, want %s", streaming, got, id)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("streaming %v: the timed-out task was not cancelled", streaming)
		}
	}
}

// TestCardUnreachable: the agent is UNAVAILABLE while its card does not
// resolve, READY when it does, UNAVAILABLE when it stops resolving, and
// READY again when it resolves.
func TestCardUnreachable(t *testing.T) {
	ta := startAgent(t, a2a.TransportProtocolJSONRPC, false)
	ta.setDown(true)
	b := newBridge(t, 10*time.Second)
	a := run(t, b, Spec{Card: ta.cardURL(), WatchEvery: 50 * time.Millisecond})
	awaitStatus(t, b, bridge.StatusUnavailable)
	ta.setDown(false)
	awaitStatus(t, b, bridge.StatusReady)
	if a.Restarts() == 0 {
		t.Error("no restart counted")
	}
	ta.setDown(true)
	awaitStatus(t, b, bridge.StatusUnavailable)
	ta.setDown(false)
	awaitStatus(t, b, bridge.StatusReady)
}

// TestHeaders: the spec's headers go with the card's request and every
// call, with the request's trace context.
func TestHeaders(t *testing.T) {
	ta := startAgent(t, a2a.TransportProtocolJSONRPC, false)
	b := newBridge(t, 10*time.Second)
	run(t, b, Spec{Card: ta.cardURL(), Headers: map[string]string{"Authorization": "Bearer s3cret", "X-Team": "blue"}})
	awaitStatus(t, b, bridge.StatusReady)
	req := request("echo", `{}`)
	req.Trace = canonical.Trace{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}
	if _, err := b.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	h := <-ta.headers
	if h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Team") != "blue" {
		t.Errorf("headers %v", h)
	}
	if tp := h.Get("Traceparent"); !strings.HasPrefix(tp, "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
		t.Errorf("traceparent %q", tp)
	}
}
