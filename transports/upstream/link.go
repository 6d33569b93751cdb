package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// link carries the bridge's messages to one connection of an MCP server:
// each request becomes a tools/call, run in a goroutine of its own (a
// semaphore bounds them), whose outcome the link hands back to the bridge.
type link struct {
	u    *Upstream
	c    *client.Client
	lost func(error)
	slot chan struct{} // one per call in flight

	mu    sync.Mutex
	sess  attachedSession
	calls map[string]*inflight // by the token the request went out under
}

// inflight is one tools/call in progress.
type inflight struct {
	req    *canonical.Envelope
	cancel context.CancelFunc
}

func newLink(u *Upstream, c *client.Client, lost func(error)) *link {
	return &link{u: u, c: c, lost: lost, slot: make(chan struct{}, u.spec.Concurrency), calls: map[string]*inflight{}}
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

// Transport names the transport.
func (l *link) Transport() string { return "mcp" }

// Send takes one message of the bridge for the server. A request is called
// as a tool; the bridge's own messages (a shutdown notice, an error reply)
// have nowhere to go in MCP and are dropped.
func (l *link) Send(ctx context.Context, out bridge.Outbound) error {
	env := out.Env
	if env == nil {
		return errors.New("upstream: the link takes envelopes, not frames")
	}
	if env.Act != canonical.ActRequest {
		l.u.log.Debug("upstream MCP server: nothing to send for this message", "act", env.Act)
		return nil
	}
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	callCtx, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	l.calls[env.ID] = &inflight{req: env, cancel: cancel}
	l.mu.Unlock()
	go func() {
		defer func() { <-l.slot }()
		l.call(callCtx, env)
	}()
	return nil
}

// call makes req a tools/call and tells the bridge the outcome.
func (l *link) call(ctx context.Context, req *canonical.Envelope) {
	defer l.forget(req.ID)
	agent := l.u.spec.ID
	var ans *canonical.Envelope
	args, err := callArguments(req.Arguments)
	if err != nil {
		ans = reply(agent, req, canonical.ActFailure)
		ans.Outcome, ans.Error = canonical.OutcomeFailure, &canonical.Error{Code: canonical.ErrInvalidArguments, Message: err.Error()}
	} else {
		call := mcp.CallToolRequest{}
		call.Params.Name = toolName(req.Operation)
		call.Params.Arguments = args
		call.Params.Meta = &mcp.Meta{ProgressToken: req.ID}
		res, err := l.c.CallTool(ctx, call)
		switch {
		case ctx.Err() != nil:
			return // the bridge gave the request up
		case err != nil:
			var lost bool
			if ans, lost = failure(agent, req, err); lost {
				// The server is gone: the bridge answers every call in
				// flight unavailable when the session is lost.
				l.lost(fmt.Errorf("tools/call %s: %w", call.Params.Name, err))
				return
			}
		default:
			ans = answer(agent, req, res)
		}
	}
	if s := l.session(); s != nil {
		s.ReceiveEnvelope(ans)
	}
}

func (l *link) forget(token string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.calls, token)
}

// Cancel stops the call of the request the bridge gave up: its context
// ends, and mcp-go tells the server (notifications/cancelled on stdio; on
// HTTP the request's stream ends).
func (l *link) Cancel(token string) {
	l.mu.Lock()
	c := l.calls[token]
	l.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// Ping checks the server answers an MCP ping (for the bridge's heartbeats;
// on a 2026-07-28 connection mcp-go answers it without asking the server,
// and the connection's own watch stands in).
func (l *link) Ping(ctx context.Context) error {
	//lint:ignore SA1019 see the doc comment
	return l.c.Ping(ctx)
}

// notified handles a notification of the server: a changed tool list is
// listed again and declared; a progress notification about a call goes to
// the call's requester as an event about its request.
func (l *link) notified(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationToolsListChanged):
		go l.relist()
	case string(mcp.MethodNotificationProgress):
		params := n.Params.AdditionalFields
		token, _ := params["progressToken"].(string)
		l.mu.Lock()
		c := l.calls[token]
		l.mu.Unlock()
		if c == nil {
			return
		}
		if s := l.session(); s != nil {
			s.ReceiveEnvelope(progressEvent(l.u.spec.ID, c.req, params))
		}
	}
}

// relist lists the server's tools again and declares them.
func (l *link) relist() {
	ctx, cancel := context.WithTimeout(context.Background(), l.u.spec.StopGrace+5*time.Second)
	defer cancel()
	tools, err := l.list(ctx)
	if err != nil {
		l.u.log.Warn("upstream MCP server: tools/list after list_changed failed", "error", err)
		return
	}
	l.u.log.Info("upstream MCP server tools changed", "tools", len(tools))
	l.declare(tools)
}

// list returns every tool of the server, following the pages of its list.
func (l *link) list(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	req := mcp.ListToolsRequest{}
	seen := map[mcp.Cursor]bool{}
	for {
		res, err := l.c.ListToolsByPage(ctx, req)
		if err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("the server's tools/list repeats the cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		req.Params.Cursor = res.NextCursor
	}
}

// declare tells the bridge the agent's tools.
func (l *link) declare(list []mcp.Tool) {
	s := l.session()
	if s == nil {
		return
	}
	s.ReceiveEnvelope(&canonical.Envelope{Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess,
		Sender: canonical.Party{ID: l.u.spec.ID}, Capabilities: &canonical.Capabilities{Tools: tools(list)}})
}
