package bridge

import (
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/dedupe"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// submit routes a message from the endpoint ep, its agent ids canonical: a
// message sent again within the dedupe window is handled as a duplicate;
// an answer to a request goes back to its requester, the bridge's own
// business is done here, and everything else goes to its receivers.
func (b *Bridge) submit(ep endpoint, env *canonical.Envelope) Receipt {
	var first dedupeID // none
	a := ep.bound()
	if b.dedupe != nil && env.Sender.ID != "" && !b.answersOpenRequest(a, env) {
		if id, ok := dedupe.Identify(env.Sender.ID, env); ok {
			if b.dedupe.Check(id, time.Now()) {
				return b.duplicate(ep, env, id)
			}
			first = id
		}
	}
	return b.dispatch(ep, a, env, first)
}

func (b *Bridge) dispatch(ep endpoint, a *agent, env *canonical.Envelope, first dedupeID) Receipt {
	if a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) {
		if p := b.pending.Match(a, env, false); p != nil {
			b.answered(p, env, ep.prompt())
			return Receipt{}
		}
		if b.relayed(a, env) {
			return Receipt{}
		}
		if b.pending.Late(env) {
			b.events.Emit(event.Event{Kind: event.Late, Env: env, Agent: a.ID()})
			return Receipt{}
		}
	}
	if a != nil && env.Act == canonical.ActEvent {
		// An event about an open request, for its requester: progress.
		if p := b.pending.Match(a, env, false); p != nil && (env.Receiver.Kind == canonical.AddressNone ||
			env.Receiver.Kind == canonical.AddressAgent && env.Receiver.ID == p.Sender.ID) {
			b.answered(p, env, ep.prompt())
			return Receipt{}
		}
		if b.relayed(a, env) {
			return Receipt{}
		}
	}
	if r, ok := b.control(ep, env); ok {
		return r
	}
	switch env.Receiver.Kind {
	case canonical.AddressAgent:
		return b.toAgent(ep, env, first)
	case canonical.AddressTopic:
		return b.publish(ep, env, env.Receiver.ID)
	case canonical.AddressBroadcast:
		return b.broadcast(ep, env)
	}
	switch {
	case env.Act == canonical.ActEvent:
		return b.publish(ep, env, env.Operation.Name)
	case isRequest(env.Act):
		return b.byCapability(ep, env, first)
	}
	return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
		Message: fmt.Sprintf("%s: the %s names no receiver and answers no open request", env.Origin.Dialect, env.Act)})
}

// answered handles a receiver's message about its open request p: a final
// answer closes p (unless it is retried) and goes to the requester, as does
// an interim one.
func (b *Bridge) answered(p *pending, env *canonical.Envelope, prompt bool) {
	final := isFinal(env.Act)
	if final {
		failed := b.retries.Retryable(env.Error)
		b.outcome(p.Receiver, !failed)
		if failed && b.retry(p, env.Error) {
			return // the requester sees the retry's answer
		}
		if !b.pending.Take(p) {
			return // answered or timed out meanwhile
		}
	}
	if final {
		b.events.Emit(event.Event{Kind: event.Answered, Agent: p.Sender.ID, To: p.Receiver.ID(), Duration: time.Since(p.Start)})
	}
	out := *env
	b.copied(env, &out)
	b.restore(p, &out)
	b.toRequester(p, &out, final, false, prompt, "answer")
	if final && p.Span != nil {
		p.Span(env.Error)
	}
}

// answersOpenRequest reports whether env, from the agent a, answers a
// request still waiting: such an answer is needed, even when it repeats an
// earlier one (an agent answering a retry as it answered the first attempt).
func (b *Bridge) answersOpenRequest(a *agent, env *canonical.Envelope) bool {
	return a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) && b.pending.Match(a, env, false) != nil
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

// toAgent delivers env to the agent its receiver names.
func (b *Bridge) toAgent(ep endpoint, env *canonical.Envelope, first dedupeID) Receipt {
	id := env.Receiver.ID
	a, to, ok := b.dir.Lookup(id)
	switch {
	case !ok:
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", id)})
	case to == nil:
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("agent %s is not connected", id)})
	}
	if isRequest(env.Act) {
		return b.request(ep, env, target{Agent: a, Endpoint: to}, first)
	}
	if _, err := to.deliver(&outgoing{env: env, from: env.Origin.Dialect}); err != nil {
		if env.Act == canonical.ActEvent && err.Code == canonical.ErrRejected {
			// An event is not answered (every spec says so): one the
			// receiver's dialect cannot express is skipped, as for a
			// broadcast, with a log line.
			b.log.Info("event not delivered", "receiver", a.ID(), "dialect", a.Dialect(), "reason", err.Message)
			return Receipt{}
		}
		return ep.refuse(env, err)
	}
	return Receipt{}
}

// request delivers a request to t, to be answered back to ep; first is its
// identity in the dedupe table, zero if it has none.
func (b *Bridge) request(ep endpoint, env *canonical.Envelope, t target, first dedupeID) Receipt {
	if b.isClosing() {
		return ep.refuse(env, b.closingRefusal())
	}
	if e := b.admit(t.Agent); e != nil {
		return ep.refuse(env, e)
	}
	now := time.Now()
	requester := b.answersTo(ep)
	p := &pending{
		Requester: requester, Dialect: env.Origin.Dialect,
		ID: env.ID, ReplyWith: env.ReplyWith, CorrelationID: env.CorrelationID, TaskID: env.TaskID,
		Sender:   canonical.Party{ID: env.Sender.ID, Name: env.Sender.Name},
		Receiver: t.Agent, Start: now, Trace: env.Trace,
		Priority: env.Priority, Level: delivery.LevelOf(env.Priority),
	}
	p.DedupeKey = first
	if tr := b.tracer; tr != nil {
		p.Trace, p.Span = tr.Request(env.Trace, env, t.Agent.ID())
	}
	d := correlation.TimeoutFor(env, b.timeout, now)
	// A request with the task id of its requester's open one takes over
	// that one's token: the receiver sees one task.
	token, _, oldest := b.pending.Open(p, d, func() {
		b.events.Emit(event.Event{Kind: event.Expired, Agent: p.Sender.ID, To: t.Agent.ID(), Duration: d})
		b.dir.TimedOut(t.Agent)
		b.outcome(t.Agent, false)
		b.givenUp(p)
		b.fail(p, canonical.ErrTimeout, fmt.Sprintf("no answer from %s within %s", t.Agent.ID(), d))
	})
	if oldest != nil {
		b.evicted(oldest)
	}
	if first != (dedupeID{}) {
		b.dedupe.Track(first, token)
	}
	out := *env
	b.copied(env, &out)
	out.ID, out.Trace = token, p.Trace
	for _, f := range [...]*string{&out.ReplyWith, &out.CorrelationID, &out.TaskID} {
		if *f != "" {
			*f = token
		}
	}
	// The accept goes first: the receiver may answer before this
	// goroutine would get to it, and an accept after the result would
	// confuse the requester. Should delivery then fail, the failure follows
	// the accept.
	if b.absorbsAccept(t.Agent.Dialect(), env.Origin.Dialect) {
		b.acknowledge(p)
	}
	// Delivery copies what it translates: out stays as it is, for retries.
	p.Out.Store(&out)
	o := &outgoing{env: &out, from: env.Origin.Dialect, failed: b.deliveryFailed(p), prompt: ep.prompt()}
	if c, ok := requester.(*call); ok {
		o.sent = c.delivered
		c.token.Store(&token)
	}
	if _, err := t.Endpoint.deliver(o); err != nil && !b.retry(p, err) {
		if b.pending.Take(p) {
			b.reply(p, err)
		}
	}
	return Receipt{Awaiting: requester == ep}
}

// givenUp tells the receiver of p, if its link can hear it, that the bridge
// no longer waits for p's answer (it timed out, its caller cancelled).
func (b *Bridge) givenUp(p *pending) {
	_, ep, _ := b.dir.Lookup(p.Receiver.ID())
	if s, ok := ep.(*Session); ok {
		if c, ok := s.link.(Canceller); ok {
			go c.Cancel(p.Token)
		}
	}
}

// answersTo returns the endpoint the answers to ep's requests go to: ep,
// unless it is an ephemeral session and its agent has a connection of its
// own.
func (b *Bridge) answersTo(ep endpoint) endpoint {
	s, ok := ep.(*Session)
	if !ok || !s.opts.Ephemeral || s.opts.KeepAnswers {
		return ep
	}
	a := s.bound()
	if a == nil {
		return ep
	}
	if _, own, ok := b.dir.Lookup(a.ID()); ok && own != nil {
		return own
	}
	return ep
}

// toRequester sends env, about the request p, to p's requester and to
// every requester that sent the request again while it was open. A final
// answer is kept for copies yet to come. byBridge marks the bridge's own
// errors; prompt lets the goroutine delivering it write it (outgoing).
func (b *Bridge) toRequester(p *pending, env *canonical.Envelope, final, byBridge, prompt bool, what string) {
	o := &outgoing{env: env, from: env.Origin.Dialect, final: final, answer: true, atLeast: p.Level, byBridge: byBridge, prompt: prompt}
	o.failed = b.unsent(what, p.Requester, env)
	frame, err := p.Requester.deliver(o)
	if err != nil {
		b.log.Warn(what+" not delivered", "requester", p.Sender.ID, "act", env.Act, "error", err.Message)
		return
	}
	if final && b.dedupe != nil && frame != nil {
		b.dedupe.Answered(p.DedupeKey, p.Token, *frame)
	}
	for _, w := range b.pending.Waiters(p, final) {
		c := *o
		c.failed = b.unsent(what+" to a repeated request", w, env)
		if _, err := w.deliver(&c); err != nil {
			b.log.Warn(what+" to a repeated request not delivered", "requester", p.Sender.ID, "error", err.Message)
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
		Sender:  canonical.Party{ID: p.Receiver.ID()},
		Outcome: canonical.OutcomeFailure,
		Error:   e.SayRetryable(),
	}
	b.restore(p, env)
	b.events.Emit(event.Event{Kind: event.Answered, Agent: p.Sender.ID, To: p.Receiver.ID(), Duration: time.Since(p.Start), Err: e, ByBridge: true})
	b.toRequester(p, env, true, true, false, "error")
	if p.Span != nil {
		p.Span(e)
	}
}

// restore writes p's correlation values into env, bound for p's requester
// (correlation.Request.Restore). A message that Restore made a child of
// the request's span gets a span of its own: the tracer's deliver span
// when traces are on, else a fresh span id (collab: "SpanID: unique per
// message").
func (b *Bridge) restore(p *pending, env *canonical.Envelope) {
	if p.Restore(env) && b.tracer == nil {
		env.Trace.SpanID = canonical.NewSpanID()
	}
}

// acknowledge tells p's requester its request is being delivered (an
// accept), for a receiver whose dialect has no accept of its own.
func (b *Bridge) acknowledge(p *pending) {
	env := &canonical.Envelope{Act: canonical.ActAccept, Sender: canonical.Party{ID: p.Receiver.ID()}}
	b.restore(p, env)
	if _, err := p.Requester.deliver(&outgoing{env: env, byBridge: true, failed: b.unsent("accept", p.Requester, env)}); err != nil {
		b.log.Warn("accept not delivered", "requester", p.Sender.ID, "error", err.Message)
	}
}

// absorbsAccept reports whether the bridge accepts requests on behalf of
// agents of the dialect to, for requesters of the dialect from: to has no
// accept and a mapping policy drops it, and from has one.
func (b *Bridge) absorbsAccept(to, from string) bool {
	m := b.mapping()
	if m.HasAct(to, canonical.ActAccept) || !m.HasAct(from, canonical.ActAccept) {
		return false
	}
	pol, ok := m.ActPolicy(to, canonical.ActAccept)
	return ok && pol.Do == mappings.PolicyDrop
}

// publish delivers an event to the subscribers of topic.
func (b *Bridge) publish(ep endpoint, env *canonical.Envelope, topic string) Receipt {
	ts := b.dir.Connected(ep, func(a *agent) bool { return a.Follows(topic) })
	if len(ts) == 0 {
		b.log.Info("no subscribers", "topic", topic, "sender", env.Sender.ID, "dialect", env.Origin.Dialect)
	}
	b.fanout(env, ts)
	return Receipt{}
}

// broadcast delivers env to every connected agent but its sender.
func (b *Bridge) broadcast(ep endpoint, env *canonical.Envelope) Receipt {
	b.fanout(env, b.dir.Connected(ep, nil))
	return Receipt{}
}

// fanout delivers env to each target, in the order given.
func (b *Bridge) fanout(env *canonical.Envelope, ts []target) {
	for _, t := range ts {
		if _, err := t.Endpoint.deliver(&outgoing{env: env, from: env.Origin.Dialect, failed: b.unsent("event", t.Endpoint, env)}); err != nil {
			b.log.Warn("event not delivered", "receiver", t.Agent.ID(), "error", err.Message)
		}
	}
}

// byCapability delivers a request that names no receiver to an agent that
// declared its operation.
func (b *Bridge) byCapability(ep endpoint, env *canonical.Envelope, first dedupeID) Receipt {
	from := env.Origin.Dialect
	name := opName(env.Operation)
	if name == "" {
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("%s: the request names neither a receiver nor an operation", from)})
	}
	ts := b.dir.Connected(ep, func(a *agent) bool {
		n := name
		if m, ok := b.mapping().OperationName(from, name, a.Dialect()); ok {
			n = m
		}
		return a.Serves(n)
	})
	if len(ts) == 0 {
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no connected agent serves %q", name)})
	}
	if up := b.dir.Available(ts); len(up) > 0 {
		ts = up
	}
	t := ts[int(b.rr.Add(1)-1)%len(ts)]
	env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: t.Agent.ID()}
	return b.request(ep, env, t, first)
}

// opName spells an operation as operation names are written in mapping
// files: fuse's two levels as capability/action.
func opName(op canonical.Operation) string {
	if op.Capability != "" && op.Name != "" {
		return op.Capability + "/" + op.Name
	}
	return firstOf(op.Name, op.Capability)
}

// unsent returns a failure handler that logs what could not be delivered
// to ep.
func (b *Bridge) unsent(what string, ep endpoint, env *canonical.Envelope) func(error) {
	act := env.Act
	return func(reason error) {
		receiver := "anonymous"
		if a := ep.bound(); a != nil {
			receiver = a.ID()
		}
		b.log.Warn(what+" not delivered", "receiver", receiver, "act", act, "error", reason.Error())
	}
}
