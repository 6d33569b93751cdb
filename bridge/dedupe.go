package bridge

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Duplicate suppression: a message whose sender sends it again (the same
// message id; for a dialect without message ids, bluelabel, the same act,
// task id and retry_count) within the window is delivered once. A request
// sent again is answered from the first: with its answer once that comes
// (again for each copy), or at once with the answer already given.

// The defaults of the dedupe table's bounds (config memory:).
const (
	DefaultDedupeEntries = 100_000
	DefaultDedupeAnswers = 8 << 20
)

// dedupeID is a message's identity in the dedupe table: a 128-bit hash of
// its sender and ids (see identify). The zero value is no identity.
type dedupeID = correlation.DedupeKey

// dedupeSeeds seed the two 64-bit halves of a dedupeID.
var dedupeSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// identify returns the identity of env from the agent sender, or false
// when it has none to go by. An answer's identity includes what it
// answers: an agent that restarts and counts its message ids from one
// again is not repeating its earlier answers. Only a hash is kept: at
// 100,000 entries the chance that two different messages share one is
// about 1 in 10^29.
func identify(sender string, env *canonical.Envelope) (dedupeID, bool) {
	var parts [6]string
	switch {
	case env.ID != "" && env.Act.IsReply():
		parts = [6]string{sender, "id", env.ID, env.InReplyTo, env.CorrelationID, env.TaskID}
	case env.ID != "":
		parts = [6]string{sender, "id", env.ID}
	case env.TaskID != "":
		retry := "0"
		for _, f := range env.Extra {
			if f.Parent == "" && f.Key == "retry_count" {
				retry = string(f.Value)
			}
		}
		parts = [6]string{sender, "task", string(env.Act), env.TaskID, retry}
	default:
		return dedupeID{}, false
	}
	var id dedupeID
	for i, seed := range dedupeSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, p := range parts {
			_, _ = h.WriteString(p)
			_ = h.WriteByte(0)
		}
		id[i] = h.Sum64()
	}
	if id == (dedupeID{}) {
		id[1] = 1
	}
	return id, true
}

// The table holds no pointers where it holds many: its entries (a hash and
// a time each) and its index are pointer-free, so the garbage collector
// does not trace them, however many there are (100,000 by default). Only
// what a request needs while it waits for its answer, and the answers kept,
// are objects, and they are bounded by the open requests and by
// dedupe_answers.

// entry is one message the table remembers: its identity, when it came,
// and its generation (a count of the entries made, which tells an entry
// from a later one of the same identity).
type entry struct {
	id  dedupeID
	at  int64 // Unix nanoseconds
	gen uint64
}

// dedupeRequest is what the table keeps of the first copy of a request: the
// token of its open request while it waits, then its answer (nil when it
// was not kept, or no longer is).
type dedupeRequest struct {
	gen    uint64
	token  string
	answer *Outbound
}

// keptAnswer places a kept answer in the order they are dropped in.
type keptAnswer struct {
	id  dedupeID
	gen uint64
}

// dedupe remembers recent messages by identity, oldest first, within its
// bounds: maxEntries messages, maxAnswers bytes of answers.
type dedupe struct {
	window     time.Duration
	maxEntries int
	maxAnswers int
	mu         sync.Mutex
	byID       map[dedupeID]uint64         // the generation of each identity's entry
	order      fifo[entry]                 // by arrival; the front is the oldest
	requests   map[dedupeID]*dedupeRequest // of the entries that are requests
	answers    fifo[keptAnswer]            // the requests whose answer was kept, oldest first
	bytes      int                         // of kept answers
	gen        uint64
	// entries and kept count what went past the bounds; nil counts
	// nothing.
	entries, kept *metrics.Table
}

func newDedupe(window time.Duration, maxEntries, maxAnswers int) *dedupe {
	return &dedupe{window: window, maxEntries: maxEntries, maxAnswers: maxAnswers,
		byID: map[dedupeID]uint64{}, requests: map[dedupeID]*dedupeRequest{}}
}

// check records id, or reports that it was recorded within the window: a
// duplicate.
func (d *dedupe) check(id dedupeID, now time.Time) (dup bool) {
	at := now.UnixNano()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked(at)
	if _, ok := d.byID[id]; ok {
		return true
	}
	d.gen++
	d.byID[id] = d.gen
	d.order.push(entry{id: id, at: at, gen: d.gen})
	if d.order.len() > d.maxEntries {
		d.dropLocked()
		count(d.entries, 1)
	}
	return false
}

// count adds n to t, if there is a t.
func count(t *metrics.Table, n int) {
	if t != nil {
		t.Dropped(n)
	}
}

// expireLocked forgets what is older than the window.
func (d *dedupe) expireLocked(now int64) {
	for d.order.len() > 0 && time.Duration(now-d.order.front().at) > d.window {
		d.dropLocked()
	}
}

// dropLocked forgets the oldest message, and its kept answer.
func (d *dedupe) dropLocked() {
	e := d.order.pop()
	if d.byID[e.id] != e.gen {
		return
	}
	delete(d.byID, e.id)
	if r := d.requests[e.id]; r != nil && r.gen == e.gen {
		d.forgetAnswerLocked(r)
		delete(d.requests, e.id)
	}
}

// forgetAnswerLocked drops r's kept answer, if it has one; its place in
// the answers queue is skipped when it comes to the front.
func (d *dedupe) forgetAnswerLocked(r *dedupeRequest) {
	if r.answer != nil {
		d.bytes -= cap(r.answer.Frame)
		r.answer = nil
	}
}

// track ties the first copy of the request id to its open request's
// token.
func (d *dedupe) track(id dedupeID, token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen, ok := d.byID[id]; ok {
		d.requests[id] = &dedupeRequest{gen: gen, token: token}
	}
}

// answered keeps the answer a request got, for copies that come later,
// dropping the oldest answers kept to make room; one larger than the
// whole budget is not kept.
func (d *dedupe) answered(p *pending, out Outbound) {
	if p.DedupeKey == (dedupeID{}) {
		return
	}
	n := cap(out.Frame) // what keeping it holds, not only what it says
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.requests[p.DedupeKey]
	if r == nil || r.token != p.Token {
		return
	}
	r.token = ""
	if n > d.maxAnswers {
		delete(d.requests, p.DedupeKey)
		count(d.kept, 1)
		return
	}
	for d.bytes+n > d.maxAnswers {
		old := d.answers.pop()
		if o := d.requests[old.id]; o != nil && o.gen == old.gen && o.answer != nil {
			d.forgetAnswerLocked(o)
			delete(d.requests, old.id)
			count(d.kept, 1)
		}
	}
	r.answer = &out
	d.bytes += n
	d.answers.push(keptAnswer{id: p.DedupeKey, gen: r.gen})
}

// state returns, under the lock, what the first copy of the request id
// has come to: the token of its open request, or its answer.
func (d *dedupe) state(id dedupeID) (string, *Outbound) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.requests[id]; r != nil {
		return r.token, r.answer
	}
	return "", nil
}

// size returns how many messages the table remembers and how many bytes
// of answers it keeps.
func (d *dedupe) size() (entries, bytes int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.order.len(), d.bytes
}

// fifo is a first-in first-out queue that reuses its memory.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }
func (q *fifo[T]) front() T { return q.items[q.head] }
func (q *fifo[T]) push(v T) { q.items = append(q.items, v) }
func (q *fifo[T]) pop() T {
	var zero T
	v := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	// Once the front half is spent, move the rest down, so that append
	// reuses the array instead of growing it.
	if q.head >= 1024 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	return v
}

// duplicate handles a message its sender sent before within the window:
// a request is answered from the first copy, anything else is dropped.
func (b *Bridge) duplicate(ep endpoint, env *canonical.Envelope, first dedupeID) Receipt {
	b.events.Emit(event.Event{Kind: event.Duplicate, Env: env})
	if !isRequest(env.Act) {
		return Receipt{}
	}
	token, answer := b.dedupe.state(first)
	s, isSession := ep.(*Session)
	switch {
	case answer != nil && isSession:
		it := &delivery.Item{Out: *answer, Level: delivery.NormalLevel, Force: true,
			Failed: b.unsent("answer to a repeated request", ep, env)}
		if err := s.out.Put(it); err != nil {
			it.Fail(err)
		}
		return Receipt{Awaiting: true}
	case token != "":
		if p := b.pending.Lookup(token); p != nil && b.pending.Wait(p, ep) {
			return Receipt{Awaiting: true}
		}
	}
	return ep.refuse(env, &canonical.Error{Code: canonical.ErrRejected,
		Message: "a repeated request whose answer the bridge no longer holds; send it with a new id"})
}
