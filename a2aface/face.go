// Package a2aface is the bridge's A2A face: every agent the bridge can
// reach, whatever its dialect, served as an A2A agent (A2A v1.0) at
// /a2a/<agent> (the JSON-RPC binding; the HTTP+JSON binding under
// /a2a/<agent>/rest), with its agent card at
// /a2a/<agent>/.well-known/agent-card.json. A SendMessage becomes a
// canonical request to the agent through the bridge's call API, with the
// routing, correlation, retries, breaker and time limit of any request;
// the agent's answer becomes the task's final state and artifact.
//
// It is built on github.com/a2aproject/a2a-go/v2's server (a2asrv): one
// request handler per agent, whose executor makes the call, over a task
// store of the face's own that forgets finished tasks after a while.
package a2aface

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	"github.com/prometheus/client_golang/prometheus"
)

// Path is where the face serves on the bridge's listener: /a2a lists the
// cards, /a2a/<agent> is an agent.
const Path = "/a2a"

// CardPath is where an agent's card is, under its /a2a/<agent>.
const CardPath = "/.well-known/agent-card.json"

// RESTPath is where an agent's HTTP+JSON binding is, under its
// /a2a/<agent>.
const RESTPath = "/rest"

// DefaultSender is the id A2A clients' requests carry by default.
const DefaultSender = "a2a-client"

// DefaultTaskTTL is how long a task is kept by default.
const DefaultTaskTTL = time.Hour

// Options configure the A2A face. Zero values take the defaults.
type Options struct {
	// Allow and Deny choose the agents and skills served (the patterns of
	// mcp.expose).
	Allow, Deny []string
	// Auth is what A2A clients must present.
	Auth Auth
	// Sender is the id A2A clients' requests carry (default DefaultSender).
	Sender string
	// TaskTTL is how long a task is kept after its last change (default
	// DefaultTaskTTL).
	TaskTTL time.Duration
	// MaxTasks bounds the tasks kept over all agents; 0: no bound.
	MaxTasks int
	// Metrics registers the task table's bridge_table_* series (table
	// a2a_tasks); nil registers none.
	Metrics prometheus.Registerer
	// CallTimeout bounds a call (default: the bridge's request timeout).
	CallTimeout time.Duration
	// Version is the version the cards tell.
	Version string
	// Logger receives the face's log lines (default: slog.Default()).
	Logger *slog.Logger
}

// Face is the A2A server of one bridge.
type Face struct {
	b      *bridge.Bridge
	opts   Options
	log    *slog.Logger
	expose atomic.Pointer[mcpface.Exposure]
	auth   atomic.Pointer[Auth]
	tasks  *tasks

	mu     sync.Mutex
	agents map[string]*door // an agent's A2A server, made when first asked for
}

// door is one agent's A2A server.
type door struct {
	exec    *executor
	jsonrpc http.Handler // the JSON-RPC binding
	rest    http.Handler // the HTTP+JSON binding, its paths under RESTPath
}

// New returns the A2A face of b.
func New(b *bridge.Bridge, opts Options) (*Face, error) {
	if opts.Sender == "" {
		opts.Sender = DefaultSender
	}
	if opts.TaskTTL <= 0 {
		opts.TaskTTL = DefaultTaskTTL
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = b.RequestTimeout()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	f := &Face{b: b, opts: opts, log: opts.Logger, agents: map[string]*door{}}
	if err := f.SetExpose(opts.Allow, opts.Deny); err != nil {
		return nil, err
	}
	f.SetAuth(opts.Auth)
	table, err := metrics.NewTable(opts.Metrics, metrics.TableA2ATasks, opts.MaxTasks, func() float64 { return float64(f.tasks.Len()) })
	if err != nil {
		return nil, fmt.Errorf("a2a: %w", err)
	}
	f.tasks = newTasks(opts.TaskTTL, opts.MaxTasks, table)
	return f, nil
}

// SetExpose replaces the patterns of the agents and skills served.
func (f *Face) SetExpose(allow, deny []string) error {
	e, err := mcpface.CompileExposure("a2a.expose", allow, deny)
	if err != nil {
		return err
	}
	f.expose.Store(&e)
	return nil
}

// SetAuth replaces what A2A clients must present; requests in flight keep
// what they were let in with.
func (f *Face) SetAuth(a Auth) { f.auth.Store(&a) }

// Handler serves the face; mount it at Path and under Path+"/".
func (f *Face) Handler() http.Handler {
	return f.authenticate(http.HandlerFunc(f.serve))
}

// serve routes a request: the list of cards, an agent's card, or its
// endpoints.
func (f *Face) serve(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, Path), "/")
	if rest == "" {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f.serveList(w, r)
		return
	}
	agent, sub, _ := strings.Cut(rest, "/")
	info, ok := f.served(agent)
	if !ok || !scopeOf(r.Context()).allows(agent) {
		http.Error(w, fmt.Sprintf("no agent %q is served here", agent), http.StatusNotFound)
		return
	}
	switch sub := "/" + sub; {
	case sub == RESTPath || strings.HasPrefix(sub, RESTPath+"/"):
		f.door(agent).rest.ServeHTTP(w, r)
	case sub == CardPath:
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, f.card(r, info))
	case sub == "/":
		f.door(agent).jsonrpc.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// door returns the A2A server of agent, making it when first asked for.
func (f *Face) door(agent string) *door {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.agents[agent]; d != nil {
		return d
	}
	exec := &executor{f: f, agent: agent, calls: map[string]*call{}}
	h := a2asrv.NewHandler(exec,
		a2asrv.WithTaskStore(f.tasks.store(agent)),
		a2asrv.WithLogger(f.log),
		a2asrv.WithCallInterceptors(markEndOnly{}),
	)
	d := &door{exec: exec, jsonrpc: a2asrv.NewJSONRPCHandler(h),
		rest: http.StripPrefix(Path+"/"+agent+RESTPath, a2asrv.NewRESTHandler(h))}
	f.agents[agent] = d
	return d
}

// Close cancels the calls in flight and stops forgetting tasks.
func (f *Face) Close() {
	f.mu.Lock()
	doors := make([]*door, 0, len(f.agents))
	for _, d := range f.agents {
		doors = append(doors, d)
	}
	f.mu.Unlock()
	for _, d := range doors {
		d.exec.cancelAll()
	}
	f.tasks.close()
}
