package correlation

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
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
		if got := TimeoutFor(&tc.env, 30*time.Second, now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// agent is a receiver that counts its requests in flight.
type agent struct {
	id       string
	inflight int32
}

func (a *agent) ID() string           { return a.id }
func (a *agent) Inflight(delta int32) { a.inflight += delta }

// requester stands for the bridge's requesters.
type requester struct{ name string }

type req = Request[*requester, *agent]

func TestTable(t *testing.T) {
	tb := NewTable[*requester, *agent](0)
	a, b := &agent{id: "a"}, &agent{id: "b"}
	s := &requester{"s"}
	fired := make(chan *req, 1)
	tb.OnExpiry(func(p *req, _ time.Duration) { fired <- p })
	p1 := &req{Requester: s, TaskID: "T-1", ID: "m-1", Receiver: a}
	tok, replaced, _ := tb.Open(p1, time.Hour)
	if replaced != nil || tok == "" {
		t.Fatalf("open: %q %v", tok, replaced)
	}
	// A second request of the same requester with the same task id takes
	// over the token.
	p2 := &req{Requester: s, TaskID: "T-1", ID: "m-2", Receiver: a}
	if tok2, replaced, _ := tb.Open(p2, time.Hour); tok2 != tok || replaced != p1 {
		t.Errorf("same task: token %q (want %q), replaced %v", tok2, tok, replaced)
	}
	if tb.Count() != 1 || a.inflight != 1 {
		t.Errorf("%d open, %d in flight to a; want 1 and 1", tb.Count(), a.inflight)
	}
	if tb.Late(&canonical.Envelope{InReplyTo: tok}) {
		t.Error("a token taken over counts as closed")
	}
	// Only the receiver's message with the token matches; an interim one
	// keeps the request open, a final one closes it.
	if tb.Match(b, &canonical.Envelope{InReplyTo: tok}, true) != nil {
		t.Error("another agent's message matched")
	}
	if tb.Match(a, &canonical.Envelope{TaskID: tok}, false) != p2 || tb.Count() != 1 {
		t.Error("interim message did not match, or closed the request")
	}
	if tb.Match(a, &canonical.Envelope{CorrelationID: tok}, true) != p2 || tb.Count() != 0 || a.inflight != 0 {
		t.Error("final message did not match and close")
	}
	if tb.Take(p2) {
		t.Error("a closed request was taken again")
	}
	// A closed request's token is remembered: a second answer is late.
	if !tb.Late(&canonical.Envelope{CorrelationID: tok}) {
		t.Error("an answer to a closed request is not late")
	}
	if tb.Late(&canonical.Envelope{InReplyTo: "never-issued"}) || tb.Late(&canonical.Envelope{}) {
		t.Error("a stray message counts as late")
	}
	// A timer closes its request and tells the table's handler, once.
	p3 := &req{Requester: s, Receiver: b}
	tok3, _, _ := tb.Open(p3, time.Millisecond)
	select {
	case p := <-fired:
		if p != p3 {
			t.Fatalf("the timer fired for %p, want p3 %p", p, p3)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the timer never fired")
	}
	if tb.Count() != 0 || tb.Take(p3) {
		t.Error("an expired request is still open")
	}
	if !tb.Late(&canonical.Envelope{InReplyTo: tok3}) {
		t.Error("an answer after the timeout is not late")
	}
}

func TestTableRequesters(t *testing.T) {
	tb := NewTable[*requester, *agent](0)
	a := &agent{id: "a"}
	s1, s2, w := &requester{"s1"}, &requester{"s2"}, &requester{"w"}
	p1 := &req{Requester: s1, Receiver: a}
	p2 := &req{Requester: s2, Receiver: a}
	tb.Open(p1, time.Hour)
	tb.Open(p2, time.Hour)
	if !tb.Wait(p1, w) {
		t.Fatal("could not wait on an open request")
	}
	if got := tb.Waiters(p1, false); len(got) != 1 || got[0] != w {
		t.Errorf("waiters %v, want w", got)
	}
	tb.ForgetRequester(s1)
	if tb.IsOpen(p1) || !tb.IsOpen(p2) {
		t.Error("forgetting s1 should close its request only")
	}
	if tb.Wait(p1, w) {
		t.Error("waited on a closed request")
	}
	if got := tb.TakeReceiver(a); len(got) != 1 || got[0] != p2 || a.inflight != 0 {
		t.Errorf("taken %v, in flight %d", got, a.inflight)
	}
}

// TestLateMemory: the table remembers a bounded number of closed tokens,
// forgetting the oldest.
func TestLateMemory(t *testing.T) {
	tb := NewTable[*requester, *agent](0)
	a := &agent{id: "a"}
	const extra = 10
	var toks []string
	for range lateMemory + extra {
		p := &req{Requester: &requester{}, Receiver: a}
		tok, _, _ := tb.Open(p, time.Hour)
		tb.Take(p)
		toks = append(toks, tok)
	}
	for i, tok := range toks {
		if late, want := tb.Late(&canonical.Envelope{InReplyTo: tok}), i >= extra; late != want {
			t.Errorf("token %d of %d: late %v, want %v", i, len(toks), late, want)
		}
	}
	if tb.Late(&canonical.Envelope{InReplyTo: NewToken()}) || tb.Late(&canonical.Envelope{}) {
		t.Error("a token never opened, or none, is taken for a late answer")
	}
	if len(tb.closed) != lateMemory {
		t.Errorf("remembers %d tokens, want %d", len(tb.closed), lateMemory)
	}
}

func TestRestore(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *req
		want string
	}{
		{"reply_with first", &req{ReplyWith: "rw", ID: "id", TaskID: "t"}, "rw"},
		{"then the id", &req{ID: "id", TaskID: "t"}, "id"},
		{"bluelabel: the task", &req{TaskID: "T"}, "T"},
	} {
		env := canonical.Envelope{InReplyTo: "TOKEN", TaskID: "TOKEN", Trace: canonical.Trace{}}
		tc.p.Sender = canonical.Party{ID: "req"}
		tc.p.Trace = canonical.Trace{TraceID: "tr"}
		tc.p.Restore(&env)
		if env.InReplyTo != tc.want || env.TaskID != tc.p.TaskID || env.Receiver.ID != "req" || env.Trace.TraceID != "tr" {
			t.Errorf("%s: %+v", tc.name, env)
		}
	}
}

// TestRestoreTraceAndPriority: a reply with no trace becomes a child of the
// request's span, and one with no priority takes the request's; what the
// reply carries itself stays.
func TestRestoreTraceAndPriority(t *testing.T) {
	span := canonical.Trace{TraceID: "tr", SpanID: "sp", ParentSpanID: "up"}
	for _, tc := range []struct {
		name      string
		request   canonical.Trace
		priority  canonical.Priority
		reply     canonical.Envelope
		want      canonical.Trace
		wantPrio  canonical.Priority
		wantChild bool
	}{
		{"a child of the request's span", span, canonical.PriorityHigh, canonical.Envelope{},
			canonical.Trace{TraceID: "tr", ParentSpanID: "sp"}, canonical.PriorityHigh, true},
		{"the reply's own trace and priority", span, canonical.PriorityHigh,
			canonical.Envelope{Trace: canonical.Trace{TraceID: "mine", SpanID: "s2"}, Priority: canonical.PriorityLow},
			canonical.Trace{TraceID: "mine", SpanID: "s2"}, canonical.PriorityLow, false},
		{"a trace id alone", canonical.Trace{TraceID: "tr"}, 0, canonical.Envelope{},
			canonical.Trace{TraceID: "tr"}, 0, false},
		{"no span, a parent", canonical.Trace{TraceID: "tr", ParentSpanID: "up"}, 0, canonical.Envelope{},
			canonical.Trace{TraceID: "tr", ParentSpanID: "up"}, 0, false},
		{"no trace", canonical.Trace{}, canonical.PriorityCritical, canonical.Envelope{},
			canonical.Trace{}, canonical.PriorityCritical, false},
	} {
		p := &req{ID: "id", Trace: tc.request, Priority: tc.priority}
		env := tc.reply
		child := p.Restore(&env)
		if env.Trace != tc.want || env.Priority != tc.wantPrio || child != tc.wantChild {
			t.Errorf("%s: trace %+v, priority %v, child %v; want %+v, %v, %v", tc.name, env.Trace, env.Priority, child, tc.want, tc.wantPrio, tc.wantChild)
		}
	}
}

// TestTakeFor: a requester closes its own open request by token, and no
// one else's.
func TestTakeFor(t *testing.T) {
	tb := NewTable[*requester, *agent](0)
	a := &agent{id: "a"}
	mine, other := &requester{"mine"}, &requester{"other"}
	p := &req{Requester: mine, Receiver: a}
	tok, _, _ := tb.Open(p, time.Hour)
	if tb.TakeFor(tok, other) != nil || !tb.IsOpen(p) {
		t.Fatal("another requester closed the request")
	}
	if tb.TakeFor(tok, mine) != p || tb.IsOpen(p) || a.inflight != 0 {
		t.Fatal("the requester could not close its request")
	}
	if tb.TakeFor(tok, mine) != nil {
		t.Error("closed twice")
	}
	if !tb.Late(&canonical.Envelope{InReplyTo: tok}) {
		t.Error("an answer after TakeFor is not late")
	}
}

// TestTableLimit: past its limit the table closes its oldest open request
// and returns it; requests closed meanwhile, or replaced by a follow-up,
// are no longer in line.
func TestTableLimit(t *testing.T) {
	tb := NewTable[*requester, *agent](3)
	a := &agent{id: "A"}
	r := &requester{name: "r"}
	open := func(task string) *req {
		p := &req{Requester: r, Receiver: a, TaskID: task}
		if _, _, evicted := tb.Open(p, time.Hour); evicted != nil {
			t.Fatalf("opening %q evicted %q", task, evicted.TaskID)
		}
		return p
	}
	p1, p2, p3 := open("t1"), open("t2"), open("t3")
	tb.Take(p2)                                         // closed: out of line
	follow := open("t3")                                // replaces p3 under its token
	p4 := &req{Requester: r, Receiver: a, TaskID: "t4"} // the limit: 3 open (p1, follow, p4)
	if _, _, evicted := tb.Open(p4, time.Hour); evicted != nil {
		t.Fatalf("three open of three: evicted %q", evicted.TaskID)
	}
	p5 := &req{Requester: r, Receiver: a, TaskID: "t5"}
	_, _, evicted := tb.Open(p5, time.Hour)
	if evicted != p1 {
		t.Fatalf("evicted %v, want the oldest, t1", evicted)
	}
	if tb.IsOpen(p1) || !tb.IsOpen(follow) || !tb.IsOpen(p4) || !tb.IsOpen(p5) || tb.IsOpen(p3) {
		t.Errorf("open after the eviction: t1 %v, t3 follow-up %v, t4 %v, t5 %v, t3 %v", tb.IsOpen(p1), tb.IsOpen(follow), tb.IsOpen(p4), tb.IsOpen(p5), tb.IsOpen(p3))
	}
	if tb.Count() != 3 || a.inflight != 3 {
		t.Errorf("count %d, in flight %d; want 3, 3", tb.Count(), a.inflight)
	}
	if !tb.Late(&canonical.Envelope{InReplyTo: p1.Token}) {
		t.Error("an answer to the evicted request is not known as late")
	}
	// Next in line: the follow-up of t3, then t4.
	for _, want := range []*req{follow, p4} {
		p := &req{Requester: r, Receiver: a}
		if _, _, evicted := tb.Open(p, time.Hour); evicted != want {
			t.Errorf("evicted %v, want %q", evicted, want.TaskID)
		}
	}
}

// TestNewToken: a token is a random UUID (version 4) in upper case, the
// same text as uuid's in upper case, and no two are alike.
func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok := NewToken()
		u, err := uuid.Parse(tok)
		if err != nil {
			t.Fatalf("%q: %v", tok, err)
		}
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%q: version %d, variant %s", tok, u.Version(), u.Variant())
		}
		if want := strings.ToUpper(u.String()); tok != want {
			t.Fatalf("token %q, want %q", tok, want)
		}
		if seen[tok] {
			t.Fatalf("%q twice", tok)
		}
		seen[tok] = true
	}
}

// BenchmarkLate is an answer to no open request checked against a full
// memory of closed tokens: what an unmatched answer costs.
func BenchmarkLate(b *testing.B) {
	tb := NewTable[*requester, *agent](0)
	a := &agent{id: "a"}
	for range lateMemory {
		p := &req{Requester: &requester{}, Receiver: a}
		tb.Open(p, time.Hour)
		tb.Take(p)
	}
	env := &canonical.Envelope{InReplyTo: NewToken()}
	for b.Loop() {
		if tb.Late(env) {
			b.Fatal("late")
		}
	}
}

func BenchmarkNewToken(b *testing.B) {
	for b.Loop() {
		_ = NewToken()
	}
}

// BenchmarkOpenTake is a request opened and answered, the table
// remembering as many closed tokens as it can: its cost in a busy bridge.
func BenchmarkOpenTake(b *testing.B) {
	tb := NewTable[*requester, *agent](0)
	a := &agent{id: "a"}
	r := &requester{}
	for range lateMemory {
		p := &req{Requester: r, Receiver: a}
		tb.Open(p, time.Hour)
		tb.Take(p)
	}
	b.ReportAllocs()
	for b.Loop() {
		p := &req{Requester: r, Receiver: a}
		tb.Open(p, time.Hour)
		tb.Take(p)
	}
}
