package event_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// recorder keeps every event the bridge emits, as "kind agent" lines.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) Handle(e event.Event) {
	if e.Kind == event.Status || e.Kind == event.Copied {
		return // told as agents come and go; pinned by TestStatusEvents
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// all returns the events recorded so far.
func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// lines returns what was recorded so far, one "kind agent" line an event.
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.Kind.String() + " " + e.Agent
	}
	return out
}

// await waits until the line want was recorded.
func (r *recorder) await(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(r.lines(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q among the events:\n%s", want, strings.Join(r.lines(), "\n"))
		}
		time.Sleep(time.Millisecond)
	}
}

// check asserts that the events recorded are those of all, in some
// order, and that each chain's events came in its order.
func (r *recorder) check(t *testing.T, all []string, chains ...[]string) {
	t.Helper()
	got := r.lines()
	if a, b := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(all)); !slices.Equal(a, b) {
		t.Fatalf("events:\n%s\nwant, in some order:\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	for _, c := range chains {
		at := -1
		for _, want := range c {
			i := slices.Index(got[at+1:], want)
			if i < 0 {
				t.Fatalf("events:\n%s\nwant %v in that order", strings.Join(got, "\n"), c)
			}
			at += 1 + i
		}
	}
}

func setup(t *testing.T, opts bridge.Options) (*bridge.Bridge, *recorder, *bridgetest.Agent, *bridgetest.Agent) {
	b, _ := bridgetest.New(t, opts)
	responder := bridgetest.Attach(t, b, "collab", "responder", nil)
	asker := bridgetest.Attach(t, b, "swarm", "asker", nil)
	rec := &recorder{}
	t.Cleanup(b.Subscribe(rec))
	return b, rec, asker, responder
}

func swarmRequest(id, to string) []byte {
	return []byte(fmt.Sprintf(`{"message_id":%q,"message_type":"request","sender_id":"asker","receiver_id":%q,"timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"echo","arguments":{"x":1}}}`, id, to))
}

// TestRequestAnswerEvents: a request and its answer are each received,
// translated for their receiver and delivered; the request is answered
// before its answer is translated for the requester.
func TestRequestAnswerEvents(t *testing.T) {
	_, rec, asker, responder := setup(t, bridge.Options{})
	if r := asker.Session.Receive(swarmRequest("m-1", "responder")); r.Err != nil {
		t.Fatal(r.Err)
	}
	rec.await(t, "delivered responder")
	rec.await(t, "handled ")
	req := <-responder.Got
	answer := bridgetest.Reply(req, canonical.ActResult)
	answer.Outcome, answer.Result = canonical.OutcomeSuccess, req.Arguments
	responder.Say(answer)
	rec.await(t, "delivered asker")
	rec.check(t,
		[]string{"received asker", "translated responder", "delivered responder", "handled ",
			"received responder", "answered asker", "translated asker", "delivered asker", "handled "},
		[]string{"received asker", "translated responder", "delivered responder"},
		[]string{"translated responder", "handled "},
		[]string{"received responder", "answered asker", "translated asker", "delivered asker"},
		[]string{"received responder", "answered asker", "handled "},
	)
	for _, e := range rec.all() {
		if e.Kind == event.Answered && (e.To != "responder" || e.ByBridge || e.Err != nil || e.Duration <= 0) {
			t.Errorf("answered: %+v", e)
		}
		if e.Kind == event.Delivered && e.Agent == "responder" && (e.Note.Sender != "asker" || e.Note.Act != canonical.ActRequest || e.Dialect != "collab" || len(e.Frame) == 0) {
			t.Errorf("request delivered: %+v", e)
		}
	}
}

// TestRefusalEvents: a request for an agent the bridge does not know is
// received, refused and handled; a frame that is not JSON is refused as
// it is read, and never received.
func TestRefusalEvents(t *testing.T) {
	_, rec, asker, _ := setup(t, bridge.Options{})
	if r := asker.Session.Receive(swarmRequest("m-1", "nobody")); r.Err == nil || r.Err.Code != canonical.ErrNotFound {
		t.Fatalf("receipt %+v, want not found", r)
	}
	if r := asker.Session.Receive([]byte("not json")); r.Err == nil || r.Err.Code != canonical.ErrInvalidMessage {
		t.Fatalf("receipt %+v, want invalid message", r)
	}
	all := []string{"received asker", "refused asker", "handled ", "refused asker"}
	rec.check(t, all, all)
	seen := rec.all()
	refused := seen[len(seen)-1]
	if refused.Env != nil || string(refused.Input) != "not json" || !strings.Contains(string(refused.Frame), `"message_type":"error"`) ||
		refused.Dialect != "swarm" || refused.Transport != "test" {
		t.Errorf("the malformed frame's refusal: %+v", refused)
	}
}

// TestExpiryEvents: a request nobody answers in time expires, and is
// answered by the bridge's timeout error, delivered to its requester.
func TestExpiryEvents(t *testing.T) {
	_, rec, asker, _ := setup(t, bridge.Options{RequestTimeout: 50 * time.Millisecond, Retry: &bridge.RetryPolicy{}})
	if r := asker.Session.Receive(swarmRequest("m-1", "responder")); r.Err != nil {
		t.Fatal(r.Err)
	}
	rec.await(t, "delivered asker")
	rec.check(t,
		[]string{"received asker", "translated responder", "delivered responder", "handled ",
			"expired asker", "answered asker", "translated asker", "delivered asker"},
		[]string{"received asker", "translated responder", "delivered responder", "expired asker", "answered asker", "translated asker", "delivered asker"},
		[]string{"translated responder", "handled ", "expired asker"},
	)
	for _, e := range rec.all() {
		switch e.Kind {
		case event.Expired:
			if e.To != "responder" || e.Duration != 50*time.Millisecond {
				t.Errorf("expired: %+v", e)
			}
		case event.Answered:
			if !e.ByBridge || e.Err == nil || e.Err.Code != canonical.ErrTimeout {
				t.Errorf("answered: %+v", e)
			}
		}
	}
}

// TestStatusEvents: an agent that connects is READY (from STOPPED, the
// status of an agent the bridge has not seen), one that leaves STOPPED,
// each told once, in that order.
func TestStatusEvents(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{})
	var mu sync.Mutex
	var got []string
	t.Cleanup(b.Subscribe(event.Func(func(e event.Event) {
		if e.Kind == event.Status {
			mu.Lock()
			got = append(got, e.Agent+" "+e.Change.Previous+"->"+e.Change.Status)
			mu.Unlock()
		}
	})))
	a := bridgetest.Attach(t, b, "fuse", "comer", nil)
	a.Session.Detach()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"comer STOPPED->READY", "comer READY->STOPPED"}; !slices.Equal(got, want) {
		t.Errorf("status events %q, want %q", got, want)
	}
}
