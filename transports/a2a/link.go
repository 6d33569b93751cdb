package a2a

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// link carries the bridge's requests to one A2A agent: each becomes a
// SendMessage, followed in a goroutine of its own (a semaphore bounds
// them) until its task settles, whose outcome the link hands back to the
// bridge.
type link struct {
	a         *Agent
	c         *a2aclient.Client
	streaming bool
	lost      func(error)
	slot      chan struct{} // one per call in flight

	mu    sync.Mutex
	sess  attachedSession
	tasks map[string]*task // by the token the request went out under
}

// task is the A2A task of one request of the bridge: while a call follows
// it (running), or while it waits for the requester's input.
type task struct {
	id        a2a.TaskID // "" until the agent names it
	contextID string
	asked     *a2a.TaskStatus // the status that asked for input, while it waits
	running   bool
	gone      bool               // the bridge gave the request up
	cancel    context.CancelFunc // ends the call following it
}

func newLink(a *Agent, c *a2aclient.Client, card *a2a.AgentCard, lost func(error)) *link {
	return &link{a: a, c: c, streaming: card.Capabilities.Streaming, lost: lost,
		slot: make(chan struct{}, a.spec.Concurrency), tasks: map[string]*task{}}
}

// attached gives the link the session that receives its answers.
func (l *link) attached(s attachedSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sess = s
}

func (l *link) session() attachedSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess
}

// close ends the calls in flight and releases the client.
func (l *link) close() {
	l.mu.Lock()
	for token, t := range l.tasks {
		if t.cancel != nil {
			t.cancel()
		}
		delete(l.tasks, token)
	}
	l.mu.Unlock()
	_ = l.c.Destroy()
}

// Transport names the transport.
func (l *link) Transport() string { return "a2a" }

// Send takes one message of the bridge for the agent. A request becomes a
// SendMessage (continuing the task of its token when that task waits for
// input); the bridge's own messages (a shutdown notice, an error reply)
// have nowhere to go in A2A and are dropped.
func (l *link) Send(ctx context.Context, out bridge.Outbound) error {
	env := out.Env
	if env == nil {
		return errors.New("a2a: the link takes envelopes, not frames")
	}
	if env.Act != canonical.ActRequest {
		l.a.log.Debug("A2A agent: nothing to send for this message", "act", env.Act)
		return nil
	}
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	callCtx, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	t := l.tasks[env.ID]
	switch {
	case t == nil:
		t = &task{}
	case t.running:
		// The bridge sends the request again (a retry): the earlier call
		// is given up, its task cancelled, and a new task begins.
		t.cancel()
		t.gone = true
		if t.id != "" {
			go l.cancelTask(t.id)
		}
		t = &task{}
	}
	t.running, t.cancel = true, cancel
	l.tasks[env.ID] = t
	l.mu.Unlock()
	go func() {
		defer func() { <-l.slot }()
		l.call(callCtx, t, env)
	}()
	return nil
}

// Cancel gives up the request that went out under token: the call
// following its task ends and the task is cancelled (CancelTask). A task
// not yet named by the agent is cancelled once it is, within CancelGrace.
func (l *link) Cancel(token string) {
	l.mu.Lock()
	t := l.tasks[token]
	if t == nil {
		l.mu.Unlock()
		return
	}
	delete(l.tasks, token)
	t.gone = true
	id, running, cancel := t.id, t.running, t.cancel
	l.mu.Unlock()
	switch {
	case id != "":
		if running {
			cancel()
		}
		l.cancelTask(id)
	case running:
		time.AfterFunc(l.a.spec.CancelGrace, cancel)
	}
}

// cancelTask sends CancelTask for the task id.
func (l *link) cancelTask(id a2a.TaskID) {
	ctx, cancel := context.WithTimeout(context.Background(), l.a.spec.CancelGrace)
	defer cancel()
	ctx = a2aclient.AttachServiceParams(ctx, l.params(canonical.Trace{}))
	if _, err := l.c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil {
		l.a.log.Info("A2A agent: CancelTask failed", "task", id, "error", err)
	}
}

// Ping checks the agent's card still resolves.
func (l *link) Ping(ctx context.Context) error {
	_, err := l.a.resolve(ctx)
	return err
}

// params are the service parameters (HTTP headers) of a call: the spec's
// headers and the request's trace context.
func (l *link) params(tr canonical.Trace) a2aclient.ServiceParams {
	p := a2aclient.ServiceParams{}
	for k, v := range l.a.spec.Headers {
		p.Append(k, v)
	}
	if tp := traceparent(tr); tp != "" {
		p.Append("traceparent", tp)
	}
	return p
}

// declare tells the bridge the agent's skills, as its tools.
func (l *link) declare(skills []a2a.AgentSkill) {
	s := l.session()
	if s == nil {
		return
	}
	s.ReceiveEnvelope(&canonical.Envelope{Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess,
		Sender: canonical.Party{ID: l.a.spec.ID}, Capabilities: &canonical.Capabilities{Tools: tools(skills)}})
}

// tell hands one of the agent's messages to the bridge.
func (l *link) tell(env *canonical.Envelope) {
	if s := l.session(); s != nil {
		s.ReceiveEnvelope(env)
	}
}

// named records the task's id once the agent names it; gone reports that
// the bridge gave the request up meanwhile.
func (l *link) named(t *task, id a2a.TaskID, contextID string) (gone bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.id == "" {
		t.id, t.contextID = id, contextID
	}
	return t.gone
}

// settle ends the call following t: a task that waits for input stays,
// for the answer that continues it; any other is forgotten.
func (l *link) settle(token string, t *task, waiting bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.running = false
	if t.cancel != nil {
		t.cancel()
		t.cancel = nil
	}
	if l.tasks[token] == t && (!waiting || t.gone) {
		delete(l.tasks, token)
	}
}

// call sends req as a SendMessage, follows its task until it settles and
// tells the bridge the outcome.
func (l *link) call(ctx context.Context, t *task, req *canonical.Envelope) {
	agent := l.a.spec.ID
	msg, err := message(req)
	if err != nil {
		l.settle(req.ID, t, false)
		l.tell(failure(agent, req, canonical.ErrInvalidArguments, err.Error()))
		return
	}
	l.mu.Lock()
	msg.TaskID, msg.ContextID = t.id, t.contextID
	f := &follow{l: l, t: t, req: req, asked: t.asked}
	l.mu.Unlock()
	ctx = a2aclient.AttachServiceParams(ctx, l.params(req.Trace))
	var res a2a.SendMessageResult
	if l.streaming {
		res, err = f.stream(ctx, msg)
	} else {
		res, err = f.send(ctx, msg)
	}
	switch {
	case err != nil && f.given():
		l.settle(req.ID, t, false)
		if id := f.taskID(); id != "" {
			l.cancelTask(id)
		}
		return
	case ctx.Err() != nil:
		l.settle(req.ID, t, false)
		return // the bridge gave the request up, and Cancel cancelled its task
	case err != nil:
		l.settle(req.ID, t, false)
		if unreachable(err) {
			// The agent is gone: the bridge answers every call in flight
			// unavailable when the session is lost.
			l.lost(fmt.Errorf("a2a: agent %s: %w", agent, err))
			return
		}
		l.tell(callError(agent, req, err))
		return
	}
	ans := answer(agent, req, res)
	if task, ok := res.(*a2a.Task); ok && ans.Act == canonical.ActNeedsInput {
		l.mu.Lock()
		st := task.Status
		t.asked = &st
		l.mu.Unlock()
	}
	l.settle(req.ID, t, ans.Act == canonical.ActNeedsInput)
	l.tell(ans)
}
