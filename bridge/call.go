package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
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
func (b *Bridge) Call(ctx context.Context, req canonical.Envelope, opts ...CallOption) (canonical.Envelope, error) {
	if !isRequest(req.Act) {
		return canonical.Envelope{}, fmt.Errorf("bridge: Call needs a request, not %s", req.Act)
	}
	c := newCall(b, req.Sender.ID, opts)
	c.ctx = ctx
	if req.ID == "" {
		req.ID = correlation.NewToken()
	}
	if req.TaskID == "" && c.opts.inputs != nil {
		// The answer to a needs-input message goes back as the same task.
		req.TaskID = req.ID
	}
	req.Origin = canonical.Origin{}
	c.req = req
	b.submit(c, &req)
	defer b.pending.ForgetRequester(c)
	select {
	case r := <-c.done:
		if r.err != nil {
			return canonical.Envelope{}, r.err
		}
		return r.env, nil
	case <-ctx.Done():
		return canonical.Envelope{}, ctx.Err()
	}
}

// Send routes a message that expects no answer (an event to a topic or to
// all, a notification to one agent) and returns once it is queued for its
// receivers; a refusal (no such agent, its dialect cannot carry it, its
// queue is full) is returned as a *canonical.Error.
func (b *Bridge) Send(ctx context.Context, msg canonical.Envelope) error {
	if isRequest(msg.Act) {
		return fmt.Errorf("bridge: Send takes messages that expect no answer; use Call for a %s", msg.Act)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := newCall(b, msg.Sender.ID, nil)
	c.ctx = ctx
	if msg.ID == "" {
		msg.ID = correlation.NewToken()
	}
	msg.Origin = canonical.Origin{}
	b.submit(c, &msg)
	select {
	case r := <-c.done:
		if r.err != nil {
			return r.err
		}
	default:
	}
	return nil
}

// call is the endpoint of one Call: it takes the answers to its request as
// envelopes.
type call struct {
	b      *Bridge
	ctx    context.Context // the caller's, for asking it for inputs
	sender string
	opts   callOptions
	req    canonical.Envelope // as sent, for a follow-up after needs-input
	once   sync.Once
	done   chan callResult // the outcome, once
}

type callResult struct {
	env canonical.Envelope
	err error
}

func newCall(b *Bridge, sender string, opts []CallOption) *call {
	c := &call{b: b, sender: sender, done: make(chan callResult, 1)}
	for _, o := range opts {
		o(&c.opts)
	}
	return c
}

// Transport names the call API as a transport.
func (c *call) Transport() string { return "call" }

func (c *call) bound() *agent { return nil }

// finish ends the call with its outcome; later ones are dropped.
func (c *call) finish(r callResult) {
	c.once.Do(func() { c.done <- r })
}

func (c *call) refuse(_ *canonical.Envelope, e *canonical.Error) Receipt {
	c.b.metrics.Errored(c.sender, e.Code)
	c.finish(callResult{err: e})
	return Receipt{Err: e}
}

func (c *call) deliver(o *outgoing) (*delivery.Outbound, *canonical.Error) {
	env := *o.env
	switch {
	case o.final && o.byBridge && env.Error != nil:
		c.finish(callResult{err: env.Error})
	case o.final:
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

// delivered tells the caller its request reached the agent's connection.
func (c *call) delivered() {
	if c.opts.progress != nil {
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
	c.b.submit(c, &follow)
}
