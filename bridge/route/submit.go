package route

import (
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/dedupe"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// submit routes a message from the endpoint ep, its agent ids canonical: a
// message sent again within the dedupe window is handled as a duplicate;
// an answer to a request goes back to its requester, the bridge's own
// business is done here, and everything else goes to its receivers.
//
// A message of the call API whose id the bridge made for it (call.made)
// cannot repeat one seen before: it is neither looked up in the dedupe
// table nor kept there, where it would push out the agents' messages at
// the table's bound.
func (r *Router) Submit(ep Endpoint, env *canonical.Envelope) Receipt {
	var first dedupe.Key // none
	a := ep.Bound()
	if r.dedupe != nil && env.Sender.ID != "" && !madeHere(ep, env) && !r.answersOpenRequest(a, env) {
		if id, ok := dedupe.Identify(env.Sender.ID, env); ok {
			if r.dedupe.Check(id, time.Now()) {
				return r.duplicate(ep, env, id)
			}
			first = id
		}
	}
	return r.dispatch(ep, a, env, first)
}

func (r *Router) dispatch(ep Endpoint, a *Agent, env *canonical.Envelope, first dedupe.Key) Receipt {
	if a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) {
		if p := r.pending.Match(a, env, false); p != nil {
			r.answered(p, env, ep.Prompt())
			return Receipt{}
		}
		if r.relayed(a, env) {
			return Receipt{}
		}
		if r.pending.Late(env) {
			r.events.Emit(event.Event{Kind: event.Late, Env: env, Agent: a.ID()})
			return Receipt{}
		}
	}
	if a != nil && env.Act == canonical.ActEvent {
		// An event about an open request, for its requester: progress.
		if p := r.pending.Match(a, env, false); p != nil && (env.Receiver.Kind == canonical.AddressNone ||
			env.Receiver.Kind == canonical.AddressAgent && env.Receiver.ID == p.Sender.ID) {
			r.answered(p, env, ep.Prompt())
			return Receipt{}
		}
		if r.relayed(a, env) {
			return Receipt{}
		}
	}
	if r, ok := r.control.handle(ep, env); ok {
		return r
	}
	switch env.Receiver.Kind {
	case canonical.AddressAgent:
		return r.toAgent(ep, env, first)
	case canonical.AddressTopic:
		return r.publish(ep, env, env.Receiver.ID)
	case canonical.AddressBroadcast:
		return r.broadcast(ep, env)
	}
	switch {
	case env.Act == canonical.ActEvent:
		return r.publish(ep, env, env.Operation.Name)
	case IsRequest(env.Act):
		return r.byCapability(ep, env, first)
	}
	return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
		Message: fmt.Sprintf("%s: the %s names no receiver and answers no open request", env.Origin.Dialect, env.Act)})
}

// answered handles a receiver's message about its open request p: a final
// answer closes p (unless it is retried) and goes to the requester, as does
// an interim one.
func (r *Router) answered(p *Request, env *canonical.Envelope, prompt bool) {
	final := IsFinal(env.Act)
	if final {
		failed := r.res.policy.Retryable(env.Error)
		r.res.outcome(p.Receiver, !failed)
		if failed && r.res.retry(p, env.Error) {
			return // the requester sees the retry's answer
		}
		if !r.pending.Take(p) {
			return // answered or timed out meanwhile
		}
	}
	if final {
		r.events.Emit(event.Event{Kind: event.Answered, Agent: p.Sender.ID, To: p.Receiver.ID(), Duration: time.Since(p.Start), Err: env.Error})
	}
	a := &answer{env: *env}
	r.copied(env, &a.env)
	r.restore(p, &a.env)
	r.toRequester(p, a, final, false, prompt, "answer")
	if final && p.Span != nil {
		p.Span(env.Error)
	}
}

// answersOpenRequest reports whether env, from the agent a, answers a
// request still waiting, here or on the instance that forwarded it: such an
// answer is needed, even when it repeats an earlier one (an agent answering
// a retry as it answered the first attempt, or two requests alike).
func (r *Router) answersOpenRequest(a *Agent, env *canonical.Envelope) bool {
	return a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) &&
		(r.pending.Match(a, env, false) != nil || r.relays(a, env))
}

// toAgent delivers env to the agent its receiver names.
func (r *Router) toAgent(ep Endpoint, env *canonical.Envelope, first dedupe.Key) Receipt {
	id := env.Receiver.ID
	a, to, ok := r.dir.Lookup(id)
	switch {
	case !ok:
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", id)})
	case to == nil:
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("agent %s is not connected", id)})
	}
	if IsRequest(env.Act) {
		return r.request(ep, env, Target{Agent: a, Endpoint: to}, first)
	}
	if _, err := to.Deliver(&Outgoing{Env: env, From: env.Origin.Dialect}); err != nil {
		if env.Act == canonical.ActEvent && err.Code == canonical.ErrRejected {
			// An event is not answered (every spec says so): one the
			// receiver's dialect cannot express is skipped, as for a
			// broadcast, with a log line.
			r.log.Info("event not delivered", "receiver", a.ID(), "dialect", a.Dialect(), "reason", err.Message)
			return Receipt{}
		}
		return ep.Refuse(env, err)
	}
	return Receipt{}
}

// request delivers a request to t, to be answered back to ep; first is its
// identity in the dedupe table, zero if it has none.
func (r *Router) request(ep Endpoint, env *canonical.Envelope, t Target, first dedupe.Key) Receipt {
	if r.closing.Load() {
		return ep.Refuse(env, closingRefusal())
	}
	if e := r.res.admit(t.Agent); e != nil {
		return ep.Refuse(env, e)
	}
	now := time.Now()
	requester := r.answersTo(ep)
	// The request and its first delivery are made as one object: both
	// live while either is needed (the request while it is open, the
	// delivery's failure handler while it is queued), and neither is
	// reused.
	made := new(opening)
	p, dv := &made.p, &made.d
	*p = Request{
		Requester: requester, Dialect: env.Origin.Dialect,
		ID: env.ID, ReplyWith: env.ReplyWith, CorrelationID: env.CorrelationID, TaskID: env.TaskID,
		Sender:   canonical.Party{ID: env.Sender.ID, Name: env.Sender.Name},
		Receiver: t.Agent, Start: now, Trace: env.Trace,
		Priority: env.Priority, Level: delivery.LevelOf(env.Priority),
	}
	p.DedupeKey = first
	if r.events.Wants(event.Spans) {
		r.events.Emit(event.Event{Kind: event.Requested, Env: env, Agent: env.Sender.ID, To: t.Agent.ID(), Span: &event.Span{Trace: &p.Trace, End: &p.Span}})
	}
	d := correlation.TimeoutFor(env, r.timeout, now)
	// A request with the task id of its requester's open one takes over
	// that one's token: the receiver sees one task. When its time limit
	// runs out, the table's expiry handler (New) gives it up.
	token, _, oldest := r.pending.Open(p, d)
	if oldest != nil {
		r.evicted(oldest)
	}
	if first != (dedupe.Key{}) {
		r.dedupe.Track(first, token)
	}
	// The request as delivered is kept for retries (p.Out) as long as p
	// is: it lives in p, one object rather than two.
	out := &p.Delivered
	*out = *env
	r.copied(env, out)
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
	if r.absorbsAccept(t.Agent.Dialect(), env.Origin.Dialect) {
		r.acknowledge(p)
	}
	// Delivery copies what it translates: out stays as it is, for retries.
	p.Out.Store(out)
	dv.rs, dv.p = &r.res, p
	o := &dv.o
	*o = Outgoing{Env: out, From: env.Origin.Dialect, Failure: dv, Prompt: ep.Prompt()}
	if c, ok := requester.(*call); ok {
		o.Sent = c.delivered
		tok := token // a copy: &token would move token to the heap for every request
		c.token.Store(&tok)
	}
	if _, err := t.Endpoint.Deliver(o); err != nil && !r.res.retry(p, err) {
		if r.pending.Take(p) {
			r.reply(p, err)
		}
	}
	return Receipt{Awaiting: requester == ep}
}

// opening is a request opened and its first delivery (request).
type opening struct {
	p Request
	d requestDelivery
}

// givenUp tells the receiver of p, if its link can hear it, that the bridge
// no longer waits for p's answer (it timed out, its caller cancelled).
func (r *Router) givenUp(p *Request) {
	_, ep, _ := r.dir.Lookup(p.Receiver.ID())
	if c, ok := ep.(Canceller); ok {
		go c.Cancel(p.Token)
	}
}

// answersTo returns the endpoint the answers to ep's requests go to: ep,
// unless it is ephemeral (Ephemeral) and its agent has a connection of its
// own.
func (r *Router) answersTo(ep Endpoint) Endpoint {
	e, ok := ep.(Ephemeral)
	if !ok || e.KeepsAnswers() {
		return ep
	}
	a := ep.Bound()
	if a == nil {
		return ep
	}
	if _, own, ok := r.dir.Lookup(a.ID()); ok && own != nil {
		return own
	}
	return ep
}

// answer is a message about a request on its way to its requester: the
// envelope, the Outgoing that carries it and what logs its failure, made
// as one object rather than three. The envelope and the failure handler
// are kept with the queued message (and the envelope by whatever keeps
// what it is delivered); the Outgoing is done with when Deliver returns.
type answer struct {
	env    canonical.Envelope
	o      Outgoing
	unsent unsent
}

// unsent logs a message that could not be delivered, as Router.Unsent's
// handlers do.
type unsent struct {
	r    *Router
	what string
	ep   Endpoint
	act  canonical.Act
}

// Unsent logs that the message was not delivered, and why.
func (u *unsent) Unsent(reason error) {
	receiver := "anonymous"
	if a := u.ep.Bound(); a != nil {
		receiver = a.ID()
	}
	u.r.log.Warn(u.what+" not delivered", "receiver", receiver, "act", u.act, "error", reason.Error())
}

// toRequester sends a.env, about the request p, to p's requester and to
// every requester that sent the request again while it was open. A final
// answer is kept for copies yet to come. byBridge marks the bridge's own
// errors; prompt lets the goroutine delivering it write it (outgoing).
func (r *Router) toRequester(p *Request, a *answer, final, byBridge, prompt bool, what string) {
	env := &a.env
	a.unsent = unsent{r: r, what: what, ep: p.Requester, act: env.Act}
	o := &a.o
	*o = Outgoing{Env: env, From: env.Origin.Dialect, Final: final, Answer: true, AtLeast: p.Level, ByBridge: byBridge, Prompt: prompt,
		Failure: &a.unsent}
	frame, err := p.Requester.Deliver(o)
	if err != nil {
		r.log.Warn(what+" not delivered", "requester", p.Sender.ID, "act", env.Act, "error", err.Message)
		return
	}
	if final && r.dedupe != nil && frame != nil {
		r.dedupe.Answered(p.DedupeKey, p.Token, *frame)
	}
	for _, w := range r.pending.Waiters(p, final) {
		c := *o
		c.Failure = r.Unsent(what+" to a repeated request", w, env)
		if _, err := w.Deliver(&c); err != nil {
			r.log.Warn(what+" to a repeated request not delivered", "requester", p.Sender.ID, "error", err.Message)
		}
	}
}

// Fail answers an open request with an error made by the bridge on the
// receiver's behalf.
func (r *Router) Fail(p *Request, code canonical.ErrorCode, msg string) {
	r.reply(p, &canonical.Error{Code: code, Message: msg})
}

// reply sends the requester of p the error e in place of an answer.
func (r *Router) reply(p *Request, e *canonical.Error) {
	a := &answer{env: canonical.Envelope{
		Act:     ActFor(e.Code),
		Sender:  canonical.Party{ID: p.Receiver.ID()},
		Outcome: canonical.OutcomeFailure,
		Error:   e.SayRetryable(),
	}}
	r.restore(p, &a.env)
	r.events.Emit(event.Event{Kind: event.Answered, Agent: p.Sender.ID, To: p.Receiver.ID(), Duration: time.Since(p.Start), Err: e, ByBridge: true})
	r.toRequester(p, a, true, true, false, "error")
	if p.Span != nil {
		p.Span(e)
	}
}

// restore writes p's correlation values into env, bound for p's requester
// (correlation.Request.Restore). A message that Restore made a child of
// the request's span gets a span of its own: the tracer's deliver span
// when traces are on, else a fresh span id (collab: "SpanID: unique per
// message").
func (r *Router) restore(p *Request, env *canonical.Envelope) {
	if p.Restore(env) && !r.events.Wants(event.Spans) {
		env.Trace.SpanID = canonical.NewSpanID()
	}
}

// acknowledge tells p's requester its request is being delivered (an
// accept), for a receiver whose dialect has no accept of its own.
func (r *Router) acknowledge(p *Request) {
	env := &canonical.Envelope{Act: canonical.ActAccept, Sender: canonical.Party{ID: p.Receiver.ID()}}
	r.restore(p, env)
	if _, err := p.Requester.Deliver(&Outgoing{Env: env, ByBridge: true, Failure: r.Unsent("accept", p.Requester, env)}); err != nil {
		r.log.Warn("accept not delivered", "requester", p.Sender.ID, "error", err.Message)
	}
}

// absorbsAccept reports whether the bridge accepts requests on behalf of
// agents of the dialect to, for requesters of the dialect from: to has no
// accept and a mapping policy drops it, and from has one.
func (r *Router) absorbsAccept(to, from string) bool {
	m := r.rules.Load().Mappings
	if m.HasAct(to, canonical.ActAccept) || !m.HasAct(from, canonical.ActAccept) {
		return false
	}
	pol, ok := m.ActPolicy(to, canonical.ActAccept)
	return ok && pol.Do == mappings.PolicyDrop
}

// publish delivers an event to the subscribers of topic.
func (r *Router) publish(ep Endpoint, env *canonical.Envelope, topic string) Receipt {
	ts := r.dir.Connected(ep, func(a *Agent) bool { return a.Follows(topic) })
	if len(ts) == 0 {
		r.log.Info("no subscribers", "topic", topic, "sender", env.Sender.ID, "dialect", env.Origin.Dialect)
	}
	r.fanout(env, ts)
	return Receipt{}
}

// broadcast delivers env to every connected agent but its sender.
func (r *Router) broadcast(ep Endpoint, env *canonical.Envelope) Receipt {
	r.fanout(env, r.dir.Connected(ep, nil))
	return Receipt{}
}

// fanout delivers env to each target, in the order given.
func (r *Router) fanout(env *canonical.Envelope, ts []Target) {
	for _, t := range ts {
		if _, err := t.Endpoint.Deliver(&Outgoing{Env: env, From: env.Origin.Dialect, Failure: r.Unsent("event", t.Endpoint, env)}); err != nil {
			r.log.Warn("event not delivered", "receiver", t.Agent.ID(), "error", err.Message)
		}
	}
}

// byCapability delivers a request that names no receiver to an agent that
// declared its operation.
func (r *Router) byCapability(ep Endpoint, env *canonical.Envelope, first dedupe.Key) Receipt {
	from := env.Origin.Dialect
	name := event.OpName(env.Operation)
	if name == "" {
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("%s: the request names neither a receiver nor an operation", from)})
	}
	ts := r.dir.Connected(ep, func(a *Agent) bool {
		n := name
		if m, ok := r.rules.Load().Mappings.OperationName(from, name, a.Dialect()); ok {
			n = m
		}
		return a.Serves(n)
	})
	if len(ts) == 0 {
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no connected agent serves %q", name)})
	}
	if up := r.dir.Available(ts); len(up) > 0 {
		ts = up
	}
	t := ts[int(r.rr.Add(1)-1)%len(ts)]
	env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: t.Agent.ID()}
	return r.request(ep, env, t, first)
}

// Unsent returns a failure handler that logs what could not be delivered
// to ep.
func (r *Router) Unsent(what string, ep Endpoint, env *canonical.Envelope) Failure {
	return &unsent{r: r, what: what, ep: ep, act: env.Act}
}

// Resolve returns the canonical id of the agent dialect names id; spell
// is the dialect's id spelling, nil if it has none (SpellerOf).
func (r *Router) Resolve(spell func(string) string, dialect, id string) string {
	if c, ok := r.rules.Load().Mappings.Unalias(dialect, id); ok {
		return c
	}
	if id == r.id {
		return id
	}
	if spell != nil && spell(r.id) == id {
		return r.id
	}
	return r.dir.Resolve(id, spell)
}

// SpellerOf returns c's id spelling, nil when its dialect has none.
func SpellerOf(c dialects.Codec) func(string) string {
	if sp, ok := c.(dialects.IDSpeller); ok {
		return sp.SpellID
	}
	return nil
}
