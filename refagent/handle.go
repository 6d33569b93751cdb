package refagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Handle takes one received frame and returns the frames to send in reply,
// in the agent's dialect. It runs the work a request asks for before it
// returns (a sleep blocks it). A reply to one of the agent's calls goes to
// that call. Frames that ask nothing of the agent (events, replies) get
// no reply; a frame that does not decode, or a request that breaks its
// dialect's rules, gets a NOT_UNDERSTOOD (receive).
func (a *Agent) Handle(frame []byte) [][]byte {
	env, refusal := a.receive(frame)
	if env == nil {
		return refusal
	}
	first, work := a.take(env)
	if work != nil {
		return append(first, work(context.Background())...)
	}
	return first
}

// receive tells the observer of frame, checks it against its dialect's
// schema and rules, and decodes it; the decoder takes ownership of frame.
// A frame that does not decode, or a request (anything that asks the agent
// something) that breaks a rule, gets no envelope but the agent's
// NOT_UNDERSTOOD to send, naming what was wrong and quoting what of the
// frame it can (none when the frame names neither an id nor a sender, or
// the dialect cannot write one). Anything else that breaks a rule (a
// reply, an event) is logged and taken as it decodes.
func (a *Agent) receive(frame []byte) (env *canonical.Envelope, refusal [][]byte) {
	a.observe(Received, frame)
	problems, env, err := dialects.ValidateDecode(a.codec, frame) // read once, as the bridge reads
	if len(problems) > 0 {
		env, err = a.codec.Decode(frame)
	}
	if err != nil {
		a.log.Warn("agent: a received frame does not decode", "error", err.Error())
		if q := dialects.Undecoded(a.codec, frame); q != nil {
			return nil, a.notUnderstood(q, err.Error())
		}
		return nil, nil
	}
	if len(problems) == 0 {
		return env, nil
	}
	why := (&dialects.Problems{Dialect: a.codec.Name(), List: problems}).Error()
	if !asks(env.Act) {
		a.log.Warn("agent: a received message breaks its dialect's rules", "act", string(env.Act), "error", why)
		return env, nil
	}
	a.log.Warn("agent: refused a message that breaks its dialect's rules", "act", string(env.Act), "error", why)
	return nil, a.notUnderstood(env, why)
}

// asks reports whether a message of act asks the agent for something
// (an answer), as opposed to answering it or telling it.
func asks(act canonical.Act) bool {
	switch act {
	case canonical.ActRequest, canonical.ActQueryCapabilities, canonical.ActQueryIf, canonical.ActQueryRef:
		return true
	}
	return false
}

// notUnderstood returns the frames of the agent's NOT_UNDERSTOOD of req,
// a message it could not take, for the reason why.
func (a *Agent) notUnderstood(req *canonical.Envelope, why string) [][]byte {
	r := a.replyTo(req, canonical.ActNotUnderstood)
	r.Outcome = canonical.OutcomeFailure
	r.Error = &canonical.Error{Code: canonical.ErrInvalidMessage, Message: why}
	return a.frames(r)
}

// work is what answering an envelope takes: it returns the frames to send.
type work func(ctx context.Context) [][]byte

// take acts on a received envelope. What asks something of the agent is
// returned as work, for the caller to run where it wants, after sending
// first at once (the accept of a request the agent will perform, in a
// dialect with an accept of its own: elizaacl's conversation accepts a
// task before it reports on it); anything else is settled on the spot (no
// work).
func (a *Agent) take(env *canonical.Envelope) (first [][]byte, w work) {
	switch env.Act {
	case canonical.ActRequest:
		if a.accepts && find(a.tools, env.Operation) != nil {
			first = a.frames(a.replyTo(env, canonical.ActAccept))
		}
		return first, func(ctx context.Context) [][]byte { return a.frames(a.perform(ctx, env)) }
	case canonical.ActQueryCapabilities:
		return nil, func(context.Context) [][]byte {
			r := a.replyTo(env, canonical.ActInformCapabilities)
			r.Outcome = canonical.OutcomeSuccess
			r.Capabilities = a.Capabilities()
			return a.frames(r)
		}
	case canonical.ActQueryIf, canonical.ActQueryRef:
		return nil, func(context.Context) [][]byte {
			r := a.replyTo(env, canonical.ActRefuse)
			r.Error = &canonical.Error{Code: canonical.ErrRejected, Message: fmt.Sprintf("%s answers requests for its tools (%s), not %s", a.id, a.toolList(), env.Act)}
			return a.frames(r)
		}
	}
	a.settle(env)
	return nil, nil
}

// perform runs the tool a request asks for and returns the reply.
func (a *Agent) perform(ctx context.Context, req *canonical.Envelope) *canonical.Envelope {
	t := find(a.tools, req.Operation)
	if t == nil {
		r := a.replyTo(req, canonical.ActFailure)
		what := fmt.Sprintf("unknown operation %q", opName(req.Operation))
		if req.Operation == (canonical.Operation{}) {
			what = "the request names no operation"
		}
		r.Error = &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("%s: %s offers %s", what, a.id, a.toolList())}
		return r
	}
	ans := t.run(ctx, req.Arguments)
	if ans.err != nil {
		r := a.replyTo(req, canonical.ActFailure)
		r.Error = ans.err
		return r
	}
	r := a.replyTo(req, canonical.ActResult)
	r.Outcome = canonical.OutcomeSuccess
	r.Result = ans.result
	r.Description = ans.summary
	return r
}

// replyTo returns a reply of act from this agent to req, correlated the
// ways req's dialect may need.
func (a *Agent) replyTo(req *canonical.Envelope, act canonical.Act) *canonical.Envelope {
	r := &canonical.Envelope{
		Act:            act,
		Sender:         canonical.Party{ID: a.id},
		InReplyTo:      req.ReplyWith,
		TaskID:         req.TaskID,
		CorrelationID:  req.CorrelationID,
		ConversationID: req.ConversationID,
		SessionID:      req.SessionID,
		Priority:       req.Priority,
		Trace:          canonical.Trace{TraceID: req.Trace.TraceID},
	}
	if req.Trace.TraceID != "" && req.Trace.SpanID != "" {
		// A span of its own, child of the request's.
		r.Trace.SpanID, r.Trace.ParentSpanID = canonical.NewSpanID(), req.Trace.SpanID
	}
	if r.InReplyTo == "" {
		r.InReplyTo = req.ID
	}
	if req.Sender.ID != "" {
		r.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID}
	}
	return r
}

// frames encodes env as the frames to send: none when the dialect cannot
// write it (logged). An error says whether it is worth retrying where its
// code tells.
func (a *Agent) frames(env *canonical.Envelope) [][]byte {
	if env.Error != nil {
		env.Error = env.Error.SayRetryable()
	}
	frame, err := a.encode(env)
	if err != nil {
		a.log.Warn("agent: cannot write a reply", "act", string(env.Act), "error", err.Error())
		return nil
	}
	return [][]byte{frame}
}

// toolList names the agent's tools for messages.
func (a *Agent) toolList() string {
	if len(a.tools) == 0 {
		return "no tools"
	}
	names := make([]string, len(a.tools))
	for i, t := range a.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
