package route_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// newRouter returns a router with the built-in dialects and the default
// breakers, its event stream in events.
func newRouter(t *testing.T, timeout time.Duration) *route.Router {
	t.Helper()
	return newRouterEvents(t, timeout, &event.Stream{})
}

func newRouterEvents(t *testing.T, timeout time.Duration, events *event.Stream) *route.Router {
	t.Helper()
	m, err := metrics.New(nil, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	r, err := route.New(route.Config{ID: "mcp-bridge", Registry: builtin.Default(), Mappings: dialects.DefaultMappings(),
		RequestTimeout: timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m,
		Events: events, Redactor: &redact.Redactor{}, Breaker: resilience.DefaultBreakerPolicy})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// agent is an endpoint of envelopes: what the router delivers to it is
// kept, and answered by its script from a goroutine of its own.
type agent struct {
	r       *route.Router
	a       *route.Agent
	got     chan *canonical.Envelope
	refused chan *canonical.Error
	script  func(env *canonical.Envelope) *canonical.Envelope
}

// connect binds a new agent id of dialect to r, READY.
func connect(t *testing.T, r *route.Router, id, dialect string, script func(*canonical.Envelope) *canonical.Envelope) *agent {
	t.Helper()
	ag := &agent{r: r, got: make(chan *canonical.Envelope, 16), refused: make(chan *canonical.Error, 16), script: script}
	a, _, err := r.Directory().Bind(id, ag, directory.BindOptions{Dialect: dialect, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	ag.a = a
	r.Directory().SetStatus(a, directory.StatusReady, "connected")
	return ag
}

func (ag *agent) Transport() string   { return "test" }
func (ag *agent) Bound() *route.Agent { return ag.a }
func (ag *agent) Prompt() bool        { return false }

func (ag *agent) Deliver(o *route.Outgoing) (*delivery.Outbound, *canonical.Error) {
	env := *o.Env
	ag.got <- &env
	if o.Sent != nil {
		o.Sent()
	}
	if ag.script != nil {
		if answer := ag.script(&env); answer != nil {
			go ag.r.Submit(ag, answer)
		}
	}
	return nil, nil
}

func (ag *agent) Refuse(_ *canonical.Envelope, e *canonical.Error) route.Receipt {
	ag.refused <- e
	return route.Receipt{Err: e}
}

// echo answers a request with its arguments.
func echo(req *canonical.Envelope) *canonical.Envelope {
	if req.Act != canonical.ActRequest {
		return nil
	}
	return &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Sender: canonical.Party{ID: req.Receiver.ID},
		InReplyTo: req.ID, Result: req.Arguments, Origin: canonical.Origin{Dialect: "swarm"}}
}

func request(from, to, op string) canonical.Envelope {
	return canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: from},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: to},
		Operation: canonical.Operation{Name: op}, Arguments: `{"x":1}`}
}

// TestCall: a call reaches its receiver under a token of the router's,
// and the answer comes back to the caller in the caller's terms.
func TestCall(t *testing.T) {
	r := newRouter(t, time.Second)
	adder := connect(t, r, "adder", "swarm", echo)
	req := request("caller", "adder", "add")
	req.ID = "c-1"
	got, err := r.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Act != canonical.ActResult || string(got.Result) != `{"x":1}` || got.InReplyTo != "c-1" {
		t.Errorf("answer %+v", got)
	}
	delivered := <-adder.got
	if delivered.ID == "c-1" || delivered.ID == "" {
		t.Errorf("the request went out as %q, want a token of the router's", delivered.ID)
	}
	if r.Requests().Count() != 0 {
		t.Errorf("%d requests still open", r.Requests().Count())
	}
}

// TestTimeout: a request nobody answers is answered by the router's
// timeout error, after its Expired event.
func TestTimeout(t *testing.T) {
	events := &event.Stream{}
	var kinds []event.Kind
	events.Subscribe(event.Func(func(e event.Event) {
		if e.Kind == event.Expired || e.Kind == event.Answered {
			kinds = append(kinds, e.Kind)
		}
	}))
	r := newRouterEvents(t, 30*time.Millisecond, events)
	connect(t, r, "silent", "collab", nil)
	_, err := r.Call(context.Background(), request("caller", "silent", "wait"))
	var e *canonical.Error
	if !errors.As(err, &e) || e.Code != canonical.ErrTimeout {
		t.Fatalf("error %v, want a timeout", err)
	}
	if len(kinds) != 2 || kinds[0] != event.Expired || kinds[1] != event.Answered {
		t.Errorf("events %v, want expired then answered", kinds)
	}
}

// TestRefusals: a request for an unknown agent, or one sent once the
// router is closed, is refused to its sender's endpoint with the error a
// requester can act on.
func TestRefusals(t *testing.T) {
	r := newRouter(t, time.Second)
	asker := connect(t, r, "asker", "swarm", nil)
	connect(t, r, "there", "swarm", echo)
	for _, tc := range []struct {
		name      string
		to        string
		close     bool
		code      canonical.ErrorCode
		retryable bool
	}{
		{"unknown receiver", "nobody", false, canonical.ErrNotFound, false},
		{"closed router", "there", true, canonical.ErrUnavailable, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.close {
				r.Close()
			}
			req := request("asker", tc.to, "add")
			req.ID = "m-" + tc.name
			rc := r.Submit(asker, &req)
			if rc.Err == nil || rc.Err.Code != tc.code {
				t.Fatalf("receipt %+v, want %s", rc, tc.code)
			}
			if got := rc.Err.Retryable != nil && *rc.Err.Retryable; got != tc.retryable {
				t.Errorf("retryable %v, want %v", got, tc.retryable)
			}
			if e := <-asker.refused; e.Code != tc.code {
				t.Errorf("the sender was told %s", e.Code)
			}
		})
	}
}

// TestByCapability: a request that names no receiver goes, round robin,
// to the agents that declared its operation.
func TestByCapability(t *testing.T) {
	r := newRouter(t, time.Second)
	var agents []*agent
	for _, id := range []string{"one", "two"} {
		ag := connect(t, r, id, "swarm", echo)
		r.Directory().Learn(ag.a, &canonical.Capabilities{Tools: []canonical.Tool{{Name: "add"}}})
		agents = append(agents, ag)
	}
	connect(t, r, "other", "swarm", echo)
	for range 4 {
		req := request("caller", "", "add")
		req.Receiver = canonical.Address{}
		if _, err := r.Call(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	for _, ag := range agents {
		if n := len(ag.got); n != 2 {
			t.Errorf("%s got %d of 4 requests, want 2", ag.a.ID(), n)
		}
	}
}

// TestDuplicateRequest: a request its sender sends again while the first
// is open is not delivered again; both copies get the one answer.
func TestDuplicateRequest(t *testing.T) {
	r := newRouter(t, time.Second)
	asker := connect(t, r, "asker", "swarm", nil)
	slow := connect(t, r, "slow", "swarm", nil)
	req := request("asker", "slow", "add")
	req.ID = "dup-1"
	for i := range 2 {
		c := req
		if rc := r.Submit(asker, &c); rc.Err != nil || !rc.Awaiting {
			t.Fatalf("copy %d: receipt %+v", i+1, rc)
		}
	}
	delivered := <-slow.got
	select {
	case again := <-slow.got:
		t.Fatalf("the copy was delivered too: %+v", again)
	case <-time.After(50 * time.Millisecond):
	}
	r.Submit(slow, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Sender: canonical.Party{ID: "slow"},
		InReplyTo: delivered.ID, Result: `{}`})
	for i := range 2 {
		select {
		case a := <-asker.got:
			if a.Act != canonical.ActResult || a.InReplyTo != "dup-1" {
				t.Errorf("answer %d: %+v", i+1, a)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("answer %d never came", i+1)
		}
	}
}

// TestTopics: an agent subscribes to a topic through the bridge's own
// subscribe operation, and an event to the topic reaches it, not others.
func TestTopics(t *testing.T) {
	r := newRouter(t, time.Second)
	fan := connect(t, r, "fan", "swarm", nil)
	other := connect(t, r, "other", "swarm", nil)
	sender := connect(t, r, "sender", "swarm", nil)
	sub := canonical.Envelope{ID: "s-1", Act: canonical.ActRequest, Sender: canonical.Party{ID: "fan"},
		Operation: canonical.Operation{Name: "subscribe"}, Arguments: `{"topic":"news"}`}
	r.Submit(fan, &sub)
	if ok := <-fan.got; ok.Act != canonical.ActResult || string(ok.Result) != `{"subscribed":"news"}` {
		t.Fatalf("subscribe answered %+v", ok)
	}
	ev := canonical.Envelope{ID: "e-1", Act: canonical.ActEvent, Sender: canonical.Party{ID: "sender"},
		Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "news"}, Operation: canonical.Operation{Name: "update"}}
	r.Submit(sender, &ev)
	if got := <-fan.got; got.ID != "e-1" {
		t.Errorf("the subscriber got %+v", got)
	}
	if n := len(other.got) + len(sender.got); n != 0 {
		t.Errorf("%d copies of the event went to agents that did not subscribe", n)
	}
}
