package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// newTestBridge returns a bridge with the built-in dialects, its metrics in
// the registry it returns; it shuts down when the test ends.
func newTestBridge(t testing.TB, opts Options) (*Bridge, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Registry, opts.Mappings, opts.Metrics = builtin.Default(), dialects.DefaultMappings(), reg
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = -1
	}
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	return b, reg
}

// scripted is an agent on an in-process link: each message the bridge
// sends it is decoded and handed to its script, whose answers are encoded
// in its dialect and received from it.
type scripted struct {
	t      testing.TB
	codec  dialects.Codec
	s      *Session
	script func(env *canonical.Envelope) []*canonical.Envelope
	got    chan *canonical.Envelope // every message the bridge sent it
}

// attachScripted connects a scripted agent id of dialect to b.
func attachScripted(t testing.TB, b *Bridge, dialect, id string, script func(*canonical.Envelope) []*canonical.Envelope) *scripted {
	t.Helper()
	c, _ := b.Registry().Lookup(dialect)
	a := &scripted{t: t, codec: c, script: script, got: make(chan *canonical.Envelope, 64)}
	s, err := b.Attach(a, AttachOptions{Dialect: dialect, AgentID: id})
	if err != nil {
		t.Fatal(err)
	}
	a.s = s
	t.Cleanup(s.Detach)
	return a
}

func (a *scripted) Transport() string { return "test" }

func (a *scripted) Send(_ context.Context, out Outbound) error {
	env, err := a.codec.Decode(append([]byte(nil), out.Frame...))
	if err != nil {
		a.t.Errorf("the bridge sent %s a frame that does not decode: %v\n%s", a.codec.Name(), err, out.Frame)
		return nil
	}
	select {
	case a.got <- env:
	default: // nobody reads: a benchmark
	}
	if a.script != nil {
		go func() { a.say(a.script(env)...) }()
	}
	return nil
}

// say sends envs from the agent to the bridge.
func (a *scripted) say(envs ...*canonical.Envelope) {
	for _, e := range envs {
		frame, err := a.codec.Encode(nil, e, &dialects.EncodeContext{})
		if err != nil {
			a.t.Errorf("%s cannot encode %+v: %v", a.codec.Name(), e, err)
			return
		}
		if r := a.s.Receive(frame); r.Err != nil {
			a.t.Errorf("the bridge refused %s: %v", frame, r.Err)
		}
	}
}

// reply returns an answer of act to req, from its receiver.
func reply(req *canonical.Envelope, act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		ID: "r-" + req.ID, Act: act, Sender: canonical.Party{ID: req.Receiver.ID},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID},
		InReplyTo: correlation.FirstOf(req.ReplyWith, req.ID), CorrelationID: req.ID, TaskID: req.TaskID,
	}
}

// echo answers every request with its arguments as the result.
func echo(env *canonical.Envelope) []*canonical.Envelope {
	if env.Act != canonical.ActRequest {
		return nil
	}
	r := reply(env, canonical.ActResult)
	r.Outcome, r.Result = canonical.OutcomeSuccess, env.Arguments
	return []*canonical.Envelope{r}
}

func request(receiver, tool, args string) canonical.Envelope {
	return canonical.Envelope{
		Act: canonical.ActRequest, Sender: canonical.Party{ID: "mcp-client"},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: receiver},
		Operation: canonical.Operation{Name: tool}, Arguments: canonical.JSON(args),
	}
}

func TestCall(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	for _, d := range []string{"elizaacl", "collab", "fuse", "swarm", "bluelabel"} {
		id := d + "-agent"
		if d == "bluelabel" {
			id = "BLUELABEL-AGENT"
		}
		a := attachScripted(t, b, d, id, echo)
		ans, err := b.Call(context.Background(), request(id, "echo", `{"text":"hi"}`))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if ans.Act != canonical.ActResult || ans.Sender.ID != id || !strings.Contains(string(ans.Result), `"hi"`) {
			t.Errorf("%s: answer %+v", d, ans)
		}
		if got := <-a.got; got.Sender.ID != "mcp-client" && d != "bluelabel" {
			t.Errorf("%s: the agent saw the sender %q, want mcp-client", d, got.Sender.ID)
		}
	}
	if n := b.pending.Count(); n != 0 {
		t.Errorf("%d requests still open", n)
	}
}

// TestCallByCapability: a call that names no receiver goes to an agent
// that declared its operation.
func TestCallByCapability(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	b.Declare(AgentSpec{ID: "sentiment-agent", Dialect: "swarm", Tools: []canonical.Tool{{Name: "sentiment"}}})
	attachScripted(t, b, "swarm", "sentiment-agent", echo)
	req := request("", "sentiment", `{"text":"good"}`)
	req.Receiver = canonical.Address{}
	ans, err := b.Call(context.Background(), req)
	if err != nil || ans.Sender.ID != "sentiment-agent" {
		t.Fatalf("answer %+v, %v", ans, err)
	}
}

// TestCallErrors: the agent's failure is an answer; the bridge's own
// refusals are errors.
func TestCallErrors(t *testing.T) {
	b, _ := newTestBridge(t, Options{Retry: &RetryPolicy{}})
	attachScripted(t, b, "swarm", "failing", func(env *canonical.Envelope) []*canonical.Envelope {
		r := reply(env, canonical.ActFailure)
		r.Outcome, r.Error = canonical.OutcomeFailure, &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "it broke"}
		return []*canonical.Envelope{r}
	})
	attachScripted(t, b, "swarm", "mute", nil)
	b.Declare(AgentSpec{ID: "offline", Dialect: "swarm"})

	ans, err := b.Call(context.Background(), request("failing", "x", `{}`))
	if err != nil || ans.Act != canonical.ActFailure || ans.Error == nil || ans.Error.Message != "it broke" {
		t.Errorf("failing agent: %+v, %v", ans, err)
	}
	for _, tc := range []struct {
		name string
		req  canonical.Envelope
		code canonical.ErrorCode
		text string
	}{
		{"unknown", request("nobody", "x", `{}`), canonical.ErrNotFound, `no agent "nobody"`},
		{"not connected", request("offline", "x", `{}`), canonical.ErrUnavailable, "offline is not connected"},
		{"timeout", func() canonical.Envelope {
			r := request("mute", "x", `{}`)
			r.TTL = canonical.Dur(50 * time.Millisecond)
			return r
		}(), canonical.ErrTimeout, "no answer from mute within 50ms"},
	} {
		_, err := b.Call(context.Background(), tc.req)
		var e *canonical.Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.text) {
			t.Errorf("%s: %v, want %s (%s)", tc.name, err, tc.code, tc.text)
		}
	}
	if _, err := b.Call(context.Background(), canonical.Envelope{Act: canonical.ActEvent}); err == nil {
		t.Error("Call took an event")
	}
}

// TestCallCancel: a call whose context ends gives up its request; the
// agent's late answer is dropped and counted, and the agent is not
// answered with an error.
func TestCallCancel(t *testing.T) {
	b, reg := newTestBridge(t, Options{})
	a := attachScripted(t, b, "swarm", "slow", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.Call(ctx, request("slow", "x", `{}`))
		done <- err
	}()
	req := <-a.got
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	if n := b.pending.Count(); n != 0 {
		t.Fatalf("%d requests open after the cancellation", n)
	}
	r := reply(req, canonical.ActResult)
	r.Outcome, r.Result = canonical.OutcomeSuccess, `{"late":true}`
	a.say(r)
	want := "# HELP bridge_late_answers_total Answers that came after their request was closed (timed out, cancelled, answered) and were dropped.\n" +
		"# TYPE bridge_late_answers_total counter\nbridge_late_answers_total 1\n"
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bridge_late_answers_total"); err != nil {
		t.Error(err)
	}
	select {
	case env := <-a.got:
		t.Errorf("the agent was sent %s after its late answer", env.Act)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestCallProgress: the caller hears of the delivery, the agent's accept
// and its events about the request, then gets the answer.
func TestCallProgress(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	attachScripted(t, b, "elizaacl", "worker", func(env *canonical.Envelope) []*canonical.Envelope {
		if env.Act != canonical.ActRequest {
			return nil
		}
		accept := reply(env, canonical.ActAccept)
		accept.ID = "accept-1"
		return append([]*canonical.Envelope{accept}, echo(env)...)
	})
	var mu sync.Mutex
	var stages []string
	_, err := b.Call(context.Background(), request("worker", "x", `{}`), WithProgress(func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, p.Stage)
	}))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The delivery is told when the link took the request; the agent may
	// have accepted it by then.
	if len(stages) != 2 || !contains(stages, StageDelivered) || !contains(stages, StageAccepted) {
		t.Errorf("stages %v, want delivered and accepted", stages)
	}
}

// TestCallEventProgress: an event the agent sends about the request (its
// correlation id the request's) is progress for the caller.
func TestCallEventProgress(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	attachScripted(t, b, "swarm", "worker", func(env *canonical.Envelope) []*canonical.Envelope {
		if env.Act != canonical.ActRequest {
			return nil
		}
		ev := reply(env, canonical.ActEvent)
		ev.ID, ev.Operation, ev.Arguments = "ev-1", canonical.Operation{Name: "progress"}, `{"progress":50}`
		return append([]*canonical.Envelope{ev}, echo(env)...)
	})
	events := make(chan *canonical.Envelope, 4)
	if _, err := b.Call(context.Background(), request("worker", "x", `{}`), WithProgress(func(p Progress) {
		if p.Stage == StageEvent {
			events <- p.Env
		}
	})); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if !strings.Contains(string(ev.Arguments), `"progress":50`) {
			t.Errorf("event %+v", ev)
		}
	default:
		t.Error("the event about the request was not told")
	}
}

// TestCallInputs: a bluelabel agent's needs_input is asked of the caller;
// the inputs go back as the same task, and the call ends with the result.
func TestCallInputs(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	var tasks []string
	var mu sync.Mutex
	attachScripted(t, b, "bluelabel", "PLANNER", func(env *canonical.Envelope) []*canonical.Envelope {
		if env.Act != canonical.ActRequest {
			return nil
		}
		mu.Lock()
		tasks = append(tasks, env.TaskID)
		mu.Unlock()
		if !strings.Contains(string(env.Arguments), "budget") {
			ask := reply(env, canonical.ActNeedsInput)
			ask.Inputs = `[{"id":"budget","description":"the budget in EUR","type":"number"}]`
			return []*canonical.Envelope{ask}
		}
		return echo(env)
	})
	asked := 0
	ans, err := b.Call(context.Background(), request("PLANNER", "plan", `{"goal":"a trip"}`),
		WithInputs(func(_ context.Context, ask *canonical.Envelope) (canonical.JSON, error) {
			asked++
			if !strings.Contains(string(ask.Inputs), "budget") {
				t.Errorf("asked %s", ask.Inputs)
			}
			return `{"goal":"a trip","budget":300}`, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || !strings.Contains(string(ans.Result), "300") {
		t.Errorf("asked %d times, answer %+v", asked, ans)
	}
	mu.Lock()
	if len(tasks) != 2 || tasks[0] != tasks[1] || tasks[0] == "" {
		t.Errorf("the agent saw tasks %q, want the same task twice", tasks)
	}
	mu.Unlock()
	// Without WithInputs, needs_input is the call's answer.
	ans, err = b.Call(context.Background(), request("PLANNER", "plan", `{}`))
	if err != nil || ans.Act != canonical.ActNeedsInput || ans.Inputs == "" {
		t.Errorf("without inputs: %+v, %v", ans, err)
	}
	if n := b.pending.Count(); n != 0 {
		t.Errorf("%d requests open", n)
	}
}

func TestSend(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	sub := attachScripted(t, b, "collab", "watcher", nil)
	b.dir.Subscribe(sub.s.Bound(), "news", true)
	ev := canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: "mcp-client"},
		Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "news"}, Operation: canonical.Operation{Name: "headline"},
		Arguments: `{"text":"hello"}`}
	if err := b.Send(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	got := <-sub.got
	if got.Act != canonical.ActEvent || !strings.Contains(string(got.Arguments), "hello") {
		t.Errorf("the subscriber got %+v", got)
	}
	var e *canonical.Error
	ev.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: "nobody"}
	if err := b.Send(context.Background(), ev); !errors.As(err, &e) || e.Code != canonical.ErrNotFound {
		t.Errorf("to nobody: %v", err)
	}
	if err := b.Send(context.Background(), request("watcher", "x", "{}")); err == nil {
		t.Error("Send took a request")
	}
}

// TestCallDedupe: a call or message whose id the bridge made is not kept
// for duplicate suppression (nothing sent before can carry it, and it would
// push the agents' messages out of the table); one whose caller gave the id
// is, and a second call with that id is handled as a repeat.
func TestCallDedupe(t *testing.T) {
	for _, tc := range []struct {
		name        string
		id          string
		wantEntries float64
		wantRepeat  bool // the second call is refused as a repeat
	}{
		{name: "the bridge's ids", wantEntries: 0},
		{name: "the caller's id", id: "call-1", wantEntries: 1, wantRepeat: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, reg := newTestBridge(t, Options{})
			attachScripted(t, b, "swarm", "adder", echo)
			req := request("adder", "add", `{"a":1,"b":2}`)
			req.ID = tc.id
			if _, err := b.Call(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if got := tableSize(t, reg, "dedupe_entries"); got != tc.wantEntries {
				t.Errorf("dedupe entries after one call: %v, want %v", got, tc.wantEntries)
			}
			_, err := b.Call(context.Background(), req)
			var e *canonical.Error
			if repeat := errors.As(err, &e) && e.Code == canonical.ErrRejected; repeat != tc.wantRepeat {
				t.Errorf("the second call: %v, want it refused as a repeat: %v", err, tc.wantRepeat)
			}
			ev := canonical.Envelope{ID: tc.id, Act: canonical.ActEvent, Sender: canonical.Party{ID: "mcp-client"},
				Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "adder"}, Operation: canonical.Operation{Name: "tick"}}
			if tc.id != "" {
				ev.ID = tc.id + "-event"
			}
			if err := b.Send(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			if got, want := tableSize(t, reg, "dedupe_entries"), 2*tc.wantEntries; got != want {
				t.Errorf("dedupe entries after a message sent: %v, want %v", got, want)
			}
		})
	}
}

// tableSize returns the bridge_table_size of table in reg.
func tableSize(t *testing.T, reg *prometheus.Registry, table string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "bridge_table_size" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "table" && l.GetValue() == table {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no bridge_table_size for %s", table)
	return 0
}

// TestIdentity: ids are resolved once where a message enters; bluelabel's
// upper case reaches the one agent it names; nobody speaks as the bridge.
func TestIdentity(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	planner := attachScripted(t, b, "swarm", "planner", echo)
	from := attachScripted(t, b, "bluelabel", "EDDY", nil)
	from.say(&canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "EDDY"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "PLANNER"}, TaskID: "T-1",
		Operation: canonical.Operation{Name: "plan"}, Arguments: `{}`})
	if got := <-planner.got; got.Receiver.ID != "planner" || got.Sender.ID != "EDDY" {
		t.Errorf("planner got %+v", got)
	}
	if ans := <-from.got; ans.Act != canonical.ActResult || ans.TaskID != "T-1" {
		t.Errorf("EDDY got %+v", ans)
	}
	if _, err := b.Attach(&scripted{}, AttachOptions{Dialect: "collab", AgentID: "mcp-bridge"}); err == nil ||
		!strings.Contains(err.Error(), "bridge's own id") {
		t.Errorf("binding as the bridge: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
