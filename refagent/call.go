package refagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// call is one outstanding Call: the keys a reply may quote, and where its
// final reply goes.
type call struct {
	keys []string
	done chan outcome // buffered 1: written once, by whoever removes the call
}

// outcome is how a call ended.
type outcome struct {
	env *canonical.Envelope
	err error
}

// errClosed ends the calls still waiting when the transport ends.
var errClosed = errors.New("the transport closed before the reply came")

// Call sends a request for op, with args, to the agent to ("" names no
// receiver: the bridge routes by operation) and returns the final reply
// (result, failure, refuse or not-understood), decoded. Interim replies
// (accept, needs-input) only go to the observer. It needs a transport
// (Connect or ServeStdio) being served. When ctx has a deadline, the
// request carries the time left as its time to live, where the dialect has
// one, so that whoever answers (the bridge, which times the request out
// with an error) gives up when the caller does.
func (a *Agent) Call(ctx context.Context, to string, op canonical.Operation, args canonical.JSON) (*canonical.Envelope, error) {
	env := a.newRequest(op, args)
	if dl, ok := ctx.Deadline(); ok && a.codec.Holds(canonical.ActRequest).Has(canonical.CTTL) {
		if left := time.Until(dl).Truncate(time.Millisecond); left > 0 {
			env.TTL = canonical.Dur(left)
		}
	}
	if to != "" {
		env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: to}
	}
	fail := func(err error) (*canonical.Envelope, error) {
		return nil, fmt.Errorf("agent %s: call %s: %w", a.id, opName(op), err)
	}
	frame, err := a.encode(env)
	if err != nil {
		return fail(err)
	}
	c := &call{done: make(chan outcome, 1)}
	for _, k := range []string{env.ID, env.ReplyWith, env.TaskID} {
		if k != "" {
			c.keys = append(c.keys, k)
		}
	}
	if len(c.keys) == 0 {
		return fail(fmt.Errorf("%s requests carry no id to correlate a reply with", a.codec.Name()))
	}
	a.mu.Lock()
	s := a.sess
	if s == nil {
		a.mu.Unlock()
		return fail(errors.New("no transport: call Connect or ServeStdio first"))
	}
	for _, k := range c.keys {
		a.pending[k] = c
	}
	a.mu.Unlock()
	defer a.forget(c)
	if err := s.send(ctx, frame); err != nil {
		return fail(err)
	}
	select {
	case o := <-c.done:
		if o.err != nil {
			return fail(o.err)
		}
		return o.env, nil
	case <-ctx.Done():
		return fail(ctx.Err())
	}
}

// Send writes env in the agent's dialect and sends it on the transport
// being served. An envelope with no sender is sent as from this agent.
func (a *Agent) Send(ctx context.Context, env *canonical.Envelope) error {
	e := *env
	if e.Sender.ID == "" {
		e.Sender.ID = a.id
	}
	frame, err := a.encode(&e)
	if err != nil {
		return fmt.Errorf("agent %s: send %s: %w", a.id, e.Act, err)
	}
	a.mu.Lock()
	s := a.sess
	a.mu.Unlock()
	if s == nil {
		return fmt.Errorf("agent %s: send %s: no transport: call Connect or ServeStdio first", a.id, e.Act)
	}
	if err := s.send(ctx, frame); err != nil {
		return fmt.Errorf("agent %s: send %s: %w", a.id, e.Act, err)
	}
	return nil
}

// Operation reads an operation name as mapping files write it: in a
// dialect that names operations in two levels (fuse), "capability/action"
// is that capability and action, and a name without "/" the action alone;
// elsewhere the name is the operation's name, as it is.
func (a *Agent) Operation(name string) canonical.Operation {
	if dialects.TwoLevel(a.codec) {
		if c, n, two := strings.Cut(name, "/"); two {
			return canonical.Operation{Capability: c, Name: n}
		}
	}
	return canonical.Operation{Name: name}
}

// newRequest returns a request from this agent for op, with the ids its
// dialect correlates replies by: a message id, and a task id (upper-case
// hex and dashes, which every dialect's ids allow) where requests carry one.
func (a *Agent) newRequest(op canonical.Operation, args canonical.JSON) *canonical.Envelope {
	env := &canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: a.id}, Operation: op, Arguments: args}
	holds := a.codec.Holds(canonical.ActRequest)
	if holds.Has(canonical.CID) {
		env.ID = uuid.NewString()
	}
	if holds.Has(canonical.CTaskID) {
		env.TaskID = strings.ToUpper(uuid.NewString())
	}
	return env
}

// settle gives a final reply to the call waiting for it. Anything else
// (events, interim replies, replies to no call) was for the observer only.
func (a *Agent) settle(env *canonical.Envelope) {
	switch env.Act {
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
	default:
		return
	}
	a.mu.Lock()
	var c *call
	for _, k := range []string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if k == "" {
			continue
		}
		if c = a.pending[k]; c != nil {
			break
		}
	}
	if c != nil {
		for _, k := range c.keys {
			delete(a.pending, k)
		}
	}
	a.mu.Unlock()
	if c == nil {
		a.log.Debug("agent: a reply matches no call", "act", string(env.Act), "in_reply_to", env.InReplyTo, "task_id", env.TaskID)
		return
	}
	c.done <- outcome{env: env}
}

// forget removes a call that ended without its reply.
func (a *Agent) forget(c *call) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range c.keys {
		if a.pending[k] == c {
			delete(a.pending, k)
		}
	}
}

// failCalls ends every outstanding call with err.
func (a *Agent) failCalls(err error) {
	a.mu.Lock()
	calls := map[*call]bool{}
	for k, c := range a.pending {
		calls[c] = true
		delete(a.pending, k)
	}
	a.mu.Unlock()
	for c := range calls {
		c.done <- outcome{err: err}
	}
}
