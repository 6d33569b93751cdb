package mcpface

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Logging and completion. Sessions that set a log level (logging/setLevel)
// hear of agents coming and going: each agent status change is a log
// message from the logger "mcp-bridge", at level warning when an agent
// becomes UNAVAILABLE and info otherwise. Completion completes the id of
// the mcp-bridge://agents/{id} resource template from the agents the
// bridge knows.

// sessions are the MCP sessions mcp-go registered, by id: for log
// messages, and for fastCalls, which answers a session only while nothing
// was sent to it (mcp-go answers every request of a session it has sent a
// notification to as an event stream).
type sessions struct {
	mu  sync.Mutex
	ids map[string]*openSession
}

// openSession is a session mcp-go registered, and whether a notification
// may have been sent to it.
type openSession struct {
	c        server.ClientSession
	notified bool
}

func (s *sessions) add(_ context.Context, c server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]*openSession{}
	}
	s.ids[c.SessionID()] = &openSession{c: c}
}

func (s *sessions) remove(_ context.Context, c server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, c.SessionID())
}

func (s *sessions) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.ids))
	for id := range s.ids {
		out = append(out, id)
	}
	return out
}

// quiet returns the session id, nil when mcp-go has not registered it or a
// notification may have been sent to it.
func (s *sessions) quiet(id string) server.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.ids[id]; o != nil && !o.notified {
		return o.c
	}
	return nil
}

// notify notes that a notification may be sent to session id.
func (s *sessions) notify(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.ids[id]; o != nil {
		o.notified = true
	}
}

// notifyAll notes that a notification may be sent to every session
// registered.
func (s *sessions) notifyAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.ids {
		o.notified = true
	}
}

// broadcast runs send, which may send a notification to every session
// mcp-go has registered, noting that it may have: before, and again
// after for the sessions registered while it ran.
func (f *Face) broadcast(send func()) {
	f.sessions.notifyAll()
	send()
	f.sessions.notifyAll()
}

// logStatus tells the sessions of an agent's status change.
func (f *Face) logStatus(c bridge.Change) {
	level := mcp.LoggingLevelInfo
	if c.Agent.Status == bridge.StatusUnavailable {
		level = mcp.LoggingLevelWarning
	}
	n := mcp.NewLoggingMessageNotification(level, "mcp-bridge", map[string]any{
		"agent": c.Agent.ID, "dialect": c.Agent.Dialect, "status": c.Agent.Status, "previous": c.Previous, "reason": c.Reason,
	})
	clustered := f.relay != nil && f.relay.name.Load() != nil
	for _, id := range f.sessions.list() {
		// In a cluster every instance hears of the change: the one that
		// holds the session's GET stream tells it, so that it hears once.
		if clustered && !f.sessionTable.streaming(id) {
			continue
		}
		// The level a session's client set on any instance is in its
		// record; mcp-go knows only the one set here.
		if f.sessionTable != nil {
			if least := f.sessionTable.level(id); least != "" {
				if level.ShouldSendTo(least) {
					f.sessions.notify(id)
					_ = f.srv.SendNotificationToSpecificClient(id, n.Method, map[string]any{
						"level": n.Params.Level, "logger": n.Params.Logger, "data": n.Params.Data})
				}
				continue
			}
		}
		// A session that set no level, or a higher one, is skipped by
		// mcp-go; one gone meanwhile is no error worth a line.
		f.sessions.notify(id)
		_ = f.srv.SendLogMessageToSpecificClient(id, n)
	}
}

// CompleteResourceArgument completes the id of an agents resource.
func (f *Face) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	c := &mcp.Completion{Values: []string{}}
	if uri != agentsTemplate || arg.Name != "id" {
		return c, nil
	}
	s := scopeOf(ctx)
	for _, a := range f.b.Agents("") {
		if s.allows(a.ID) && strings.HasPrefix(a.ID, arg.Value) {
			c.Values = append(c.Values, a.ID)
		}
	}
	slices.Sort(c.Values)
	c.Total = len(c.Values)
	if len(c.Values) > 100 {
		c.Values, c.HasMore = c.Values[:100], true
	}
	return c, nil
}
