package route

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// The call API: code in the bridge's process (the MCP face) sends canonical
// envelopes to the agents and gets canonical envelopes back, with the same
// routing, correlation, retries, breakers, dedupe, time limits and metrics
// as any agent's message. Sessions reach the same core from their frames
// (Session.Receive); a call reaches it here, as an endpoint of its own that
// takes envelopes instead of frames.

// Progress is one step of a call on its way.
type Progress struct {
	// Stage is what happened: StageDelivered (the agent's connection took
	// the request), StageAccepted (the agent accepted it) or StageEvent
	// (the agent sent an event about it).
	Stage string
	// Env is the agent's message, for StageAccepted and StageEvent.
	Env *canonical.Envelope
}

// The stages of Progress.
const (
	StageDelivered = "delivered"
	StageAccepted  = "accepted"
	StageEvent     = "event"
)

// CallOption configures one Call.
type CallOption func(*callOptions)

type callOptions struct {
	progress func(Progress)
	inputs   func(ctx context.Context, ask *canonical.Envelope) (canonical.JSON, error)
}

// WithProgress has fn told of the call's progress. fn runs in the bridge's
// goroutines and must not block.
func WithProgress(fn func(Progress)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// WithInputs has fn asked for what an agent needs before it can go on (a
// needs-input message, whose Inputs describe them); the arguments fn
// returns go back to the agent as the same task, and the call goes on.
// Without it, a needs-input message ends the call as its answer. An error
// from fn ends the call with that error.
func WithInputs(fn func(ctx context.Context, ask *canonical.Envelope) (canonical.JSON, error)) CallOption {
	return func(o *callOptions) { o.inputs = fn }
}

// Call sends the request req to the agent its receiver names (a canonical
// id), or with no receiver to an agent that serves its operation, and waits
// for the answer. req.Sender names the caller; req's operation is spelled
// as the receiver's dialect spells it (its directory Tool's Operation).
//
// The answer is the agent's, whatever it says: a result, a failure, a
// refusal (see its Act, Outcome and Error). The bridge's own refusals (no
// such agent, not connected, its queue is full, its circuit is open, no
// answer in time, the bridge is shutting down) are returned as a
// *canonical.Error. When ctx ends first, the request is given up, everything
// held for it is freed, an answer that comes later is dropped and counted
// (bridge_late_answers_total), and ctx's error is returned.
func (r *Router) Call(ctx context.Context, req canonical.Envelope, opts ...CallOption) (canonical.Envelope, error) {
	p := r.Go(ctx, req, opts...)
	defer p.Cancel()
	select {
	case <-p.Done():
		return p.Result()
	case <-ctx.Done():
		return canonical.Envelope{}, ctx.Err()
	}
}

// Go sends req as Call does and returns at once: Done is closed when the
// answer (or the bridge's refusal) is there, and Result returns it. The
// caller must Cancel the call once it no longer waits for it, answered or
// not; Cancel gives up a request still open. ctx bounds only what the call
// asks of the caller (WithInputs); the request's own time limit is its ttl
// or the bridge's request timeout.
func (r *Router) Go(ctx context.Context, req canonical.Envelope, opts ...CallOption) *Pending {
	c := newCall(r, req.Sender.ID, opts)
	c.withContext(ctx)
	p := &Pending{c: c}
	if !IsRequest(req.Act) {
		c.finish(callResult{err: fmt.Errorf("bridge: Call needs a request, not %s", req.Act)})
		return p
	}
	if req.ID == "" {
		req.ID = correlation.NewToken()
		c.made = req.ID
	}
	if req.TaskID == "" && c.opts.inputs != nil {
		// The answer to a needs-input message goes back as the same task.
		req.TaskID = req.ID
	}
	req.Origin = canonical.Origin{}
	if c.opts.inputs != nil {
		// Only a call that can be asked for inputs sends a follow-up,
		// built from the request as sent: Submit may fill in the one it
		// routes (its receiver, when picked by capability).
		c.req = new(canonical.Envelope)
		*c.req = req
	}
	// The request routed lives in the call, which outlives it anyway: one
	// allocation for both, rather than req moved to the heap as well.
	c.sent = req
	r.Submit(c, &c.sent)
	return p
}

// Pending is a call on its way (Router.Go).
type Pending struct{ c *call }

// Done is closed when the call has its outcome.
func (p *Pending) Done() <-chan struct{} { return p.c.closed }

// Result returns the call's outcome, as Call does; it is meant for after
// Done is closed.
func (p *Pending) Result() (canonical.Envelope, error) {
	select {
	case <-p.c.closed:
		return p.c.result.env, p.c.result.err
	default:
		return canonical.Envelope{}, errors.New("bridge: the call has no outcome yet")
	}
}

// Cancel gives the call up: its request, if still open, is closed and an
// answer that comes later is dropped and counted. It may be called more
// than once.
func (p *Pending) Cancel() {
	p.c.stop()
	if token := p.c.token.Load(); token != nil {
		if r := p.c.r.pending.TakeFor(*token, Endpoint(p.c)); r != nil {
			p.c.r.givenUp(r)
		}
	}
}

// Send routes a message that expects no answer (an event to a topic or to
// all, a notification to one agent) and returns once it is queued for its
// receivers; a refusal (no such agent, its dialect cannot carry it, its
// queue is full) is returned as a *canonical.Error.
func (r *Router) Send(ctx context.Context, msg canonical.Envelope) error {
	if IsRequest(msg.Act) {
		return fmt.Errorf("bridge: Send takes messages that expect no answer; use Call for a %s", msg.Act)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := newCall(r, msg.Sender.ID, nil)
	c.withContext(ctx)
	if msg.ID == "" {
		msg.ID = correlation.NewToken()
		c.made = msg.ID
	}
	msg.Origin = canonical.Origin{}
	r.Submit(c, &msg)
	select {
	case <-c.closed:
		return c.result.err
	default:
	}
	return nil
}

// call is the endpoint of one Call: it takes the answers to its request as
// envelopes.
type call struct {
	r      *Router
	ctx    context.Context // the caller's, for asking it for inputs (withContext)
	stop   context.CancelFunc
	sender string
	// made is the id the bridge made for the call's message, set before
	// it is submitted and not changed after ("" when its caller gave one).
	made string
	opts callOptions
	// sent is the request Go routes; req is a copy of it as the caller
	// made it, for a follow-up after needs-input (nil without WithInputs).
	sent   canonical.Envelope
	req    *canonical.Envelope
	once   sync.Once
	result callResult    // the outcome, set once before closed is closed
	closed chan struct{} // closed when the call has its outcome
	// token is the token of the call's open request, once it has one.
	token atomic.Pointer[string]
	// told is set once the caller heard of the delivery.
	told atomic.Bool
}

type callResult struct {
	env canonical.Envelope
	err error
}

func newCall(r *Router, sender string, opts []CallOption) *call {
	c := &call{r: r, sender: sender, closed: make(chan struct{})}
	for _, o := range opts {
		o(&c.opts)
	}
	return c
}

// withContext gives the call the caller's ctx, which it asks for inputs
// with (WithInputs): a call that can ask gets a context of its own,
// cancelled when the call is given up; the others need none.
func (c *call) withContext(ctx context.Context) {
	if c.opts.inputs == nil {
		c.ctx, c.stop = ctx, func() {}
		return
	}
	c.ctx, c.stop = context.WithCancel(ctx)
}

// madeHere reports whether env is the message of a call (the endpoint ep)
// whose id the bridge made for it.
func madeHere(ep Endpoint, env *canonical.Envelope) bool {
	c, ok := ep.(*call)
	return ok && c.made != "" && c.made == env.ID
}

// Transport names the call API as a transport.
func (c *call) Transport() string { return "call" }

// Bound is nil: a caller speaks for no agent.
func (c *call) Bound() *Agent { return nil }

// Prompt is true: the caller waits for the answer anyway.
func (c *call) Prompt() bool { return true }

// finish ends the call with its outcome; later ones are dropped.
func (c *call) finish(r callResult) {
	c.once.Do(func() {
		c.result = r
		close(c.closed)
	})
}

// Refuse ends the call with e.
func (c *call) Refuse(env *canonical.Envelope, e *canonical.Error) Receipt {
	c.r.events.Emit(event.Event{Kind: event.Refused, Env: env, Err: e, Agent: c.sender, Dialect: "call", Transport: "call"})
	c.finish(callResult{err: e})
	return Receipt{Err: e}
}

// Deliver takes the caller's answers and progress.
func (c *call) Deliver(o *Outgoing) (*delivery.Outbound, *canonical.Error) {
	if c.r.events.Active() {
		c.r.events.Emit(event.Event{Kind: event.Delivered, Source: o.Env, Env: o.Env, Note: event.NoteOf(o.Env), ByBridge: o.ByBridge,
			Agent: c.sender, Dialect: "call", Transport: "call"})
	}
	if !o.ByBridge {
		// The agent's message: its link took the request, which the
		// caller hears before what the agent says, however the link's
		// writer and the agent's answer raced.
		c.delivered()
	}
	// What ends the call is copied once, into its result; only what is
	// handed on (to provide, to the progress handler) gets a copy of its
	// own.
	act := o.Env.Act
	switch {
	case o.Final && o.ByBridge && o.Env.Error != nil:
		c.finish(callResult{err: o.Env.Error})
	case o.Final:
		c.finishWith(o.Env)
	case act == canonical.ActNeedsInput && c.opts.inputs != nil:
		go c.provide(copyOf(o.Env))
	case act == canonical.ActNeedsInput:
		c.finishWith(o.Env)
	case c.opts.progress == nil:
	case act == canonical.ActAccept:
		c.opts.progress(Progress{Stage: StageAccepted, Env: copyOf(o.Env)})
	default:
		c.opts.progress(Progress{Stage: StageEvent, Env: copyOf(o.Env)})
	}
	return nil, nil
}

// finishWith ends the call with the answer env, copied into its result;
// a later outcome is dropped.
func (c *call) finishWith(env *canonical.Envelope) {
	c.once.Do(func() {
		c.result.env = *env
		close(c.closed)
	})
}

// copyOf returns a copy of env of its own.
func copyOf(env *canonical.Envelope) *canonical.Envelope {
	c := *env
	return &c
}

// delivered tells the caller, once, that its request reached the agent's
// connection.
func (c *call) delivered() {
	if c.opts.progress != nil && c.told.CompareAndSwap(false, true) {
		c.opts.progress(Progress{Stage: StageDelivered})
	}
}

// provide asks the caller for the inputs ask wants, and sends them to the
// agent as the same task.
func (c *call) provide(ask *canonical.Envelope) {
	args, err := c.opts.inputs(c.ctx, ask)
	if err != nil {
		var e *canonical.Error
		if !errors.As(err, &e) {
			e = &canonical.Error{Code: canonical.ErrRejected, Message: "the caller gave no input: " + err.Error()}
		}
		c.finish(callResult{err: e})
		return
	}
	follow := *c.req
	follow.ID = correlation.NewToken()
	follow.Arguments = args
	follow.Inputs = ""
	c.r.Submit(c, &follow)
}
