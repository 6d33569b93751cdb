package bridge

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// dispatch routes a received message: an answer to a request goes back to
// its requester, the bridge's own business is done here, and everything
// else goes to its receivers.
func (b *Bridge) dispatch(s *Session, env *canonical.Envelope, first *seen) Receipt {
	s.mu.Lock()
	a, from := s.agent, s.codec.Name()
	s.mu.Unlock()
	if a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) {
		if p := b.pending.match(a, env, false); p != nil {
			final := isFinal(env.Act)
			if final {
				failed := b.retries.retryable(env.Error)
				b.outcome(a, !failed)
				if failed && b.retry(p, env.Error) {
					return Receipt{} // the requester sees the retry's answer
				}
				if !b.pending.take(p) {
					return Receipt{} // answered or timed out meanwhile
				}
			}
			b.answer(p, from, env, final)
			return Receipt{}
		}
	}
	if r, ok := b.control(s, env, from); ok {
		return r
	}
	switch env.Receiver.Kind {
	case canonical.AddressAgent:
		return b.toAgent(s, env, from, b.canonicalID(from, env.Receiver.ID), first)
	case canonical.AddressTopic:
		return b.publish(s, env, from, env.Receiver.ID)
	case canonical.AddressBroadcast:
		return b.broadcast(s, env, from)
	}
	switch {
	case env.Act == canonical.ActEvent:
		return b.publish(s, env, from, env.Operation.Name)
	case isRequest(env.Act):
		return b.byCapability(s, env, from, first)
	}
	return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
		Message: fmt.Sprintf("%s: the %s names no receiver and answers no open request", from, env.Act)})
}

// isRequest reports whether act asks for an answer.
func isRequest(act canonical.Act) bool {
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActQueryCapabilities:
		return true
	}
	return false
}

// isFinal reports whether act ends a request (accept and needs-input do
// not: more follows).
func isFinal(act canonical.Act) bool {
	return act.IsReply() && act != canonical.ActAccept
}

// target is a connected agent a message is delivered to.
type target struct {
	agent   *agent
	session *Session
}

// lookup returns the agent registered as id and its delivering session.
func (b *Bridge) lookup(id string) (target, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	a := b.agents[id]
	if a == nil {
		return target{}, false
	}
	return target{a, a.session}, true
}

// toAgent delivers env to the agent id.
func (b *Bridge) toAgent(s *Session, env *canonical.Envelope, from, id string, first *seen) Receipt {
	t, ok := b.lookup(id)
	switch {
	case !ok:
		return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", env.Receiver.ID)})
	case t.session == nil:
		return s.refuse(env, &canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("agent %s is not connected", id)})
	}
	if isRequest(env.Act) {
		return b.request(s, env, from, t, first)
	}
	if err := b.send(from, env, t.session, false, b.unsent("message", t.session, env)); err != nil {
		return s.refuse(env, err)
	}
	return Receipt{}
}

// request delivers a request to t, to be answered back to s; first is its
// entry in the dedupe table, if it has one.
func (b *Bridge) request(s *Session, env *canonical.Envelope, from string, t target, first *seen) Receipt {
	if b.isClosing() {
		return s.refuse(env, b.closingRefusal())
	}
	if e := b.admit(t.agent); e != nil {
		return s.refuse(env, e)
	}
	now := time.Now()
	p := &pending{
		seen:      first,
		requester: b.answersTo(s), dialect: from,
		id: env.ID, replyWith: env.ReplyWith, correlationID: env.CorrelationID, taskID: env.TaskID,
		sender:   canonical.Party{ID: b.canonicalID(from, env.Sender.ID), Name: env.Sender.Name},
		receiver: t.agent, start: now, trace: env.Trace,
		level: levelOf(env.Priority),
	}
	d := timeoutFor(env, b.timeout, now)
	// A request with the task id of its requester's open one takes over
	// that one's token: the receiver sees one task.
	token, _ := b.pending.open(p, d, func() {
		b.timedOut(t.agent)
		b.outcome(t.agent, false)
		b.fail(p, canonical.ErrTimeout, fmt.Sprintf("no answer from %s within %s", t.agent.id, d))
	})
	if first != nil {
		b.dedupe.track(first, p)
	}
	out := *env
	out.ID = token
	for _, f := range [...]*string{&out.ReplyWith, &out.CorrelationID, &out.TaskID} {
		if *f != "" {
			*f = token
		}
	}
	// The accept goes first: the receiver may answer before this
	// goroutine would get to it, and an accept after the result would
	// confuse the requester. Should delivery then fail, the failure follows
	// the accept.
	if b.absorbsAccept(t.session.Dialect(), from) {
		b.acknowledge(p)
	}
	sent := out
	p.out.Store(&sent)
	if err := b.send(from, &out, t.session, false, b.deliveryFailed(p)); err != nil && !b.retry(p, err) {
		if b.pending.take(p) {
			b.reply(p, err)
		}
	}
	return Receipt{Awaiting: p.requester == s}
}

// answersTo returns the session the answers to s's requests go to: s,
// unless s is ephemeral and its agent has a connection of its own.
func (b *Bridge) answersTo(s *Session) *Session {
	if !s.opts.Ephemeral || s.opts.KeepAnswers {
		return s
	}
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	if a == nil {
		return s
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if a.session != nil {
		return a.session
	}
	return s
}

// answer delivers a receiver's message about an open request to the
// requester, with the requester's own correlation values.
func (b *Bridge) answer(p *pending, from string, env *canonical.Envelope, final bool) {
	out := *env
	p.restore(&out)
	b.toRequester(p, from, &out, final, "answer")
	if final {
		b.metrics.requestDone(p, time.Since(p.start))
	}
}

// toRequester sends env to p's requester, and to every copy of the
// request that came again while it was open. A final answer is kept for
// copies yet to come.
func (b *Bridge) toRequester(p *pending, from string, env *canonical.Envelope, final bool, what string) {
	d, err := b.encodeFor(from, env, p.requester, final)
	if err == nil && d != nil {
		d.failed = b.unsent(what, p.requester, env)
		// The requester asked: its answer is not held to its queue's bound.
		d.force = true
		b.boost(d, p, env)
		err = b.queue(d, p.requester, env)
	}
	if err != nil {
		b.log.Warn(what+" not delivered", "requester", p.sender.ID, "act", env.Act, "error", err.Message)
		return
	}
	if d == nil {
		return // dropped by a mapping policy
	}
	if final && b.dedupe != nil {
		b.dedupe.answered(p, d.out)
	}
	for _, w := range b.pending.waiters(p, final) {
		c := *d
		c.sent = nil
		if err := b.queue(&c, w, env); err != nil {
			b.log.Warn(what+" to a repeated request not delivered", "requester", p.sender.ID, "error", err.Message)
		}
	}
}

// fail answers an open request with an error made by the bridge on the
// receiver's behalf.
func (b *Bridge) fail(p *pending, code canonical.ErrorCode, msg string) {
	b.reply(p, &canonical.Error{Code: code, Message: msg})
}

// reply sends the requester of p the error e in place of an answer.
func (b *Bridge) reply(p *pending, e *canonical.Error) {
	env := &canonical.Envelope{
		Act:     actFor(e.Code),
		Sender:  canonical.Party{ID: p.receiver.id},
		Outcome: canonical.OutcomeFailure,
		Error:   e,
	}
	p.restore(env)
	b.toRequester(p, "", env, true, "error")
	b.metrics.errored(p.sender.ID, e.Code)
	b.metrics.requestDone(p, time.Since(p.start))
}

// acknowledge tells p's requester its request is being delivered (an
// accept), for a receiver whose dialect has no accept of its own.
func (b *Bridge) acknowledge(p *pending) {
	env := &canonical.Envelope{Act: canonical.ActAccept, Sender: canonical.Party{ID: p.receiver.id}}
	p.restore(env)
	if err := b.send("", env, p.requester, false, b.unsent("accept", p.requester, env)); err != nil {
		b.log.Warn("accept not delivered", "requester", p.sender.ID, "error", err.Message)
	}
}

// absorbsAccept reports whether the bridge accepts requests on behalf of
// agents of the dialect to, for requesters of the dialect from: to has no
// accept and a mapping policy drops it, and from has one.
func (b *Bridge) absorbsAccept(to, from string) bool {
	if b.has(to, canonical.ActAccept) || !b.has(from, canonical.ActAccept) {
		return false
	}
	pol, ok := b.maps.ActPolicy(to, canonical.ActAccept)
	return ok && pol.Do == mappings.PolicyDrop
}

// has reports whether dialect has a word of its own for act.
func (b *Bridge) has(dialect string, act canonical.Act) bool {
	_, exact, ok := b.maps.Vocabulary(dialect).Table(canonical.KindAct).Word(string(act))
	return ok && exact
}

// publish delivers an event to the subscribers of topic.
func (b *Bridge) publish(s *Session, env *canonical.Envelope, from, topic string) Receipt {
	b.mu.RLock()
	var ts []target
	for _, a := range b.agents {
		if a.topics[topic] && a.session != nil && a.session != s {
			ts = append(ts, target{a, a.session})
		}
	}
	b.mu.RUnlock()
	if len(ts) == 0 {
		b.log.Info("no subscribers", "topic", topic, "sender", env.Sender.ID, "dialect", from)
	}
	b.fanout(from, env, ts)
	return Receipt{}
}

// broadcast delivers env to every connected agent but its sender.
func (b *Bridge) broadcast(s *Session, env *canonical.Envelope, from string) Receipt {
	b.mu.RLock()
	ts := make([]target, 0, len(b.agents))
	for _, a := range b.agents {
		if a.session != nil && a.session != s {
			ts = append(ts, target{a, a.session})
		}
	}
	b.mu.RUnlock()
	b.fanout(from, env, ts)
	return Receipt{}
}

func (b *Bridge) fanout(from string, env *canonical.Envelope, ts []target) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].agent.id < ts[j].agent.id })
	for _, t := range ts {
		out := *env
		if err := b.send(from, &out, t.session, false, b.unsent("event", t.session, env)); err != nil {
			b.log.Warn("event not delivered", "receiver", t.agent.id, "error", err.Message)
		}
	}
}

// byCapability delivers a request that names no receiver to an agent that
// declared its operation.
func (b *Bridge) byCapability(s *Session, env *canonical.Envelope, from string, first *seen) Receipt {
	name := opName(from, env.Operation)
	if name == "" {
		return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("%s: the request names neither a receiver nor an operation", from)})
	}
	b.mu.RLock()
	var ts []target
	for _, a := range b.agents {
		if a.session == nil || a.session == s {
			continue
		}
		n := name
		if m, ok := b.maps.OperationName(from, name, a.dialect); ok {
			n = m
		}
		if a.serves(n) {
			ts = append(ts, target{a, a.session})
		}
	}
	b.mu.RUnlock()
	if len(ts) == 0 {
		return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no connected agent serves %q", name)})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].agent.id < ts[j].agent.id })
	if up := b.available(ts); len(up) > 0 {
		ts = up
	}
	t := ts[int(b.rr.Add(1)-1)%len(ts)]
	env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: b.spell(from, t.agent.id)}
	return b.request(s, env, from, t, first)
}

// opName spells an operation as operation names are written in mapping
// files: fuse's two levels as capability/action.
func opName(dialect string, op canonical.Operation) string {
	if op.Capability != "" && op.Name != "" {
		return op.Capability + "/" + op.Name
	}
	return firstOf(op.Name, op.Capability)
}

// send encodes env (decoded from the dialect from; "" for the bridge's own
// messages) for the session to and queues it there. What goes wrong at
// once (the receiver's dialect cannot express it, its queue is full) is
// returned; what goes wrong later (the link fails, the message expires in
// the queue) is told to failed, which may be nil.
func (b *Bridge) send(from string, env *canonical.Envelope, to *Session, final bool, failed func(reason error)) *canonical.Error {
	d, err := b.encodeFor(from, env, to, final)
	if err != nil || d == nil {
		return err
	}
	d.failed = failed
	return b.queue(d, to, env)
}

// encodeFor writes env in the dialect of the session to, as a delivery
// to queue there; nil when a mapping policy drops it.
func (b *Bridge) encodeFor(from string, env *canonical.Envelope, to *Session, final bool) (*delivery, *canonical.Error) {
	to.mu.Lock()
	codec, a := to.codec, to.agent
	to.mu.Unlock()
	res, err := b.tr.Encode(make([]byte, 0, encodedSize(env)), from, codec.Name(), env, translate.Options{})
	if err != nil {
		return nil, &canonical.Error{Code: canonical.ErrRejected, Message: err.Error()}
	}
	if res.Dropped {
		b.log.Info("dropped by mapping policy", "act", env.Act, "dialect", codec.Name(), "reason", res.Losses[0].Message())
		return nil, nil
	}
	b.lost(env, codec.Name(), res)
	o := Outbound{Frame: res.Output, Act: env.Act, Final: final, Trace: env.Trace, ByBridge: from == ""}
	if env.Error != nil {
		o.Code = env.Error.Code
	}
	n := noteOf(env)
	return &delivery{
		out: o, level: levelOf(env.Priority), expires: expiryOf(env, time.Now()),
		sent: func() { b.sent(from, &n, to, a, res.Output) },
	}, nil
}

// encodedSize is room enough for env in most dialects, so that encoding
// seldom grows its buffer: its raw payload fields, and 512 bytes for the
// rest.
func encodedSize(env *canonical.Envelope) int {
	n := 512
	for _, f := range [...]canonical.JSON{env.Arguments, env.Result, env.Context, env.Metadata, env.Inputs, env.Authentication, env.Extensions} {
		n += len(f)
	}
	return n
}

// queue puts d in the session to's queue; a full queue is a retryable
// unavailable error for the sender of env.
func (b *Bridge) queue(d *delivery, to *Session, env *canonical.Envelope) *canonical.Error {
	err := to.out.put(d)
	if err == nil {
		return nil
	}
	id := env.Receiver.ID
	if a := to.AgentID(); a != "" {
		id = a
	}
	e := &canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("%s cannot take it now: %v", id, err)}
	if errors.Is(err, errQueueFull) {
		yes := true
		e.Retryable = &yes
		e.Message = fmt.Sprintf("%s's queue is full (%d messages); retry later", id, b.queuePerAgent)
	}
	return e
}

// expiryOf returns when env stops being worth delivering: its ttl from
// now, else its deadline; zero when it has neither.
func expiryOf(env *canonical.Envelope, now time.Time) time.Time {
	if env.TTL.Set && env.TTL.D > 0 {
		return now.Add(env.TTL.D)
	}
	if t, ok := env.Deadline.Parse(); ok {
		return t
	}
	return time.Time{}
}

// unsent returns a failure handler that logs what could not be delivered.
func (b *Bridge) unsent(what string, to *Session, env *canonical.Envelope) func(error) {
	return func(reason error) {
		b.log.Warn(what+" not delivered", "receiver", to.AgentID(), "act", env.Act, "error", reason.Error())
	}
}

// available keeps the targets that are not UNAVAILABLE.
func (b *Bridge) available(ts []target) []target {
	b.mu.RLock()
	defer b.mu.RUnlock()
	var up []target
	for _, t := range ts {
		if t.agent.status != StatusUnavailable {
			up = append(up, t)
		}
	}
	return up
}

// boost raises an answer to its request's priority (specs/collab.md 8.2):
// a HIGH request's answer sent as NORMAL would otherwise wait behind the
// requester's NORMAL traffic, holding up a HIGH task with a lower one. The
// boost is for the queue only; the message keeps its own priority.
func (b *Bridge) boost(d *delivery, p *pending, env *canonical.Envelope) {
	if d.level >= p.level {
		return
	}
	b.log.Info("priority boost", "requester", p.sender.ID, "from", p.receiver.id, "act", env.Act,
		"priority", levelName(d.level), "raised_to", levelName(p.level))
	b.metrics.boosts.Inc()
	d.level = p.level
}

// levelName names a queue level as the canonical priority scale does.
func levelName(level int) string {
	if p, ok := canonical.PriorityFromLevel(level); ok {
		return p.String()
	}
	return fmt.Sprint(level)
}
