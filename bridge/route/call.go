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
	c.ctx, c.stop = context.WithCancel(ctx)
	p := &Pending{c: c}
	if !IsRequest(req.Act) {
		c.finish(callResult{err: fmt.Errorf("bridge: Call needs a request, not %s", req.Act)})
		return p
	}
	if req.ID == "" {
		req.ID = correlation.NewToken()
	}
	if req.TaskID == "" && c.opts.inputs != nil {
		// The answer to a needs-input message goes back as the same task.
		req.TaskID = req.ID
	}
	req.Origin = canonical.Origin{}
	c.req = req
	r.Submit(c, &req)
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
	c.ctx, c.stop = context.WithCancel(ctx)
	defer c.stop()
	if msg.ID == "" {
		msg.ID = correlation.NewToken()
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
	ctx    context.Context // the caller's, for asking it for inputs
	stop   context.CancelFunc
	sender string
	opts   callOptions
	req    canonical.Envelope // as sent, for a follow-up after needs-input
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
	env := *o.Env
	if !o.ByBridge {
		// The agent's message: its link took the request, which the
		// caller hears before what the agent says, however the link's
		// writer and the agent's answer raced.
		c.delivered()
	}
	switch {
	case o.Final && o.ByBridge && env.Error != nil:
		c.finish(callResult{err: env.Error})
	case o.Final:
		c.finish(callResult{env: env})
	case env.Act == canonical.ActNeedsInput && c.opts.inputs != nil:
		go c.provide(&env)
	case env.Act == canonical.ActNeedsInput:
		c.finish(callResult{env: env})
	case c.opts.progress == nil:
	case env.Act == canonical.ActAccept:
		c.opts.progress(Progress{Stage: StageAccepted, Env: &env})
	default:
		c.opts.progress(Progress{Stage: StageEvent, Env: &env})
	}
	return nil, nil
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
	follow := c.req
	follow.ID = correlation.NewToken()
	follow.Arguments = args
	follow.Inputs = ""
	c.r.Submit(c, &follow)
}
