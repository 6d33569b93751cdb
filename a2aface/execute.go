package a2aface

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// executor is the a2asrv executor of one agent: a message becomes a
// canonical request to the agent; the call's progress, its requests for
// input and its outcome become the task's events.
type executor struct {
	f     *Face
	agent string

	mu    sync.Mutex
	calls map[string]*call // by task id: the calls not yet finished
}

// call is a request to the agent on its way, for one task.
type call struct {
	pending  *bridge.Pending
	progress chan string              // what the agent said of its progress
	asks     chan *canonical.Envelope // the agent's requests for input
	answers  chan canonical.JSON      // the client's answers to them
	watch    sync.Once                // starts the goroutine that forgets the call when it ends
}

// Execute runs a message: a new task's request to the agent, or the
// answer to the agent's request for input of a task in input-required.
// For a SendMessage that waits for the task's end (endOnly), the task is
// stored only as the call ends or asks for input, in one event: every
// event costs a2asrv deep copies of the task, and that caller sees none of
// the steps between.
func (x *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		quiet := endOnly(ctx)
		id := string(ec.TaskID)
		x.mu.Lock()
		c := x.calls[id]
		x.mu.Unlock()
		if c != nil {
			if ec.StoredTask == nil || ec.StoredTask.Status.State != a2a.TaskStateInputRequired {
				yield(nil, fmt.Errorf("%w: task %s is not waiting for input", a2a.ErrInvalidRequest, id))
				return
			}
			select {
			case c.answers <- arguments(ec.Message):
			case <-c.pending.Done():
			}
			if !quiet && !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
				return
			}
			x.follow(ctx, ec, c, quiet, yield)
			return
		}
		if ec.StoredTask != nil {
			yield(nil, fmt.Errorf("%w: task %s is not waiting for input", a2a.ErrInvalidRequest, id))
			return
		}
		env, err := x.request(ctx, ec)
		if err != nil {
			yield(nil, err)
			return
		}
		if !quiet && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		c = &call{progress: make(chan string, 16), asks: make(chan *canonical.Envelope, 1), answers: make(chan canonical.JSON, 1)}
		// The call outlives this execution when it asks for input: the
		// answer comes in another message.
		c.pending = x.f.b.Go(context.WithoutCancel(ctx), env,
			bridge.WithProgress(c.told), bridge.WithInputs(c.ask))
		x.mu.Lock()
		x.calls[id] = c
		x.mu.Unlock()
		x.follow(ctx, ec, c, quiet, yield)
	}
}

// request is the canonical request of a new task's message: to the skill
// its metadata names, or the agent's only tool.
func (x *executor) request(ctx context.Context, ec *a2asrv.ExecutorContext) (canonical.Envelope, error) {
	info, ok := x.f.served(x.agent)
	if !ok {
		return canonical.Envelope{}, fmt.Errorf("%w: no agent %q is served here", a2a.ErrInvalidParams, x.agent)
	}
	skill, _ := ec.Message.Metadata["skill"].(string)
	var tool *bridge.Tool
	for i, t := range info.Tools {
		if t.Name == skill || skill == "" && len(info.Tools) == 1 {
			tool = &info.Tools[i]
		}
	}
	if tool == nil && len(info.Tools) == 0 && skill != "" {
		// An agent that declares no tools (a bluelabel agent not declared
		// in the config) is asked for the skill as it is named.
		tool = &bridge.Tool{Name: skill, Operation: canonical.Operation{Name: skill}}
	}
	if tool == nil {
		names := make([]string, 0, len(info.Tools))
		for _, t := range info.Tools {
			names = append(names, t.Name)
		}
		sort.Strings(names)
		what := "message.metadata.skill names no skill"
		if skill != "" {
			what = fmt.Sprintf("agent %s has no skill %q", x.agent, skill)
		}
		return canonical.Envelope{}, fmt.Errorf("%w: %s; its skills: %s", a2a.ErrInvalidParams, what, strings.Join(names, ", "))
	}
	sender := x.f.opts.Sender
	if s := scopeOf(ctx); s != nil && s.sender != "" {
		sender = s.sender
	}
	return canonical.Envelope{
		Act:           canonical.ActRequest,
		Sender:        canonical.Party{ID: sender},
		Receiver:      canonical.Address{Kind: canonical.AddressAgent, ID: x.agent},
		Operation:     tool.Operation,
		Arguments:     arguments(ec.Message),
		TaskID:        string(ec.TaskID),
		CorrelationID: ec.ContextID,
		TTL:           canonical.Dur(x.f.opts.CallTimeout),
	}, nil
}

// follow yields the call's events until its outcome, its next request for
// input, or the end of ctx (the task was cancelled). With quiet, it yields
// no progress and puts the task in its state with one whole task.
func (x *executor) follow(ctx context.Context, ec *a2asrv.ExecutorContext, c *call, quiet bool, yield func(a2a.Event, error) bool) {
	ended := false
	defer func() {
		if ended {
			return
		}
		// The call goes on with no execution following it (it asks for
		// input, or the client left): forget it when it ends.
		c.watch.Do(func() {
			go func() {
				<-c.pending.Done()
				x.forget(string(ec.TaskID))
			}()
		})
	}()
	for {
		select {
		case text := <-c.progress:
			if !quiet && !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMessage(ec, a2a.NewTextPart(text))), nil) {
				return
			}
		case ask := <-c.asks:
			parts := []*a2a.Part{a2a.NewTextPart(describe(x.agent, ask))}
			if v := decode(ask.Inputs); v != nil {
				parts = append(parts, a2a.NewDataPart(v))
			}
			yield(state(ec, a2a.TaskStateInputRequired, agentMessage(ec, parts...), quiet), nil)
			return
		case <-c.pending.Done():
			ended = true
			x.forget(string(ec.TaskID))
			for drained := quiet; !drained; {
				select {
				case text := <-c.progress: // told before the outcome: streamed before it
					if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMessage(ec, a2a.NewTextPart(text))), nil) {
						return
					}
				default:
					drained = true
				}
			}
			ans, err := c.pending.Result()
			for _, ev := range x.outcome(ec, ans, err, quiet) {
				if !yield(ev, nil) {
					return
				}
			}
			return
		case <-ctx.Done():
			return
		}
	}
}

// Cancel cancels the task's call to the agent, as an MCP cancellation
// does.
func (x *executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		id := string(ec.TaskID)
		x.mu.Lock()
		c := x.calls[id]
		delete(x.calls, id)
		x.mu.Unlock()
		if c != nil {
			c.pending.Cancel()
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, agentMessage(ec, a2a.NewTextPart("canceled by the client"))), nil)
	}
}

// forget drops the task's call.
func (x *executor) forget(id string) {
	x.mu.Lock()
	delete(x.calls, id)
	x.mu.Unlock()
}

// cancelAll cancels every call on its way.
func (x *executor) cancelAll() {
	x.mu.Lock()
	calls := x.calls
	x.calls = map[string]*call{}
	x.mu.Unlock()
	for _, c := range calls {
		c.pending.Cancel()
	}
}

// told is the call's progress handler: a line for each step.
func (c *call) told(p bridge.Progress) {
	var text string
	switch p.Stage {
	case bridge.StageDelivered:
		text = "delivered to the agent"
	case bridge.StageAccepted:
		text = "accepted by the agent"
	default:
		text = eventText(p.Env)
	}
	select {
	case c.progress <- text:
	default: // the client reads slower than the agent tells: drop a step
	}
}

// ask is the call's input handler: it hands the agent's request to the
// execution, and waits for the client's answer in a following message.
func (c *call) ask(ctx context.Context, ask *canonical.Envelope) (canonical.JSON, error) {
	select {
	case c.asks <- ask:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case ans := <-c.answers:
		return ans, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// outcome is the events of the call's outcome: the result's artifact and
// the task completed, or the task failed with what went wrong; with
// quiet, the whole task in its final state.
func (x *executor) outcome(ec *a2asrv.ExecutorContext, ans canonical.Envelope, err error, quiet bool) []a2a.Event {
	if err == nil && ans.Act == canonical.ActResult && ans.Outcome != canonical.OutcomeFailure {
		result := string(ans.Result)
		if !gjson.Valid(result) {
			b, _ := json.Marshal(map[string]string{"text": ans.Description})
			result = string(b)
		}
		parts := []*a2a.Part{a2a.NewDataPart(decode(canonical.JSON(result))), a2a.NewTextPart(result)}
		if quiet {
			return []a2a.Event{state(ec, a2a.TaskStateCompleted, nil, true, &a2a.Artifact{ID: a2a.NewArtifactID(), Parts: parts})}
		}
		return []a2a.Event{
			a2a.NewArtifactEvent(ec, parts...),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil),
		}
	}
	info, _ := x.f.b.Agent(x.agent)
	who := fmt.Sprintf("agent %s (%s)", x.agent, info.Dialect)
	var msg string
	switch {
	case err != nil:
		msg = fmt.Sprintf("mcp-bridge could not get an answer from %s: %v", who, err)
	case ans.Act == canonical.ActNeedsInput:
		msg = fmt.Sprintf("%s asked for input again after the call ended: %s", who, describe(x.agent, &ans))
	default:
		what := "reports the task failed"
		switch ans.Act {
		case canonical.ActRefuse:
			what = "refused the call"
		case canonical.ActNotUnderstood:
			what = "did not understand the call"
		}
		msg = who + " " + what
		if ans.Error != nil {
			msg += ": " + ans.Error.Error()
		} else if ans.Description != "" {
			msg += ": " + ans.Description
		}
	}
	return []a2a.Event{state(ec, a2a.TaskStateFailed, agentMessage(ec, a2a.NewTextPart(msg)), quiet)}
}

// state is the event that puts the task in state s with the status
// message msg: a status update, or, with whole, the task itself as a
// status update would leave it (its last status message moved to the
// history), with artifacts added.
func state(ec *a2asrv.ExecutorContext, s a2a.TaskState, msg *a2a.Message, whole bool, artifacts ...*a2a.Artifact) a2a.Event {
	if !whole {
		return a2a.NewStatusUpdateEvent(ec, s, msg)
	}
	var task *a2a.Task
	if ec.StoredTask != nil {
		t := *ec.StoredTask
		if t.Status.Message != nil {
			t.History = append(slices.Clip(t.History), t.Status.Message)
		}
		task = &t
	} else {
		task = a2a.NewSubmittedTask(ec, ec.Message)
	}
	now := time.Now()
	task.Status = a2a.TaskStatus{State: s, Message: msg, Timestamp: &now}
	task.Artifacts = append(slices.Clip(task.Artifacts), artifacts...)
	return task
}

// endOnly reports whether the request of ctx is a SendMessage whose
// caller is answered only when the task ends or needs input (not one
// answered at the first event, config.returnImmediately).
func endOnly(ctx context.Context) bool {
	v, _ := ctx.Value(endOnlyKey{}).(bool)
	return v
}

// endOnlyKey is the context key of endOnly.
type endOnlyKey struct{}

// markEndOnly is the a2asrv call interceptor that tells Execute, through
// its context, that the caller sees only the task's end (endOnly).
type markEndOnly struct {
	a2asrv.PassthroughCallInterceptor
}

// Before marks the context of a SendMessage that waits for the task's end.
func (markEndOnly) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	if r, ok := req.Payload.(*a2a.SendMessageRequest); ok && cc.Method() == "SendMessage" && (r.Config == nil || !r.Config.ReturnImmediately) {
		ctx = context.WithValue(ctx, endOnlyKey{}, true)
	}
	return ctx, nil, nil
}

// arguments are a message's arguments: its first data part's value when
// it is an object, else {"text": the text parts joined}.
func arguments(m *a2a.Message) canonical.JSON {
	var texts []string
	if m != nil {
		for _, p := range m.Parts {
			if d, ok := p.Content.(a2a.Data); ok {
				if _, obj := d.Value.(map[string]any); obj {
					if b, err := json.Marshal(d.Value); err == nil {
						return canonical.JSON(b)
					}
				}
			}
			if t, ok := p.Content.(a2a.Text); ok {
				texts = append(texts, string(t))
			}
		}
	}
	b, _ := json.Marshal(map[string]string{"text": strings.Join(texts, "\n")})
	return canonical.JSON(b)
}

// agentMessage is a message of the agent's about the task.
func agentMessage(ec *a2asrv.ExecutorContext, parts ...*a2a.Part) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
}

// describe says what the agent asks for.
func describe(agent string, ask *canonical.Envelope) string {
	text := ask.Description
	if text == "" {
		text = "agent " + agent + " needs more input before it can go on"
	}
	if ask.Inputs != "" {
		text += ": " + string(ask.Inputs)
	}
	return text
}

// eventText says what an agent's event about a call says.
func eventText(env *canonical.Envelope) string {
	if env == nil {
		return "progress"
	}
	for _, s := range []string{env.Description, string(env.Arguments), env.Operation.Name} {
		if s != "" {
			return s
		}
	}
	return string(env.Act)
}

// decode is the value of JSON text; nil when there is none.
func decode(j canonical.JSON) any {
	var v any
	if j == "" || json.Unmarshal([]byte(j), &v) != nil {
		return nil
	}
	return v
}
