package bridge

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

// seen is what the bridge remembers of one message.
type seen struct {
	id dedupeID
	at int64 // when it came, in Unix nanoseconds
	// For a request: the token of the open request while it waits, then
	// its answer (nil when it was not kept, or no longer is).
	token  string
	answer *Outbound
}

// dedupe remembers recent messages by identity, oldest first, within its
// bounds: maxEntries messages, maxAnswers bytes of answers.
type dedupe struct {
	window     time.Duration
	maxEntries int
	maxAnswers int
	mu         sync.Mutex
	byID       map[dedupeID]*seen
	order      fifo[*seen] // by arrival; the front is the oldest
	answers    fifo[*seen] // those whose answer was kept, oldest first
	bytes      int         // of kept answers
	// entries and kept count what went past the bounds; nil counts
	// nothing.
	entries, kept *metrics.Table
}

func newDedupe(window time.Duration, maxEntries, maxAnswers int) *dedupe {
	return &dedupe{window: window, maxEntries: maxEntries, maxAnswers: maxAnswers, byID: map[dedupeID]*seen{}}
}

// check records id, or returns what was recorded under it within the
// window: a duplicate.
func (d *dedupe) check(id dedupeID, now time.Time) (first *seen, dup bool) {
	at := now.UnixNano()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked(at)
	if s := d.byID[id]; s != nil {
		return s, true
	}
	s := &seen{id: id, at: at}
	d.byID[id] = s
	d.order.push(s)
	if d.order.len() > d.maxEntries {
		d.dropLocked()
		count(d.entries, 1)
	}
	return s, false
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
	s := d.order.pop()
	if d.byID[s.id] == s {
		delete(d.byID, s.id)
	}
	d.forgetAnswerLocked(s)
}

// forgetAnswerLocked drops s's kept answer, if it has one; its place in
// the answers queue is skipped when it comes to the front.
func (d *dedupe) forgetAnswerLocked(s *seen) {
	if s.answer != nil {
		d.bytes -= cap(s.answer.Frame)
		s.answer = nil
	}
}

// track ties the first copy of a request to its open request's token.
func (d *dedupe) track(s *seen, token string) {
	d.mu.Lock()
	s.token = token
	d.mu.Unlock()
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
	s := d.byID[p.DedupeKey]
	if s == nil || s.token != p.Token {
		return
	}
	s.token = ""
	if n > d.maxAnswers {
		count(d.kept, 1)
		return
	}
	for d.bytes+n > d.maxAnswers {
		old := d.answers.pop()
		if old.answer != nil {
			d.forgetAnswerLocked(old)
			count(d.kept, 1)
		}
	}
	s.answer = &out
	d.bytes += n
	d.answers.push(s)
}

// state returns, under the lock, what the first copy has come to: the
// token of its open request, or its answer.
func (d *dedupe) state(s *seen) (string, *Outbound) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return s.token, s.answer
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
func (b *Bridge) duplicate(ep endpoint, env *canonical.Envelope, first *seen) Receipt {
	b.metrics.Duplicate()
	b.log.Info("duplicate", "sender", env.Sender.ID, "act", env.Act, "id", env.ID, "task_id", env.TaskID)
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
