package bridge

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// pending is a request delivered to an agent and not yet answered. The
// request went out under token, a fresh id, in every correlation field it
// had; the receiver's reply carries the token back, and the requester's own
// values are restored on the way to it.
type pending struct {
	token     string
	requester *Session
	dialect   string // the requester's
	// The requester's correlation values and its party, as it wrote them.
	id, replyWith, correlationID, taskID string
	sender                               canonical.Party
	// trace is the request's trace context, given back to an answer from
	// a dialect that could not carry it.
	trace    canonical.Trace
	receiver *agent
	start    time.Time
	timer    *time.Timer
	// seen is the request's entry in the dedupe table; waiters are the
	// sessions that sent it again while it was open, each owed its answer
	// (guarded by the table's lock).
	seen    *seen
	waiters []*Session
	// level is the request's queue level: its answers go no lower.
	level int
	// out is the request as delivered, for retries; attempts counts them.
	out      atomic.Pointer[canonical.Envelope]
	attempts atomic.Int32
}

// requesterKey finds the open request a requester's follow-up belongs to:
// a second message with the same task id (bluelabel answers needs_input
// that way) reuses the token, so the receiver sees one task.
type requesterKey struct {
	s    *Session
	task string
}

// pendingTable holds the open requests.
type pendingTable struct {
	mu      sync.Mutex
	byToken map[string]*pending
	byTask  map[requesterKey]*pending
}

func newPendingTable() *pendingTable {
	return &pendingTable{byToken: map[string]*pending{}, byTask: map[requesterKey]*pending{}}
}

// newToken returns a correlation token every dialect can carry as an id
// (bluelabel's ids are upper case).
func newToken() string { return strings.ToUpper(uuid.NewString()) }

// open records p under a new token, or under the token of the requester's
// open request with the same task id, which p replaces, and arms its timer:
// after d, p is closed and expired runs. It returns the token and the
// request p replaced, if any.
func (t *pendingTable) open(p *pending, d time.Duration, expired func()) (token string, replaced *pending) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.taskID != "" {
		k := requesterKey{p.requester, p.taskID}
		if old := t.byTask[k]; old != nil {
			p.token = old.token
			t.removeLocked(old)
			replaced = old
		}
		t.byTask[k] = p
	}
	if p.token == "" {
		p.token = newToken()
	}
	t.byToken[p.token] = p
	p.receiver.inflight.Add(1)
	p.timer = time.AfterFunc(d, func() {
		if t.take(p) {
			expired()
		}
	})
	return p.token, replaced
}

// match returns the open request a message from the agent a answers:
// one of its correlation values is a token of a request sent to a. final
// closes it.
func (t *pendingTable) match(a *agent, env *canonical.Envelope, final bool) *pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, v := range [...]string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if v == "" {
			continue
		}
		p := t.byToken[v]
		if p == nil || p.receiver != a {
			continue
		}
		if final {
			t.removeLocked(p)
		}
		return p
	}
	return nil
}

// take closes p; false when it was closed already (answered, timed out).
func (t *pendingTable) take(p *pending) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byToken[p.token] != p {
		return false
	}
	t.removeLocked(p)
	return true
}

func (t *pendingTable) removeLocked(p *pending) {
	delete(t.byToken, p.token)
	p.receiver.inflight.Add(-1)
	if p.taskID != "" {
		k := requesterKey{p.requester, p.taskID}
		if t.byTask[k] == p {
			delete(t.byTask, k)
		}
	}
	if p.timer != nil {
		p.timer.Stop()
	}
}

// takeReceiver closes and returns every open request sent to a.
func (t *pendingTable) takeReceiver(a *agent) []*pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*pending
	for _, p := range t.byToken {
		if p.receiver == a {
			t.removeLocked(p)
			out = append(out, p)
		}
	}
	return out
}

// wait adds s to those owed p's answer; false when p is closed.
func (t *pendingTable) wait(p *pending, s *Session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byToken[p.token] != p {
		return false
	}
	p.waiters = append(p.waiters, s)
	return true
}

// waiters returns the sessions owed p's answer besides its requester;
// final hands them over (p is closed, no more will come).
func (t *pendingTable) waiters(p *pending, final bool) []*Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := p.waiters
	if final {
		p.waiters = nil
	} else {
		w = append([]*Session(nil), w...)
	}
	return w
}

// isOpen reports whether p is still waiting for its answer.
func (t *pendingTable) isOpen(p *pending) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byToken[p.token] == p
}

// takeAll closes and returns every open request.
func (t *pendingTable) takeAll() []*pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*pending, 0, len(t.byToken))
	for _, p := range t.byToken {
		t.removeLocked(p)
		out = append(out, p)
	}
	return out
}

// forgetRequester drops the open requests of a session that went away.
func (t *pendingTable) forgetRequester(s *Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.byToken {
		if p.requester == s {
			t.removeLocked(p)
		}
	}
}

// count returns the number of open requests.
func (t *pendingTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byToken)
}

// restore writes the requester's correlation values into a message bound
// for it: the reply names what the requester expects to see.
func (p *pending) restore(env *canonical.Envelope) {
	env.InReplyTo = firstOf(p.replyWith, p.id, p.taskID, p.correlationID)
	env.CorrelationID = p.correlationID
	env.TaskID = p.taskID
	env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: p.sender.ID, Name: p.sender.Name}
	if env.Trace.TraceID == "" {
		env.Trace = p.trace
	}
}

// timeoutFor returns how long env may wait for its reply: its ttl, else
// its deadline, else def.
func timeoutFor(env *canonical.Envelope, def time.Duration, now time.Time) time.Duration {
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

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
