// Package dedupe is the bridge's duplicate suppression table: the
// messages it saw lately, by a hash of their identity, within a time
// window and bounds of entries and kept answers.
package dedupe

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Duplicate suppression: a message whose sender sends it again (the same
// message id; for a dialect without message ids, bluelabel, the same act,
// task id and retry_count) within the window is delivered once. A request
// sent again is answered from the first: with its answer once that comes
// (again for each copy), or at once with the answer already given.

// The defaults of the table's bounds (config memory:).
const (
	DefaultEntries = 100_000
	DefaultAnswers = 8 << 20
)

// Key is a message's identity in the table: a 128-bit hash of its sender
// and ids (see Identify). The zero value is no identity.
type Key = correlation.DedupeKey

// dedupeSeeds seed the two 64-bit halves of a Key.
var dedupeSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// Identify returns the identity of env from the agent sender, or false
// when it has none to go by. An answer's identity includes what it
// answers: an agent that restarts and counts its message ids from one
// again is not repeating its earlier answers. Only a hash is kept: at
// 100,000 entries the chance that two different messages share one is
// about 1 in 10^29.
func Identify(sender string, env *canonical.Envelope) (Key, bool) {
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
		return Key{}, false
	}
	var id Key
	for i, seed := range dedupeSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, p := range parts {
			_, _ = h.WriteString(p)
			_ = h.WriteByte(0)
		}
		id[i] = h.Sum64()
	}
	if id == (Key{}) {
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
	id  Key
	at  int64 // Unix nanoseconds
	gen uint64
}

// dedupeRequest is what the table keeps of the first copy of a request: the
// token of its open request while it waits, then its answer (nil when it
// was not kept, or no longer is). Held by value in the table's map (32
// bytes, stored in the map's own slots): tracking a request makes no
// object of its own.
type dedupeRequest struct {
	gen    uint64
	token  string
	answer *delivery.Outbound
}

// keptAnswer places a kept answer in the order they are dropped in.
type keptAnswer struct {
	id  Key
	gen uint64
}

// Table remembers recent messages by identity, oldest first, within its
// bounds: maxEntries messages, maxAnswers bytes of answers. Its methods
// are safe for concurrent use.
type Table struct {
	window     time.Duration
	maxEntries int
	maxAnswers int
	mu         sync.Mutex
	byID       map[Key]uint64        // the generation of each identity's entry
	order      fifo[entry]           // by arrival; the front is the oldest
	requests   map[Key]dedupeRequest // of the entries that are requests
	answers    fifo[keptAnswer]      // the requests whose answer was kept, oldest first
	bytes      int                   // of kept answers
	gen        uint64
	// entries and kept count what went past the bounds; nil counts
	// nothing.
	entries, kept *metrics.Table
}

// Count has the table count in entries the messages it forgot past its
// bound, and in kept the answers it dropped past its budget; it sets up
// both tables' size gauges. Call it before the table is used.
func (d *Table) Count(m *metrics.Metrics) error {
	var err error
	if d.entries, err = m.Table(metrics.TableDedupeEntries, d.maxEntries, func() float64 {
		n, _ := d.Size()
		return float64(n)
	}); err != nil {
		return err
	}
	d.kept, err = m.Table(metrics.TableDedupeAnswers, d.maxAnswers, func() float64 {
		_, n := d.Size()
		return float64(n)
	})
	return err
}

// New returns a table that remembers messages for window, at most
// maxEntries of them and maxAnswers bytes of their answers.
func New(window time.Duration, maxEntries, maxAnswers int) *Table {
	return &Table{window: window, maxEntries: maxEntries, maxAnswers: maxAnswers,
		byID: map[Key]uint64{}, requests: map[Key]dedupeRequest{}}
}

// Check records id, or reports that it was recorded within the window: a
// duplicate.
func (d *Table) Check(id Key, now time.Time) (dup bool) {
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
func (d *Table) expireLocked(now int64) {
	for d.order.len() > 0 && time.Duration(now-d.order.front().at) > d.window {
		d.dropLocked()
	}
}

// dropLocked forgets the oldest message, and its kept answer.
func (d *Table) dropLocked() {
	e := d.order.pop()
	if d.byID[e.id] != e.gen {
		return
	}
	delete(d.byID, e.id)
	if r, ok := d.requests[e.id]; ok && r.gen == e.gen {
		d.forgetRequestLocked(e.id, &r)
	}
}

// forgetRequestLocked forgets the request id, whose record is r, and its
// kept answer.
func (d *Table) forgetRequestLocked(id Key, r *dedupeRequest) {
	d.forgetAnswerLocked(r)
	delete(d.requests, id)
}

// forgetAnswerLocked drops r's kept answer, if it has one; its place in
// the answers queue is skipped when it comes to the front.
func (d *Table) forgetAnswerLocked(r *dedupeRequest) {
	if r.answer != nil {
		d.bytes -= cap(r.answer.Frame)
		r.answer = nil
	}
}

// Track ties the first copy of the request id to its open request's
// token.
func (d *Table) Track(id Key, token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	gen, ok := d.byID[id]
	if !ok {
		return
	}
	if r, ok := d.requests[id]; ok {
		// Tracked before (the router tracks a request once): a fresh
		// start.
		d.forgetAnswerLocked(&r)
	}
	d.requests[id] = dedupeRequest{gen: gen, token: token}
}

// Answered keeps out, the answer the request id got under its open
// request's token, for copies that come later, dropping the oldest
// answers kept to make room; one larger than the whole budget is not
// kept.
func (d *Table) Answered(id Key, token string, out delivery.Outbound) {
	if id == (Key{}) {
		return
	}
	n := cap(out.Frame) // what keeping it holds, not only what it says
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.requests[id]
	if !ok || r.token != token {
		return
	}
	r.token = ""
	if n > d.maxAnswers {
		d.forgetRequestLocked(id, &r)
		count(d.kept, 1)
		return
	}
	for d.bytes+n > d.maxAnswers {
		old := d.answers.pop()
		if o, ok := d.requests[old.id]; ok && o.gen == old.gen && o.answer != nil {
			d.forgetRequestLocked(old.id, &o)
			count(d.kept, 1)
		}
	}
	r.answer = &out
	d.requests[id] = r
	d.bytes += n
	d.answers.push(keptAnswer{id: id, gen: r.gen})
}

// State returns, under the lock, what the first copy of the request id
// has come to: the token of its open request, or a copy of its answer.
func (d *Table) State(id Key) (string, *delivery.Outbound) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.requests[id]
	if !ok || r.answer == nil {
		return r.token, nil
	}
	a := *r.answer // the caller's own: the table's stays as it was kept
	return r.token, &a
}

// Size returns how many messages the table remembers and how many bytes
// of answers it keeps.
func (d *Table) Size() (entries, bytes int) {
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
