package a2a

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// skillKey is the message metadata key naming the skill a request asks
// for.
const skillKey = "skill"

// message returns the A2A message of a request: role user, one data part
// holding its arguments (an object; {} when there are none), and the
// skill its operation names in the metadata.
func message(req *canonical.Envelope) (*a2a.Message, error) {
	v := gjson.Parse(string(req.Arguments))
	args := json.RawMessage(req.Arguments)
	switch {
	case req.Arguments == "" || v.Type == gjson.Null:
		args = json.RawMessage("{}")
	case !v.IsObject():
		return nil, fmt.Errorf("an A2A skill takes an object of arguments, not %s", kind(v))
	}
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(args))
	m.SetMeta(skillKey, skillOf(req.Operation))
	return m, nil
}

// skillOf is the skill a request asks for: its operation's name (the
// action of a two-level name), else its capability.
func skillOf(op canonical.Operation) string {
	if op.Name != "" {
		return op.Name
	}
	return op.Capability
}

func kind(v gjson.Result) string {
	switch {
	case v.IsArray():
		return "an array"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	}
	return "that"
}

// answer returns the canonical answer of agent to req for what the agent
// answered: a message or a settled task.
func answer(agent string, req *canonical.Envelope, res a2a.SendMessageResult) *canonical.Envelope {
	switch r := res.(type) {
	case *a2a.Message:
		env := reply(agent, req, canonical.ActResult)
		env.Outcome, env.Result = canonical.OutcomeSuccess, resultOf(r.Parts)
		return env
	case *a2a.Task:
		return taskAnswer(agent, req, r)
	}
	return failure(agent, req, canonical.ErrInternal, fmt.Sprintf("the agent answered %T", res))
}

// taskAnswer is the canonical answer for a settled task.
func taskAnswer(agent string, req *canonical.Envelope, t *a2a.Task) *canonical.Envelope {
	status := partsOf(t.Status.Message)
	text := textOf(status)
	switch t.Status.State {
	case a2a.TaskStateCompleted:
		var parts a2a.ContentParts
		for _, a := range t.Artifacts {
			parts = append(parts, a.Parts...)
		}
		if len(parts) == 0 {
			parts = status
		}
		env := reply(agent, req, canonical.ActResult)
		env.Outcome, env.Result = canonical.OutcomeSuccess, resultOf(parts)
		return env
	case a2a.TaskStateFailed:
		return failure(agent, req, canonical.ErrExecutionFailed, orSaid(text, "the task failed and said nothing more"))
	case a2a.TaskStateRejected:
		return failure(agent, req, canonical.ErrRejected, orSaid(text, "the agent rejected the task and said nothing more"))
	case a2a.TaskStateCanceled:
		msg := "canceled"
		if text != "" {
			msg += ": " + text
		}
		return failure(agent, req, canonical.ErrExecutionFailed, msg)
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		env := reply(agent, req, canonical.ActNeedsInput)
		env.Description = orSaid(text, "the agent needs more input")
		if d, ok := firstData(status); ok {
			env.Inputs = d
		}
		return env
	}
	return failure(agent, req, canonical.ErrInternal, fmt.Sprintf("the task settled in state %s", t.Status.State))
}

func orSaid(text, otherwise string) string {
	if text == "" {
		return otherwise
	}
	return text
}

// progress returns what the bridge is told of a status update of the
// task of req, the n-th (from 0): an accept for the first, then an event
// "progress" with the update's count, state and text as arguments.
func progress(agent string, req *canonical.Envelope, t *a2a.Task, n int) *canonical.Envelope {
	text := textOf(partsOf(t.Status.Message))
	if n == 0 {
		env := reply(agent, req, canonical.ActAccept)
		env.Outcome, env.Description = canonical.OutcomeSuccess, text
		return env
	}
	env := reply(agent, req, canonical.ActEvent)
	env.Operation = canonical.Operation{Name: "progress"}
	args := map[string]any{"progress": n, "state": t.Status.State.String()}
	if text != "" {
		args["message"] = text
		env.Description = text
	}
	b, _ := json.Marshal(args) // numbers and strings always marshal
	env.Arguments = canonical.JSON(b)
	return env
}

// failure returns a failure of agent to req, of code and message.
func failure(agent string, req *canonical.Envelope, code canonical.ErrorCode, msg string) *canonical.Envelope {
	env := reply(agent, req, canonical.ActFailure)
	env.Outcome = canonical.OutcomeFailure
	env.Error = &canonical.Error{Code: code, Message: msg}
	return env
}

// callError returns the canonical answer for an error of a call that
// reached the agent: an A2A error (JSON-RPC or HTTP+JSON), named, mapped to
// the nearest canonical code.
func callError(agent string, req *canonical.Envelope, err error) *canonical.Envelope {
	code := canonical.ErrExecutionFailed
	act := canonical.ActFailure
	switch {
	case errors.Is(err, a2a.ErrParseError), errors.Is(err, a2a.ErrInvalidRequest):
		code, act = canonical.ErrInvalidMessage, canonical.ActNotUnderstood
	case errors.Is(err, a2a.ErrMethodNotFound), errors.Is(err, a2a.ErrTaskNotFound):
		code = canonical.ErrNotFound
	case errors.Is(err, a2a.ErrInvalidParams):
		code = canonical.ErrInvalidArguments
	case errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		code = canonical.ErrUnauthorized
	case errors.Is(err, a2a.ErrUnsupportedOperation), errors.Is(err, a2a.ErrUnsupportedContentType),
		errors.Is(err, a2a.ErrTaskNotCancelable), errors.Is(err, a2a.ErrVersionNotSupported),
		errors.Is(err, a2a.ErrExtensionSupportRequired), errors.Is(err, a2a.ErrPushNotificationNotSupported):
		code = canonical.ErrRejected
	case errors.Is(err, a2a.ErrInternalError), errors.Is(err, a2a.ErrInvalidAgentResponse):
		code = canonical.ErrInternal
	}
	msg := err.Error()
	var ae *a2a.Error
	if errors.As(err, &ae) {
		msg = "A2A error " + a2a.ErrorReason(err) + ": " + msg
	}
	env := reply(agent, req, act)
	env.Outcome = canonical.OutcomeFailure
	env.Error = &canonical.Error{Code: code, Message: msg}
	return env
}

// unreachable reports whether err says the agent could not be reached (no
// connection, no HTTP answer), rather than an answer of the agent.
func unreachable(err error) bool {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// reply returns a message of act from agent answering req, carrying the
// id req went out under (the bridge's token) in every correlation field.
func reply(agent string, req *canonical.Envelope, act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		Act:       act,
		Sender:    canonical.Party{ID: agent},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID},
		InReplyTo: req.ID, CorrelationID: req.ID,
		Trace: req.Trace,
	}
}

// partsOf returns a message's parts, none for no message.
func partsOf(m *a2a.Message) a2a.ContentParts {
	if m == nil {
		return nil
	}
	return m.Parts
}

// resultOf is the canonical result of parts: the first data part's value,
// else {"text": ...} of the text parts joined by newlines.
func resultOf(parts a2a.ContentParts) canonical.JSON {
	if d, ok := firstData(parts); ok {
		return d
	}
	b, _ := json.Marshal(map[string]string{"text": textOf(parts)}) // a string always marshals
	return canonical.JSON(b)
}

// firstData returns the value of the first data part, as JSON.
func firstData(parts a2a.ContentParts) (canonical.JSON, bool) {
	for _, p := range parts {
		if p == nil {
			continue
		}
		if d, ok := p.Content.(a2a.Data); ok {
			b, err := json.Marshal(d.Value)
			if err != nil {
				continue
			}
			return canonical.JSON(b), true
		}
	}
	return "", false
}

// textOf joins the text parts by newlines.
func textOf(parts a2a.ContentParts) string {
	var out []string
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t, ok := p.Content.(a2a.Text); ok {
			out = append(out, string(t))
		}
	}
	return strings.Join(out, "\n")
}

// tools returns the canonical tools of an agent's skills: the skill's id
// is the tool's name, its name the title.
func tools(skills []a2a.AgentSkill) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(skills))
	for _, s := range skills {
		out = append(out, canonical.Tool{Name: s.ID, Title: s.Name, Description: s.Description})
	}
	return out
}

// traceparent writes a W3C traceparent header for t: its span as the
// parent, or a new span of its trace when it names none; "" when t's trace
// id is not a W3C one.
func traceparent(t canonical.Trace) string {
	if !canonical.IsTraceID(t.TraceID) {
		return ""
	}
	span := t.Span()
	if span == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		span = hex.EncodeToString(b[:])
	}
	return canonical.FormatTraceparent(t.TraceID, span, "")
}
