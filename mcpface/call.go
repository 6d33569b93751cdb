package mcpface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/tidwall/gjson"
)

// How a tools/call reaches the face. mcp-go routes a call by its tool's
// name through its registry, which holds a server.ServerTool by value per
// tool (about 400 bytes each, whatever it holds): one per tool of every
// agent would cost each agent kilobytes. So the registry holds one tool,
// the dispatcher, under a name no client can send, and the face routes
// calls itself: beforeCall (mcp-go's BeforeCallTool hook, which runs before
// mcp-go looks the tool up) renames a call of a tool of the face's table
// that the caller may see to the dispatcher, and hands the handler the
// table's entry in the request itself (routed), where it travels with the
// call whatever the transport (stdio's calls share one context) and into
// mcp-go's retries of it. A call of a tool the table does not have, or the
// caller may not see, is left as it came: mcp-go answers that the tool is
// not found, naming it, as it always has.
//
// The exception is a tool whose input schema binds parameters to HTTP
// headers (x-mcp-header, rare): mcp-go checks the headers of a call
// against the schema of the tool it holds under the call's name, before
// any hook, so the face registers such a tool under its own name (sync)
// and leaves its calls alone once mcp-go holds it.

// dispatchName is the name the dispatcher is registered under: not UTF-8,
// so that no tool name (names.go) is it and no client can send it (a
// JSON string decodes to UTF-8 only).
const dispatchName = "\xffmcp-bridge"

// routed is the arguments of a call beforeCall routed to the dispatcher:
// the table's entry of the tool called, and the call's own arguments. A
// client cannot send one: JSON decodes to maps, slices and scalars only.
type routed struct {
	e    *entry
	args any
}

// dispatcher is the one tool mcp-go's registry holds for every tool
// routed by beforeCall: its handler is the face's.
func (f *Face) dispatcher() server.ServerTool {
	return server.ServerTool{Tool: mcp.Tool{Name: dispatchName, RawInputSchema: openSchemaBytes}, Handler: f.call}
}

// beforeCall is mcp-go's BeforeCallTool hook: a call of a tool of the
// table that the request's token may see goes to the dispatcher, unless
// mcp-go holds the tool under its own name (its input schema binds
// headers). Any other call is left to mcp-go, which answers that its tool
// is not found.
func (f *Face) beforeCall(ctx context.Context, _ any, req *mcp.CallToolRequest) {
	e := f.table().byName[req.Params.Name]
	if e == nil || !scopeOf(ctx).shows(e) {
		return
	}
	if e.tool.headers && f.held(e.name) {
		return
	}
	req.Params.Name = dispatchName
	req.Params.Arguments = &routed{e: e, args: req.Params.Arguments}
}

// held reports whether mcp-go holds the tool named name under its name.
func (f *Face) held(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.holding[name]
	return ok
}

// unroute returns the entry of the tool a call is of, and the call as its
// client sent it: the entry beforeCall routed it with, or the table's
// entry of its name (a tool mcp-go holds; nil if the table has none).
func (f *Face) unroute(req mcp.CallToolRequest) (*entry, mcp.CallToolRequest) {
	if r, ok := req.Params.Arguments.(*routed); ok {
		req.Params.Name, req.Params.Arguments = r.e.name, r.args
		return r.e, req
	}
	return f.entry(req.Params.Name), req
}

// call is the handler of the dispatcher and of every tool mcp-go holds
// (above): handle, then count and audit the call.
func (f *Face) call(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, t, err := f.handle(ctx, req)
	f.record(ctx, t)
	return res, err
}

// handle turns a tools/call into a canonical request to the tool's agent
// through the bridge's call API, and returns the tool's result and what
// to count of the call (record). A retry of a call that asked the client
// for input (its RequestState names the suspended call) resumes that call
// instead.
func (f *Face) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, tally, error) {
	e, req := f.unroute(req)
	if state := req.Params.RequestState; state != "" {
		sc := f.suspended.take(state)
		if sc == nil {
			return errorResult("this call's request state is unknown or expired; call the tool again"), tally{}, nil
		}
		return f.resume(ctx, sc, req.Params.InputResponses)
	}
	s := scopeOf(ctx)
	if e == nil || !s.shows(e) {
		return errorResult(fmt.Sprintf("no tool %q is offered by this bridge now", req.Params.Name)), tally{}, nil
	}
	if which, why := f.auth.Load().limiter.call(s.clientKey(), e); which != "" {
		f.metrics.limited.WithLabelValues(which).Inc()
		return errorResult(why), tally{e: e, outcome: outcomeLimited}, nil
	}
	args, err := arguments(req)
	if err != nil {
		return errorResult(err.Error()), tally{}, nil
	}
	env := canonical.Envelope{
		Act:       canonical.ActRequest,
		Sender:    canonical.Party{ID: f.senderOf(s)},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: e.tool.Agent},
		Operation: e.tool.Operation,
		Arguments: args,
		TTL:       canonical.Dur(f.opts.CallTimeout),
	}
	sc := &suspendedCall{e: e, start: time.Now(), args: args}
	var opts []bridge.CallOption
	if token := progressToken(req); token != nil {
		opts = append(opts, bridge.WithProgress(f.progress(ctx, token, e)))
	}
	if canElicit(ctx) {
		// Only a call that can ask its client for input needs the ways to;
		// await's select never hears from a nil asks.
		sc.asks, sc.answers = make(chan *canonical.Envelope, 1), make(chan inputAnswer, 1)
		opts = append(opts, bridge.WithInputs(sc.ask))
	}
	// The call outlives this handler when it asks the client for input
	// (the client answers in a new tools/call): what it asks of the client
	// is bounded by the call's own time limit, not by this request.
	sc.call = f.b.Go(context.WithoutCancel(ctx), env, opts...)
	return f.await(ctx, sc)
}

// entry returns the table's entry of the tool named name, nil if none.
func (f *Face) entry(name string) *entry {
	return f.table().byName[name]
}

// arguments returns a call's arguments as JSON: an object, {} when none.
func arguments(req mcp.CallToolRequest) (canonical.JSON, error) {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		if req.Params.Arguments == nil {
			return "{}", nil
		}
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return "", fmt.Errorf("the arguments are not JSON: %v", err)
		}
		raw = b
	}
	v := gjson.ParseBytes(raw)
	switch {
	case v.Type == gjson.Null:
		return "{}", nil
	case !v.IsObject():
		return "", errors.New("the arguments must be a JSON object")
	}
	return canonical.JSON(raw), nil
}

// await waits for the call's outcome or its next request for input, or for
// the client to cancel.
func (f *Face) await(ctx context.Context, sc *suspendedCall) (*mcp.CallToolResult, tally, error) {
	select {
	case <-sc.call.Done():
		sc.call.Cancel()
		ans, err := sc.call.Result()
		res, t := f.result(sc, ans, err)
		return res, t, nil
	case ask := <-sc.asks:
		state := f.suspended.put(sc, f.opts.CallTimeout)
		return server.NewInputRequestBuilder(state).Elicit(inputsID, elicitation(sc.e, ask)).ToolResult(), tally{}, nil
	case <-ctx.Done():
		sc.call.Cancel()
		return nil, tally{e: sc.e, outcome: outcomeCancelled, took: time.Since(sc.start)}, ctx.Err()
	}
}

// result turns the call's outcome into the tool's result.
func (f *Face) result(sc *suspendedCall, ans canonical.Envelope, err error) (*mcp.CallToolResult, tally) {
	e := sc.e
	var outcome string
	var res *mcp.CallToolResult
	switch {
	case err != nil:
		outcome = outcomeBridge
		res = errorResult(fmt.Sprintf("mcp-bridge could not get an answer from agent %s (%s): %v", e.tool.Agent, e.tool.Dialect, err))
	default:
		outcome, res = answer(e, &ans)
	}
	return res, tally{e: e, outcome: outcome, took: time.Since(sc.start)}
}

// tally is what record counts of a tools/call once it has its outcome:
// the entry of the tool called (nil when there is nothing to count: the
// call named no tool of the face, or asked its client for input), how it
// ended and how long it took.
type tally struct {
	e       *entry
	outcome string
	took    time.Duration
}

// record counts a tools/call as t says, and writes its audit line: who
// called which tool of which agent, the outcome and how long it took;
// never its arguments, its result or a token.
func (f *Face) record(ctx context.Context, t tally) {
	if t.e == nil {
		return
	}
	f.metrics.called(t.e.name, t.outcome, t.took)
	f.audit(ctx, t.e.name, t.e.tool.Agent, t.outcome, t.took)
}

// audit writes the audit line of a tools/call of tool (agent's; "" when
// there is no such tool).
//
// The line goes to the handler itself, as the message log's do
// (bridge/msglog): Logger.Info would look up its caller's program counter,
// which no handler of the bridge reads, and make a record with its
// attributes on the heap, on every call; serve's handler (logjson) takes
// the line's parts without a record.
func (f *Face) audit(ctx context.Context, tool, agent, outcome string, d time.Duration) {
	if !f.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	s := scopeOf(ctx)
	var buf [7]slog.Attr
	attrs := append(buf[:0], slog.String("subject", s.subjectName()), slog.String("client", clientName(ctx)),
		slog.String("tool", tool), slog.String("agent", agent), slog.String("outcome", outcome),
		slog.Float64("latency_ms", float64(d.Microseconds())/1000))
	if s != nil && s.oauthClient != "" {
		attrs = append(attrs, slog.String("oauth_client", s.oauthClient))
	}
	const msg = "mcp: tools/call"
	h, now := f.log.Handler(), time.Now()
	if ln, ok := h.(*logjson.Handler); ok {
		_ = ln.Line(now, slog.LevelInfo, msg, attrs)
		return
	}
	r := slog.NewRecord(now, slog.LevelInfo, msg, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r)
}

// refused writes the audit line of a tools/call mcp-go refused before the
// face's handler saw it: a tool unknown, or hidden from the client's
// token (outcome unknown_tool). Such calls are not counted in
// mcp_tool_calls_total, whose tool label would take any name a client
// sends.
func (f *Face) refused(ctx context.Context, _ any, method mcp.MCPMethod, message any, err error) {
	req, ok := message.(*mcp.CallToolRequest)
	if method != mcp.MethodToolsCall || !ok || !errors.Is(err, server.ErrToolNotFound) {
		return
	}
	agent := ""
	if e := f.entry(req.Params.Name); e != nil {
		agent = e.tool.Agent
	}
	f.audit(ctx, req.Params.Name, agent, outcomeUnknown, 0)
}

// clientName is the name the MCP client of the request ctx belongs to
// gave in its clientInfo; "" when unknown.
func clientName(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientInfo().Name
	}
	return ""
}

// answer turns the agent's answer into the tool's result: its result as
// text holding the result JSON, and as structured content when it is an
// object; a failure, refusal or failed result as an isError result saying
// what went wrong and which agent.
func answer(e *entry, ans *canonical.Envelope) (string, *mcp.CallToolResult) {
	switch ans.Act {
	case canonical.ActResult, canonical.ActInformCapabilities:
		text := string(ans.Result)
		if text == "" {
			text = ans.Description
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
		if isObject(ans.Result) {
			res.StructuredContent = json.RawMessage(ans.Result)
		}
		if ans.Outcome == canonical.OutcomeFailure {
			res.IsError = true
			if ans.Error != nil {
				res.Content = append(res.Content, mcp.NewTextContent(fmt.Sprintf("%s reports the task failed: %s", who(e), ans.Error)))
			}
			return outcomeFailure, res
		}
		return outcomeSuccess, res
	case canonical.ActNeedsInput:
		return outcomeInputs, errorResult(fmt.Sprintf("%s needs more input before it can go on, and this client cannot be asked for it: %s",
			who(e), describeInputs(ans.Inputs)))
	}
	what := "failed"
	switch ans.Act {
	case canonical.ActRefuse:
		what = "refused the call"
	case canonical.ActNotUnderstood:
		what = "did not understand the call"
	}
	msg := who(e) + " " + what
	if ans.Error != nil {
		msg += ": " + ans.Error.Error()
	} else if ans.Description != "" {
		msg += ": " + ans.Description
	}
	return outcomeFailure, errorResult(msg)
}

// isObject reports whether j is a JSON object: its first byte after
// white space is '{' and it is valid JSON.
func isObject(j canonical.JSON) bool {
	s := strings.TrimLeft(string(j), " \t\r\n")
	return s != "" && s[0] == '{' && gjson.Valid(s)
}

// who names the agent of e in a result: "agent jules (swarm)".
func who(e *entry) string { return "agent " + e.tool.Agent + " (" + e.tool.Dialect + ")" }

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: true}
}

// describeInputs lists requested inputs: "api_key (string): API key for
// the deploy target; ...".
func describeInputs(inputs canonical.JSON) string {
	var parts []string
	gjson.Parse(string(inputs)).ForEach(func(_, in gjson.Result) bool {
		p := in.Get("id").String()
		if t := in.Get("type").String(); t != "" {
			p += " (" + t + ")"
		}
		if d := in.Get("description").String(); d != "" {
			p += ": " + d
		}
		parts = append(parts, p)
		return true
	})
	if len(parts) == 0 {
		return string(inputs)
	}
	return strings.Join(parts, "; ")
}

// progressToken returns the call's progress token, nil if it has none.
func progressToken(req mcp.CallToolRequest) mcp.ProgressToken {
	if req.Params.Meta == nil {
		return nil
	}
	return req.Params.Meta.ProgressToken
}

// progress returns the bridge's progress handler for a call with token: a
// notifications/progress to the client for each step.
func (f *Face) progress(ctx context.Context, token mcp.ProgressToken, e *entry) func(bridge.Progress) {
	n := 0
	return func(p bridge.Progress) {
		n++
		msg := ""
		switch p.Stage {
		case bridge.StageDelivered:
			msg = fmt.Sprintf("delivered to agent %s (%s)", e.tool.Agent, e.tool.Dialect)
		case bridge.StageAccepted:
			msg = fmt.Sprintf("accepted by agent %s", e.tool.Agent)
		default:
			msg = fmt.Sprintf("agent %s: %s", e.tool.Agent, eventText(p.Env))
		}
		params := map[string]any{"progressToken": token, "progress": n, "message": msg}
		if s := server.ClientSessionFromContext(ctx); s != nil {
			f.sessions.notify(s.SessionID())
		}
		if err := f.srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params); err != nil {
			f.log.Debug("mcp: progress not sent", "tool", e.name, "error", err)
		}
	}
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

// canElicit reports whether the client of the request ctx belongs to can
// be asked for input (it declared elicitation).
func canElicit(ctx context.Context) bool {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	return ok && s.GetClientCapabilities().Elicitation != nil
}

// senderOf is the id the requests of a client of scope s carry: the agent
// its token proved, or the configured sender.
func (f *Face) senderOf(s *scope) string {
	if s != nil && s.sender != "" {
		return s.sender
	}
	return f.opts.Sender
}
