package bridge

import (
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Duplicate suppression: a message whose sender sends it again (the same
// message id; for a dialect without message ids, bluelabel, the same act,
// task id and retry_count) within the window is delivered once. A request
// sent again is answered from the first: with its answer once that comes
// (again for each copy), or at once with the answer already given.

// The bounds of the dedupe table: how many messages it remembers, and how
// many bytes of answers it keeps for requests sent again.
const (
	dedupeMaxKeys    = 100_000
	dedupeMaxAnswers = 32 << 20
	dedupeMaxAnswer  = 64 << 10
)

// seen is what the bridge remembers of one message.
type seen struct {
	key string
	at  time.Time
	// For a request: the token of the open request while it waits, then
	// its answer (nil when it was not kept).
	token  string
	answer *Outbound
}

// dedupe remembers recent messages by key, oldest first.
type dedupe struct {
	window time.Duration
	mu     sync.Mutex
	byKey  map[string]*seen
	order  []*seen // by arrival; the front is the oldest
	bytes  int     // of kept answers
}

func newDedupe(window time.Duration) *dedupe {
	return &dedupe{window: window, byKey: map[string]*seen{}}
}

// dedupeKey returns the identity of env from the agent sender, or "" when
// it has none to go by. An answer's identity includes what it answers: an
// agent that restarts and counts its message ids from one again is not
// repeating its earlier answers.
func dedupeKey(sender string, env *canonical.Envelope) string {
	switch {
	case env.ID != "" && env.Act.IsReply():
		return sender + "\x00id\x00" + env.ID + "\x00" + env.InReplyTo + "\x00" + env.CorrelationID + "\x00" + env.TaskID
	case env.ID != "":
		return sender + "\x00id\x00" + env.ID
	case env.TaskID != "":
		retry := "0"
		for _, f := range env.Extra {
			if f.Parent == "" && f.Key == "retry_count" {
				retry = string(f.Value)
			}
		}
		return sender + "\x00task\x00" + string(env.Act) + "\x00" + env.TaskID + "\x00" + retry
	}
	return ""
}

// check records key, or returns what was recorded under it within the
// window: a duplicate.
func (d *dedupe) check(key string, now time.Time) (first *seen, dup bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked(now)
	if s := d.byKey[key]; s != nil {
		return s, true
	}
	s := &seen{key: strings.Clone(key), at: now}
	d.byKey[s.key] = s
	d.order = append(d.order, s)
	if len(d.order) > dedupeMaxKeys {
		d.dropLocked()
	}
	return s, false
}

// expireLocked forgets what is older than the window.
func (d *dedupe) expireLocked(now time.Time) {
	for len(d.order) > 0 && now.Sub(d.order[0].at) > d.window {
		d.dropLocked()
	}
}

func (d *dedupe) dropLocked() {
	s := d.order[0]
	d.order[0] = nil
	d.order = d.order[1:]
	if d.byKey[s.key] == s {
		delete(d.byKey, s.key)
	}
	if s.answer != nil {
		d.bytes -= len(s.answer.Frame)
	}
}

// track ties the first copy of a request to its open request's token.
func (d *dedupe) track(s *seen, token string) {
	d.mu.Lock()
	s.token = token
	d.mu.Unlock()
}

// answered keeps the answer a request got, for copies that come later;
// answers too large for the budget are not kept.
func (d *dedupe) answered(p *pending, out Outbound) {
	if p.DedupeKey == "" || len(out.Frame) > dedupeMaxAnswer {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.byKey[p.DedupeKey]
	if s == nil || s.token != p.Token || d.bytes+len(out.Frame) > dedupeMaxAnswers {
		return
	}
	s.answer = &out
	s.token = ""
	d.bytes += len(out.Frame)
}

// state returns, under the lock, what the first copy has come to: the
// token of its open request, or its answer.
func (d *dedupe) state(s *seen) (string, *Outbound) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return s.token, s.answer
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
