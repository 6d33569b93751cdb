package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// toolName is the MCP tool a request asks for: its operation's name (the
// action of a two-level name), else its capability.
func toolName(op canonical.Operation) string {
	if op.Name != "" {
		return op.Name
	}
	return op.Capability
}

// callArguments returns a request's arguments as MCP wants them: a JSON
// object ({} when there are none).
func callArguments(args canonical.JSON) (json.RawMessage, error) {
	v := gjson.Parse(string(args))
	switch {
	case args == "" || v.Type == gjson.Null:
		return json.RawMessage("{}"), nil
	case !v.IsObject():
		return nil, fmt.Errorf("an MCP tool takes an object of arguments, not %s", kind(v))
	}
	return json.RawMessage(args), nil
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

// answer returns the canonical answer of agent to req for the tool's
// result: a result (its structured content, else its text), or a failure
// for an isError result.
func answer(agent string, req *canonical.Envelope, res *mcp.CallToolResult) *canonical.Envelope {
	text := textOf(res.Content)
	if res.IsError {
		env := reply(agent, req, canonical.ActFailure)
		env.Outcome = canonical.OutcomeFailure
		msg := text
		if msg == "" {
			msg = "the tool failed and said nothing more"
		}
		env.Error = &canonical.Error{Code: canonical.ErrExecutionFailed, Message: msg}
		return env
	}
	env := reply(agent, req, canonical.ActResult)
	env.Outcome = canonical.OutcomeSuccess
	env.Result = resultOf(res, text)
	return env
}

// resultOf is the canonical result of a tool's result: its structured
// content where it has one, else its text as a JSON string.
func resultOf(res *mcp.CallToolResult, text string) canonical.JSON {
	if raw := res.RawStructuredContent; len(raw) > 0 && gjson.ValidBytes(raw) {
		return canonical.JSON(raw)
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return canonical.JSON(b)
		}
	}
	b, _ := json.Marshal(text) // a string always marshals
	return canonical.JSON(b)
}

// textOf joins the text of a result's text contents, and names the others
// (an image, a resource...).
func textOf(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		switch c := c.(type) {
		case mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes base64]", c.MIMEType, len(c.Data)))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes base64]", c.MIMEType, len(c.Data)))
		case mcp.EmbeddedResource:
			parts = append(parts, "[resource]")
		case mcp.ResourceLink:
			parts = append(parts, "[resource link "+c.URI+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// failure returns the canonical error of agent to req for an error of the
// call: a JSON-RPC error the server answered, mapped to the nearest
// canonical code. lost reports a transport error instead: the server is
// gone, and the caller treats the connection as lost.
func failure(agent string, req *canonical.Envelope, err error) (env *canonical.Envelope, lost bool) {
	var te *transport.Error
	if errors.As(err, &te) {
		return nil, true
	}
	code := canonical.ErrExecutionFailed
	switch {
	case errors.Is(err, mcp.ErrInvalidParams):
		code = canonical.ErrInvalidArguments
		if strings.Contains(err.Error(), "not found") {
			code = canonical.ErrNotFound
		}
	case errors.Is(err, mcp.ErrMethodNotFound):
		code = canonical.ErrNotFound
	case errors.Is(err, mcp.ErrInvalidRequest), errors.Is(err, mcp.ErrParseError):
		code = canonical.ErrInvalidMessage
	case errors.Is(err, mcp.ErrInternalError):
		code = canonical.ErrInternal
	}
	env = reply(agent, req, canonical.ActFailure)
	if code == canonical.ErrInvalidMessage {
		env.Act = canonical.ActNotUnderstood
	}
	env.Outcome = canonical.OutcomeFailure
	env.Error = &canonical.Error{Code: code, Message: err.Error()}
	return env, false
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

// progressEvent returns the event that tells the requester of req of a
// progress notification: its progress, total and message as arguments.
func progressEvent(agent string, req *canonical.Envelope, params map[string]any) *canonical.Envelope {
	env := reply(agent, req, canonical.ActEvent)
	env.Operation = canonical.Operation{Name: "progress"}
	args := map[string]any{}
	for _, k := range []string{"progress", "total", "message"} {
		if v, ok := params[k]; ok {
			args[k] = v
		}
	}
	b, _ := json.Marshal(args) // numbers and strings always marshal
	env.Arguments = canonical.JSON(b)
	if m, ok := params["message"].(string); ok {
		env.Description = m
	}
	return env
}

// tools returns the canonical tools of an MCP server's tool list.
func tools(list []mcp.Tool) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(list))
	for _, t := range list {
		ct := canonical.Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		if b := schema(t.RawInputSchema, t.InputSchema); b != nil {
			ct.InputSchema = canonical.JSON(b)
		}
		if len(t.RawOutputSchema) > 0 {
			ct.OutputSchema = canonical.JSON(t.RawOutputSchema)
		} else if t.OutputSchema.Type != "" {
			if b, err := json.Marshal(t.OutputSchema); err == nil {
				ct.OutputSchema = canonical.JSON(b)
			}
		}
		out = append(out, ct)
	}
	return out
}

// schema returns a tool's input schema as JSON, the raw one if it has one.
func schema(raw json.RawMessage, s mcp.ToolInputSchema) []byte {
	if len(raw) > 0 {
		return raw
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return b
}
