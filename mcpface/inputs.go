package mcpface

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Input an agent asks for. A bluelabel agent's needs_input becomes an MCP
// elicitation (form mode) to a client that declared elicitation: the tool's
// handler returns an input-required result (SEP-2322) holding the request
// and the state of the suspended call; the client answers in a new
// tools/call carrying that state, which resumes the call, and the answer
// goes back to the agent as the same task, its fields added to the call's
// arguments. For clients of protocol versions before 2026-07-28 mcp-go asks
// with a server-initiated elicitation/create and resumes the call itself.
// An input marked sensitive is never asked for in a form (the MCP spec
// forbids it): the call ends with an isError result naming it.

// inputsID keys the elicitation in an input-required result.
const inputsID = "inputs"

// suspendedCall is one tools/call on its way: while its handler waits, and
// between the handler's input-required result and the client's answer.
type suspendedCall struct {
	e     *entry
	start time.Time
	args  canonical.JSON // the call's arguments, which inputs are added to
	call  *bridge.Pending
	// asks gets the agent's requests for input, answers the client's
	// answers to them.
	asks    chan *canonical.Envelope
	answers chan inputAnswer
}

type inputAnswer struct {
	args canonical.JSON
	err  error
}

// ask is the bridge's WithInputs handler: it hands the agent's request for
// input to the tools/call handler and waits for the client's answer.
func (sc *suspendedCall) ask(ctx context.Context, env *canonical.Envelope) (canonical.JSON, error) {
	if sensitive := sensitiveInputs(env.Inputs); len(sensitive) > 0 {
		return "", &canonical.Error{Code: canonical.ErrRejected, Message: fmt.Sprintf(
			"agent %s needs sensitive input (%s), which MCP clients must not be asked for in a form: %s",
			sc.e.tool.Agent, strings.Join(sensitive, ", "), describeInputs(env.Inputs))}
	}
	select {
	case sc.asks <- env:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case a := <-sc.answers:
		return a.args, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// resume gives a suspended call the client's answer and waits again.
func (f *Face) resume(ctx context.Context, sc *suspendedCall, responses mcp.InputResponses) (*mcp.CallToolResult, tally, error) {
	var a inputAnswer
	switch res := server.ElicitationResponse(responses, inputsID); {
	case res == nil:
		a.err = &canonical.Error{Code: canonical.ErrRejected, Message: "the client answered without the input asked for"}
	case res.Action == mcp.ElicitationResponseActionAccept:
		a.args, a.err = addInputs(sc.args, res.Content)
	default:
		a.err = &canonical.Error{Code: canonical.ErrRejected, Message: fmt.Sprintf("the client did not give the input (%s)", res.Action)}
	}
	sc.answers <- a
	return f.await(ctx, sc)
}

// addInputs returns args with the members of content added.
func addInputs(args canonical.JSON, content any) (canonical.JSON, error) {
	b, err := json.Marshal(content)
	if err != nil || !gjson.ValidBytes(b) || !gjson.ParseBytes(b).IsObject() {
		return "", &canonical.Error{Code: canonical.ErrInvalidArguments, Message: "the client's input is not a JSON object"}
	}
	out := []byte(args)
	gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
		out, err = sjson.SetRawBytes(out, escapePath(k.String()), []byte(v.Raw))
		return err == nil
	})
	if err != nil {
		return "", &canonical.Error{Code: canonical.ErrInvalidArguments, Message: "the client's input cannot be added: " + err.Error()}
	}
	return canonical.JSON(out), nil
}

// sensitiveInputs returns the ids of the inputs marked sensitive.
func sensitiveInputs(inputs canonical.JSON) []string {
	var out []string
	gjson.Parse(string(inputs)).ForEach(func(_, in gjson.Result) bool {
		if in.Get("sensitive").Bool() {
			out = append(out, in.Get("id").String())
		}
		return true
	})
	return out
}

// elicitation asks the client for the inputs of ask, as a form whose
// schema has one primitive property per input.
func elicitation(e *entry, ask *canonical.Envelope) mcp.ElicitationParams {
	props := map[string]any{}
	var required []string
	gjson.Parse(string(ask.Inputs)).ForEach(func(_, in gjson.Result) bool {
		id := in.Get("id").String()
		if id == "" {
			return true
		}
		p := map[string]any{"type": "string"}
		switch t := strings.ToLower(in.Get("type").String()); t {
		case "number", "float", "double":
			p["type"] = "number"
		case "integer", "int":
			p["type"] = "integer"
		case "boolean", "bool":
			p["type"] = "boolean"
		}
		if opts := in.Get("options"); opts.IsArray() {
			var enum []string
			opts.ForEach(func(_, o gjson.Result) bool { enum = append(enum, o.String()); return true })
			p["type"], p["enum"] = "string", enum
		}
		if d := in.Get("description").String(); d != "" {
			p["description"] = d
		}
		props[id] = p
		if !in.Get("required").Exists() || in.Get("required").Bool() {
			required = append(required, id)
		}
		return true
	})
	msg := fmt.Sprintf("Agent %s (%s) needs more input for %s", e.tool.Agent, e.tool.Dialect, e.tool.Name)
	if c := gjson.Parse(string(ask.Context)); c.Type == gjson.String && c.Str != "" {
		msg += ": " + c.Str
	} else if ask.Description != "" {
		msg += ": " + ask.Description
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return mcp.ElicitationParams{Message: msg, RequestedSchema: schema}
}

// suspended holds the calls waiting for a client's input, by state.
type suspended struct {
	mu    sync.Mutex
	calls map[string]*suspendedCall
}

// put keeps sc until it is taken, or for at most ttl, after which its call
// is given up; it returns the state that names it.
func (s *suspended) put(sc *suspendedCall, ttl time.Duration) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	state := hex.EncodeToString(b)
	s.mu.Lock()
	s.calls[state] = sc
	s.mu.Unlock()
	time.AfterFunc(ttl, func() {
		if s.take(state) != nil {
			sc.call.Cancel()
		}
	})
	return state
}

// take removes and returns the call of state, nil if none.
func (s *suspended) take(state string) *suspendedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.calls[state]
	delete(s.calls, state)
	return sc
}
