package bridge

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestTimeoutFor(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		env  canonical.Envelope
		want time.Duration
	}{
		{"default", canonical.Envelope{}, 30 * time.Second},
		{"ttl", canonical.Envelope{TTL: canonical.Dur(1500 * time.Millisecond)}, 1500 * time.Millisecond},
		{"zero ttl is unset", canonical.Envelope{TTL: canonical.Dur(0)}, 30 * time.Second},
		{"deadline", canonical.Envelope{Deadline: "2026-11-21T10:00:05Z"}, 5 * time.Second},
		{"passed deadline", canonical.Envelope{Deadline: "2026-11-21T09:00:00Z"}, time.Millisecond},
		{"ttl beats deadline", canonical.Envelope{TTL: canonical.Dur(time.Second), Deadline: "2026-11-21T10:00:05Z"}, time.Second},
		{"unparsable deadline", canonical.Envelope{Deadline: "YYYY-MM-DDTHH:MM:SSZ"}, 30 * time.Second},
	} {
		if got := timeoutFor(&tc.env, 30*time.Second, now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPendingTable(t *testing.T) {
	tb := newPendingTable()
	a, b := &agent{id: "a"}, &agent{id: "b"}
	s := &Session{}
	never := func() { t.Error("a timer fired") }
	p1 := &pending{requester: s, taskID: "T-1", id: "m-1", receiver: a}
	tok, replaced := tb.open(p1, time.Hour, never)
	if replaced != nil || tok == "" {
		t.Fatalf("open: %q %v", tok, replaced)
	}
	// A second request of the same requester with the same task id takes
	// over the token.
	p2 := &pending{requester: s, taskID: "T-1", id: "m-2", receiver: a}
	if tok2, replaced := tb.open(p2, time.Hour, never); tok2 != tok || replaced != p1 {
		t.Errorf("same task: token %q (want %q), replaced %v", tok2, tok, replaced)
	}
	if tb.count() != 1 {
		t.Errorf("%d open, want 1", tb.count())
	}
	// Only the receiver's message with the token matches; an interim one
	// keeps the request open, a final one closes it.
	if tb.match(b, &canonical.Envelope{InReplyTo: tok}, true) != nil {
		t.Error("another agent's message matched")
	}
	if tb.match(a, &canonical.Envelope{TaskID: tok}, false) != p2 || tb.count() != 1 {
		t.Error("interim message did not match, or closed the request")
	}
	if tb.match(a, &canonical.Envelope{CorrelationID: tok}, true) != p2 || tb.count() != 0 {
		t.Error("final message did not match and close")
	}
	if tb.take(p2) {
		t.Error("a closed request was taken again")
	}
	// A timer closes its request and runs the expiry once.
	fired := make(chan struct{})
	p3 := &pending{requester: s, receiver: b}
	tb.open(p3, time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer never fired")
	}
	if tb.count() != 0 || tb.take(p3) {
		t.Error("an expired request is still open")
	}
}

func TestRestore(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *pending
		want string
	}{
		{"reply_with first", &pending{replyWith: "rw", id: "id", taskID: "t"}, "rw"},
		{"then the id", &pending{id: "id", taskID: "t"}, "id"},
		{"bluelabel: the task", &pending{taskID: "T"}, "T"},
	} {
		env := canonical.Envelope{InReplyTo: "TOKEN", TaskID: "TOKEN", Trace: canonical.Trace{}}
		tc.p.sender = canonical.Party{ID: "req"}
		tc.p.trace = canonical.Trace{TraceID: "tr"}
		tc.p.restore(&env)
		if env.InReplyTo != tc.want || env.TaskID != tc.p.taskID || env.Receiver.ID != "req" || env.Trace.TraceID != "tr" {
			t.Errorf("%s: %+v", tc.name, env)
		}
	}
}
