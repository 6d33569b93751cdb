// Package correlation keeps the requests the bridge delivered and that
// wait for their answer. A request goes out under a token, a fresh id, in
// every correlation field it had; the receiver's reply carries the token
// back, the table finds the request by it, and the requester's own values
// are restored on the way back. Each request has a time limit; what times
// out or is given up is remembered for a while, so that a late answer can
// be told from a stray one.
package correlation

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Receiver is the agent a request was delivered to.
type Receiver interface {
	comparable
	// ID returns its canonical id.
	ID() string
	// Inflight adds delta to its count of requests in flight.
	Inflight(delta int32)
}

// Request is one request delivered and not yet answered. R is the bridge's
// type of requester, V its type of receiver.
type Request[R, V comparable] struct {
	// Token is the id the request went out under.
	Token string
	// Requester is where its answers go; Dialect is the requester's.
	Requester R
	Dialect   string
	// The requester's correlation values and its party, as it wrote them
	// (with the party's id canonical).
	ID, ReplyWith, CorrelationID, TaskID string
	Sender                               canonical.Party
	// Trace is the request's trace context: an answer from a dialect that
	// could not carry it is made a child of its span.
	Trace canonical.Trace
	// Priority is the request's: an answer that names none takes it.
	Priority canonical.Priority
	// Span, when set, ends the request's trace span, with the error that
	// answered it, if any.
	Span func(e *canonical.Error)
	// Receiver is the agent it was delivered to.
	Receiver V
	// Start is when it arrived.
	Start time.Time
	// Level is the request's queue level: its answers go no lower.
	Level int
	// DedupeKey is the request's entry in the dedupe table; zero if it has
	// none.
	DedupeKey DedupeKey
	// Out is the request as delivered, for retries; Attempts counts them.
	Out      atomic.Pointer[canonical.Envelope]
	Attempts atomic.Int32
	// Delivered is room for the request as delivered, which Out may point
	// to: it lives as long as the request, and is made with it.
	Delivered canonical.Envelope

	// deadline is when it times out, after its time limit; at is its
	// place in the table's heap of deadlines while it is in it
	// (expiry.go).
	deadline time.Time
	limit    time.Duration
	at       int
	// older and newer link the open requests in the order they were
	// opened (guarded by the table's lock).
	older, newer *Request[R, V]
	// waiters are the requesters that sent it again while it was open,
	// each owed its answer (guarded by the table's lock).
	waiters []R
}

// DedupeKey identifies a message in the bridge's dedupe table: a 128-bit
// hash. The zero value is none.
type DedupeKey [2]uint64

// Restore writes the requester's correlation values into a message bound
// for it: the reply names what the requester expects to see. A reply with
// no trace joins the request's, as a child of its span (with no span of
// its own, which Restore reports by returning true: the caller gives it
// one); a reply with no priority takes the request's, so that a
// high-priority request is not answered at a lower one.
func (p *Request[R, V]) Restore(env *canonical.Envelope) (childSpan bool) {
	env.InReplyTo = FirstOf(p.ReplyWith, p.ID, p.TaskID, p.CorrelationID)
	env.CorrelationID = p.CorrelationID
	env.TaskID = p.TaskID
	env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: p.Sender.ID, Name: p.Sender.Name}
	if env.Priority == 0 {
		env.Priority = p.Priority
	}
	if env.Trace.TraceID != "" {
		return false
	}
	env.Trace = canonical.Trace{TraceID: p.Trace.TraceID, ParentSpanID: p.Trace.SpanID}
	if p.Trace.SpanID == "" {
		env.Trace.ParentSpanID = p.Trace.ParentSpanID // the request's own parent, as before: no span to be a child of
	}
	return p.Trace.TraceID != "" && p.Trace.SpanID != ""
}

// requesterKey finds the open request a requester's follow-up belongs to:
// a second message with the same task id (bluelabel answers needs_input
// that way) reuses the token, so the receiver sees one task.
type requesterKey[R comparable] struct {
	r    R
	task string
}

// lateMemory is how many closed tokens the table remembers.
const lateMemory = 4096

// Table holds the open requests. R is the bridge's type of requester, V
// its type of receiver.
type Table[R comparable, V Receiver] struct {
	mu      sync.Mutex
	byToken map[string]*Request[R, V]
	byTask  map[requesterKey[R]]*Request[R, V]
	// closed remembers the tokens of the last lateMemory requests closed,
	// by their hash (closedKey), in a ring whose oldest entry next
	// overwrites once it is full. A table that kept the tokens themselves
	// would hold thousands of strings for the collector to scan. The ring
	// is all there is: closing a request writes one word, where a set
	// beside it would cost every answer an insertion and a deletion in a
	// map too large to stay in cache; Late, asked only of an answer that
	// matches no open request, reads the ring through.
	closed []uint64
	next   int
	seed   maphash.Seed
	// oldest and newest end the list of open requests, by when they were
	// opened; limit bounds their number.
	oldest, newest *Request[R, V]
	limit          int
	// due holds the open requests by deadline; timer fires by the first
	// deadline, armed for when it was last set (zero: not armed). See
	// expiry.go.
	due   dueHeap[R, V]
	timer *time.Timer
	armed time.Time
	// onExpiry is told of each request whose time is up (OnExpiry).
	onExpiry func(p *Request[R, V], limit time.Duration)
}

// NewTable returns an empty table that holds at most limit open requests
// (no bound when limit is 0 or less).
func NewTable[R comparable, V Receiver](limit int) *Table[R, V] {
	return &Table[R, V]{byToken: map[string]*Request[R, V]{}, byTask: map[requesterKey[R]]*Request[R, V]{},
		closed: make([]uint64, 0, lateMemory), seed: maphash.MakeSeed(), limit: limit}
}

// OnExpiry sets what runs, in a goroutine of its own, for each request
// whose time is up, once it is closed: fn is given the request and its
// time limit. Call it before the table is used; without it, a request
// whose time is up is closed and nothing else.
func (t *Table[R, V]) OnExpiry(fn func(p *Request[R, V], limit time.Duration)) {
	t.onExpiry = fn
}

// Limit returns the table's bound, 0 for none.
func (t *Table[R, V]) Limit() int { return max(t.limit, 0) }

// NewToken returns a correlation token every dialect can carry as an id
// (bluelabel's ids are upper case): a random UUID in upper case.
func NewToken() string {
	const digits = "0123456789ABCDEF"
	u := uuid.New()
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = digits[c>>4], digits[c&0xf]
		j += 2
	}
	return string(b[:])
}

func init() {
	// A token is made for every request: its randomness is read from the
	// system in batches (uuid's pool) rather than once per token. Tokens
	// name requests to agents, which see them; they are not secrets.
	uuid.EnableRandPool()
}

// Open records p under a new token, or under the token of the requester's
// open request with the same task id, which p replaces, and sets its time
// limit: after d, p is closed and the table's OnExpiry handler told.
// It returns the token, the request p replaced, if any, and the oldest
// open request, closed to keep the table within its limit, if any: its
// requester is owed an answer.
func (t *Table[R, V]) Open(p *Request[R, V], d time.Duration) (token string, replaced, evicted *Request[R, V]) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.TaskID != "" {
		k := requesterKey[R]{p.Requester, p.TaskID}
		if old := t.byTask[k]; old != nil {
			p.Token = old.Token
			t.removeLocked(old, false)
			replaced = old
		}
		t.byTask[k] = p
	}
	if p.Token == "" {
		p.Token = NewToken()
	}
	t.byToken[p.Token] = p
	t.linkLocked(p)
	if t.limit > 0 && len(t.byToken) > t.limit {
		evicted = t.oldest
		t.removeLocked(evicted, true)
	}
	p.Receiver.Inflight(1)
	p.limit = d
	t.dueLocked(p, time.Now().Add(d))
	return p.Token, replaced, evicted
}

// linkLocked puts p at the new end of the open requests.
func (t *Table[R, V]) linkLocked(p *Request[R, V]) {
	p.older, p.newer = t.newest, nil
	if t.newest != nil {
		t.newest.newer = p
	} else {
		t.oldest = p
	}
	t.newest = p
}

// unlinkLocked takes p out of the open requests.
func (t *Table[R, V]) unlinkLocked(p *Request[R, V]) {
	if p.older != nil {
		p.older.newer = p.newer
	} else if t.oldest == p {
		t.oldest = p.newer
	}
	if p.newer != nil {
		p.newer.older = p.older
	} else if t.newest == p {
		t.newest = p.older
	}
	p.older, p.newer = nil, nil
}

// Match returns the open request a message from the agent v answers: one
// of its correlation values is a token of a request sent to v. final
// closes it.
func (t *Table[R, V]) Match(v V, env *canonical.Envelope, final bool) *Request[R, V] {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range [...]string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if id == "" {
			continue
		}
		p := t.byToken[id]
		if p == nil || p.Receiver != v {
			continue
		}
		if final {
			t.removeLocked(p, true)
		}
		return p
	}
	return nil
}

// Late reports whether env answers a request that is closed now (answered,
// timed out, given up) but was open not long ago: one of its correlation
// values is such a request's token.
func (t *Table[R, V]) Late(env *canonical.Envelope) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range [...]string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if id != "" && slices.Contains(t.closed, t.closedKey(id)) {
			return true
		}
	}
	return false
}

// Take closes p; false when it was closed already (answered, timed out).
func (t *Table[R, V]) Take(p *Request[R, V]) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byToken[p.Token] != p {
		return false
	}
	t.removeLocked(p, true)
	return true
}

// removeLocked forgets p; remember keeps its token among the closed ones
// (not when p is replaced by a follow-up under the same token).
func (t *Table[R, V]) removeLocked(p *Request[R, V], remember bool) {
	delete(t.byToken, p.Token)
	t.unlinkLocked(p)
	p.Receiver.Inflight(-1)
	if p.TaskID != "" {
		k := requesterKey[R]{p.Requester, p.TaskID}
		if t.byTask[k] == p {
			delete(t.byTask, k)
		}
	}
	t.due.remove(p)
	if remember {
		t.rememberLocked(p.Token)
	}
}

func (t *Table[R, V]) rememberLocked(token string) {
	k := t.closedKey(token)
	if len(t.closed) < lateMemory {
		t.closed = append(t.closed, k)
		return
	}
	t.closed[t.next] = k
	t.next = (t.next + 1) % lateMemory
}

// closedKey is what closed knows token by: its hash, which another token
// shares by chance once in 2^64 (a message then taken for a late answer
// to a request it never answered, and dropped as one).
func (t *Table[R, V]) closedKey(token string) uint64 { return maphash.String(t.seed, token) }

// TakeFor closes the open request of token if r is its requester, and
// returns it; nil when there is none.
func (t *Table[R, V]) TakeFor(token string, r R) *Request[R, V] {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.byToken[token]
	if p == nil || p.Requester != r {
		return nil
	}
	t.removeLocked(p, true)
	return p
}

// TakeReceiver closes and returns every open request sent to v.
func (t *Table[R, V]) TakeReceiver(v V) []*Request[R, V] {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*Request[R, V]
	for _, p := range t.byToken {
		if p.Receiver == v {
			t.removeLocked(p, true)
			out = append(out, p)
		}
	}
	return out
}

// Lookup returns the open request of token.
func (t *Table[R, V]) Lookup(token string) *Request[R, V] {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byToken[token]
}

// Wait adds r to those owed p's answer; false when p is closed.
func (t *Table[R, V]) Wait(p *Request[R, V], r R) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byToken[p.Token] != p {
		return false
	}
	p.waiters = append(p.waiters, r)
	return true
}

// Waiters returns the requesters owed p's answer besides its own; final
// hands them over (p is closed, no more will come).
func (t *Table[R, V]) Waiters(p *Request[R, V], final bool) []R {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := p.waiters
	if final {
		p.waiters = nil
	} else {
		w = append([]R(nil), w...)
	}
	return w
}

// IsOpen reports whether p is still waiting for its answer.
func (t *Table[R, V]) IsOpen(p *Request[R, V]) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byToken[p.Token] == p
}

// TakeAll closes and returns every open request.
func (t *Table[R, V]) TakeAll() []*Request[R, V] {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Request[R, V], 0, len(t.byToken))
	for _, p := range t.byToken {
		t.removeLocked(p, true)
		out = append(out, p)
	}
	return out
}

// ForgetRequester drops the open requests of a requester that went away.
func (t *Table[R, V]) ForgetRequester(r R) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.byToken {
		if p.Requester == r {
			t.removeLocked(p, true)
		}
	}
}

// Count returns the number of open requests.
func (t *Table[R, V]) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byToken)
}

// TimeoutFor returns how long env may wait for its reply: its ttl, else
// its deadline, else def.
func TimeoutFor(env *canonical.Envelope, def time.Duration, now time.Time) time.Duration {
	if env.TTL.Set && env.TTL.D > 0 {
		return env.TTL.D
	}
	if t, ok := env.Deadline.Parse(); ok {
		if d := t.Sub(now); d > 0 {
			return d
		}
		return time.Millisecond
	}
	return def
}

// FirstOf returns the first of vs that is not empty.
func FirstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
