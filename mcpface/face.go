// Package mcpface is the bridge's MCP face: every tool of every agent the
// bridge can reach, whatever its dialect, offered to Model Context Protocol
// clients as one MCP tool, over streamable HTTP (on the bridge's listener)
// and over stdio. A tools/call becomes a canonical request through the
// bridge's call API, with the routing, correlation, retries, breaker and
// time limit of any request; the agent's answer becomes the tool's result.
//
// It is built on github.com/mark3labs/mcp-go. The tool list follows the
// bridge's directory: tools/list always shows it as it is, and every
// session hears notifications/tools/list_changed when it changes, at most
// once per coalesce interval.
package mcpface

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	bridgemetrics "github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure the MCP face. Zero values take the defaults.
type Options struct {
	// ToolNames is NamesPrefixed (the default) or NamesBare.
	ToolNames string
	// Allow and Deny choose the agents and tools shown (see expose.go).
	Allow, Deny []string
	// Tokens, when any, are required of every HTTP request (bearer).
	Tokens []Token
	// Verify, Required, OAuth, Policies and Limits: see Auth; SetAuth
	// replaces them with Tokens.
	Verify   func(token string) (agent string, err error)
	Required bool
	OAuth    *OAuth
	Policies []Policy
	Limits   Limits
	// Stateless turns MCP sessions off on HTTP.
	Stateless bool
	// Sessions bounds the MCP sessions kept (default 10,000): past it the
	// one used least lately ends. SessionIdle ends a session no request
	// used for that long (default an hour).
	Sessions    int
	SessionIdle time.Duration
	// CallTimeout bounds a tools/call (default: the bridge's request
	// timeout). It is also sent to the agent as the request's ttl.
	CallTimeout time.Duration
	// Sender is the id the MCP clients' requests carry (default
	// DefaultSender).
	Sender string
	// Version is the server version told to clients.
	Version string
	// Logger receives the face's log lines (default: slog.Default()).
	Logger *slog.Logger
	// Metrics registers the face's metrics; nil registers none.
	Metrics prometheus.Registerer
}

// DefaultSender is the id MCP clients' requests carry by default.
const DefaultSender = "mcp-client"

// Coalesce is the shortest time between two list_changed notifications.
const Coalesce = 250 * time.Millisecond

// Path is where the face serves streamable HTTP on the bridge's listener.
const Path = "/mcp"

// Face is the MCP server of one bridge.
type Face struct {
	b       *bridge.Bridge
	opts    Options
	expose  exposure
	log     *slog.Logger
	metrics *metrics
	srv     *server.MCPServer
	http    http.Handler
	auth    atomic.Pointer[authState]
	stop    func() // stops watching the directory

	mu sync.Mutex
	// tools is the table of tools as it is now; dirty says the directory
	// changed since it was made.
	tools *table
	dirty bool
	// registered is the table the sessions were last told of (a sync
	// tells them when tools came, went or changed since), nil before the
	// first sync: most often tools itself, so that it costs nothing more;
	// seed seeds the digests that tell whether a tool changed
	// (table.holds). synced is when it was last brought up to date, and
	// timer brings it up to date at the end of a coalesce interval. syncMu
	// keeps syncs one at a time, so that mcp-go gets their changes in the
	// order they were found.
	registered *table
	seed       maphash.Seed
	syncMu     sync.Mutex
	told       uint64 // the sum of the names listed as last told (table.listedSum)
	synced     time.Time
	syncCost   time.Duration // how long the last sync took
	timer      *time.Timer
	closed     bool
	suspended  suspended     // calls waiting for a client's input
	sessions   sessions      // the MCP sessions open, for log messages and fastCalls
	inflight   inflight      // the calls fastCalls is answering
	stopShare  func()        // stops sharing the sessions with the cluster
	answered   atomic.Uint64 // how many tools/call fastCalls answered

	sessionTable *sessionTable                // the sessions made and seen; nil when stateless
	mcpHTTP      *server.StreamableHTTPServer // mcp-go's streamable HTTP server
	relay        *relay                       // the answers to requests to the client, across a cluster; nil when stateless

	// holding is the tools mcp-go holds under their own names, those whose
	// input schema binds parameters to headers (call.go), by name: a
	// name is put here once mcp-go has it, and taken out before mcp-go
	// lets it go, so that a call of a tool not here is routed. Under mu.
	holding map[string]*entry
}

// serverName is the name the face gives itself to clients.
const serverName = "mcp-bridge"

// New returns the MCP face of b.
func New(b *bridge.Bridge, opts Options) (*Face, error) {
	if opts.ToolNames == "" {
		opts.ToolNames = NamesPrefixed
	}
	if opts.ToolNames != NamesPrefixed && opts.ToolNames != NamesBare {
		return nil, fmt.Errorf("mcp: tool_names: %q is neither %s nor %s", opts.ToolNames, NamesPrefixed, NamesBare)
	}
	if opts.Sender == "" {
		opts.Sender = DefaultSender
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = b.RequestTimeout()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	exp, err := compileExposure(opts.Allow, opts.Deny)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	f := &Face{b: b, opts: opts, expose: exp, log: opts.Logger, metrics: m, dirty: true, seed: maphash.MakeSeed()}
	f.suspended.calls = map[string]*suspendedCall{}
	f.holding = map[string]*entry{}
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(ctx context.Context, c server.ClientSession) { m.sessions.Inc(); f.sessions.add(ctx, c) })
	hooks.AddOnUnregisterSession(func(ctx context.Context, c server.ClientSession) { m.sessions.Dec(); f.sessions.remove(ctx, c) })
	hooks.AddBeforeCallTool(f.beforeCall)
	hooks.AddAfterListTools(f.listed)
	hooks.AddOnError(f.refused)
	httpOpts := []server.StreamableHTTPOption{server.WithEndpointPath(Path), server.WithStreamableHTTPLogger(f.log)}
	if opts.Stateless {
		httpOpts = append(httpOpts, server.WithStateLess(true))
	} else {
		f.sessionTable = newSessionTable(f.closeLocal, opts.Sessions, opts.SessionIdle)
		table, err := bridgemetrics.NewTable(opts.Metrics, bridgemetrics.TableMCPSessions, f.sessionTable.max, f.sessionTable.size)
		if err != nil {
			return nil, err
		}
		f.sessionTable.dropped = table.Dropped
		hooks.AddAfterInitialize(f.afterInitialize)
		hooks.AddAfterSetLevel(f.levelSet)
		httpOpts = append(httpOpts, server.WithSessionIdManager(f.sessionTable), server.WithHTTPContextFunc(f.fromRecord))
	}
	f.srv = server.NewMCPServer(serverName, opts.Version,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, false),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(f),
		server.WithToolFilter(f.scoped),
		server.WithHooks(hooks),
		server.WithInstructions("The tools of the agents connected to this mcp-bridge, whatever dialect they speak. "+
			"A tool is named <agent>__<tool>; its description says which agent of which dialect serves it."),
	)
	f.srv.AddTools(f.dispatcher())
	f.addResources(f.srv)
	if err := f.SetAuth(Auth{Tokens: opts.Tokens, Verify: opts.Verify, Required: opts.Required,
		OAuth: opts.OAuth, Policies: opts.Policies, Limits: opts.Limits}); err != nil {
		return nil, err
	}
	f.mcpHTTP = server.NewStreamableHTTPServer(f.srv, httpOpts...)
	if f.sessionTable != nil {
		f.relay = &relay{table: f.sessionTable, mcpHTTP: f.mcpHTTP, path: Path, log: f.log, relayed: m.relayed}
		f.http = f.sessionful(true)
	} else {
		f.http = f.authenticate(compat(f.mcpHTTP))
	}
	f.stop = b.Watch(func(c bridge.Change) {
		f.changed()
		if c.Kind == bridge.StatusChanged {
			f.logStatus(c)
		}
	})
	f.sync()
	return f, nil
}

// sessionful is the face's HTTP handler when it keeps sessions: with
// fastCalls in front of mcp-go when fast, without it to compare with.
func (f *Face) sessionful(fast bool) http.Handler {
	next := http.Handler(f.mcpHTTP)
	if fast {
		next = f.fastCalls(next)
	}
	return f.authenticate(compat(f.sessionStreams(f.relay.crossing(next))))
}

// Handler serves streamable HTTP; mount it at Path.
func (f *Face) Handler() http.Handler { return f.http }

// ServeStdio speaks MCP on in and out (newline-delimited JSON-RPC) until ctx
// ends or in is closed.
func (f *Face) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewStdioServer(f.srv)
	s.SetErrorLogger(slog.NewLogLogger(f.log.Handler(), slog.LevelWarn))
	return s.Listen(ctx, in, out)
}

// Close stops following the directory and sharing the sessions.
func (f *Face) Close() {
	f.stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopShare != nil {
		f.stopShare()
		f.stopShare = nil
		if f.relay != nil {
			f.relay.name.Store(nil)
		}
	}
	f.closed = true
	if f.timer != nil {
		f.timer.Stop()
	}
}

// changed notes that the directory changed: the table is made again when
// next asked for, and the sessions are told (list_changed, with mcp-go's
// registry brought up to date) now, or at the end of the coalesce interval
// if they were told less than that ago (interval).
func (f *Face) changed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirty = true
	if f.closed || f.timer != nil {
		return // a sync is on its way
	}
	wait := f.interval() - time.Since(f.synced)
	if wait <= 0 {
		// Not here: a sync notifies the sessions, and the directory's
		// watchers must not block.
		wait = 0
	}
	f.timer = time.AfterFunc(wait, func() {
		f.mu.Lock()
		f.timer = nil
		f.mu.Unlock()
		f.sync()
	})
}

// syncShare bounds the time the face spends on syncs while agents come
// and go: a sync takes time (and garbage) in
// proportion to all the tools, so with many agents arriving at once (10,000
// introducing themselves) syncing every Coalesce would be most of the
// bridge's work, and its garbage most of its memory.
const syncShare = 20

// interval returns the shortest time between two syncs: Coalesce, or
// syncShare times what the last one took; f.mu is held.
func (f *Face) interval() time.Duration {
	return max(Coalesce, syncShare*f.syncCost)
}

// sync tells every session the list changed if it did since the last sync
// (tools came, went or changed, or an agent went UNAVAILABLE or came
// back), and brings mcp-go's registry up to date with the tools it holds
// under their own names (call.go).
func (f *Face) sync() {
	began := time.Now()
	defer func() {
		f.mu.Lock()
		f.syncCost = time.Since(began)
		f.mu.Unlock()
	}()
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	t := f.table()
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	first := f.synced.IsZero()
	f.synced = time.Now()
	var gone []string
	var changed []*entry
	if reg := f.registered; reg != t {
		if reg != nil {
			for _, e := range reg.entries {
				if _, ok := t.byName[e.name]; !ok {
					gone = append(gone, e.name)
				}
			}
		}
		for _, e := range t.entries {
			if !reg.holds(e, f.seed) {
				changed = append(changed, e)
			}
		}
		f.registered = t
	}
	listed := t.listedSum(f.seed)
	sameList := f.told == listed
	f.told = listed
	hold, drop := f.headerTools(changed, gone)
	f.mu.Unlock()
	if len(gone) == 0 && len(changed) == 0 {
		if !sameList || first {
			f.broadcast(func() { f.srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil) })
			f.metrics.listChanged.Inc()
		}
		return
	}
	f.broadcast(func() { f.changeRegistry(t, hold, drop) })
	f.metrics.listChanged.Inc()
}

// changeRegistry makes mcp-go hold the tools of hold and let go of those
// named in drop, after a sync of t, and tells the sessions the list
// changed: mcp-go does when its registry changes (each of AddTools,
// DeleteTools and SetTools tells them), else the face.
func (f *Face) changeRegistry(t *table, hold []server.ServerTool, drop []string) {
	switch {
	case len(drop) > 0 && len(hold) > 0:
		// The tools held that stay as they are, the dispatcher and hold.
		f.unhold(drop)
		all := append([]server.ServerTool{f.dispatcher()}, hold...)
		f.mu.Lock()
		for _, e := range f.holding {
			if !slices.ContainsFunc(hold, func(h server.ServerTool) bool { return h.Tool.Name == e.name }) {
				all = append(all, server.ServerTool{Tool: registryTool(e), Handler: f.call})
			}
		}
		f.mu.Unlock()
		f.srv.SetTools(all...)
		f.hold(hold, t)
	case len(drop) > 0:
		f.unhold(drop)
		f.srv.DeleteTools(drop...)
	case len(hold) > 0:
		f.srv.AddTools(hold...)
		f.hold(hold, t)
	default:
		f.srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
	}
}

// headerTools returns the tools mcp-go is to hold under their own names
// after a sync that found changed (new or changed) and gone, and the names
// it is to let go: a tool whose input schema binds parameters to headers
// is held, as mcp-go checks those bindings (call.go); a held tool that
// went, or no longer binds any, is let go. A tool whose bindings mcp-go
// would refuse (SEP-2243's rules) is routed, unchecked, and logged. f.mu
// is held.
func (f *Face) headerTools(changed []*entry, gone []string) (hold []server.ServerTool, drop []string) {
	for _, name := range gone {
		if _, ok := f.holding[name]; ok {
			drop = append(drop, name)
		}
	}
	for _, e := range changed {
		if e.tool.headers {
			tool := registryTool(e)
			err := mcp.ValidateParamHeaderAnnotations(&tool)
			if err == nil && len(mcp.ExtractParamHeaderBindings(&tool)) > 0 {
				hold = append(hold, server.ServerTool{Tool: tool, Handler: f.call})
				continue
			}
			if err != nil {
				f.log.Warn("mcp: a tool's x-mcp-header annotations are not valid; its calls' headers are not checked",
					"tool", e.name, "agent", e.tool.Agent, "error", err)
			}
		}
		if _, ok := f.holding[e.name]; ok {
			drop = append(drop, e.name)
		}
	}
	return hold, drop
}

// hold notes that mcp-go holds the tools of hold, t's entries, now.
func (f *Face) hold(hold []server.ServerTool, t *table) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range hold {
		f.holding[h.Tool.Name] = t.byName[h.Tool.Name]
	}
}

// unhold notes that mcp-go is about to let go of the tools named names:
// their calls are routed from now on.
func (f *Face) unhold(names []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range names {
		delete(f.holding, n)
	}
}

// digest sums what mcpTool makes of tool besides its name, so that a sync
// tells the sessions of a tool, or re-registers one mcp-go holds, only
// when it changed.
func digest(seed maphash.Seed, tool bridge.Tool) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	size := func(n int) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		_, _ = h.Write(b[:])
	}
	for _, s := range []string{tool.Agent, tool.Dialect, tool.Name, tool.Title, tool.Description} {
		size(len(s))
		_, _ = h.WriteString(s)
	}
	for _, b := range [][]byte{tool.InputSchema, tool.OutputSchema} {
		size(len(b))
		_, _ = h.Write(b)
	}
	return h.Sum64()
}

// table returns the table of tools as the directory is now.
func (f *Face) table() *table {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dirty || f.tools == nil {
		f.tools = f.makeTable(f.tools)
		f.dirty = false
	}
	return f.tools
}

// listed sets what tools/list answers: the table's reachable tools as the
// directory is now, as many as the request's token may see, whatever
// mcp-go's registry holds (the dispatcher, and a few tools at most).
func (f *Face) listed(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	if res == nil {
		return
	}
	res.Tools = f.table().visible(scopeOf(ctx))
	if res.Tools == nil {
		res.Tools = []mcp.Tool{} // the schema wants an array, not null
	}
	res.NextCursor = ""
}

// scoped is mcp-go's tool filter: it keeps the tools the request's token
// may see (its agents, its policies). mcp-go runs it on a tools/call's tool
// too, and refuses the call (as an unknown tool) when the filter drops it:
// a tool mcp-go holds under its own name (call.go). It keeps the
// dispatcher, which beforeCall routes only the calls the token may make
// to.
func (f *Face) scoped(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	s := scopeOf(ctx)
	if s.all() {
		return tools
	}
	t := f.table()
	out := make([]mcp.Tool, 0, len(tools))
	for _, tool := range tools {
		if e, ok := t.byName[tool.Name]; tool.Name == dispatchName || ok && s.shows(e) {
			out = append(out, tool)
		}
	}
	return out
}

// ShareSessions makes the face's MCP sessions known to every instance of
// its cluster through share, and theirs to it. A face with sessions off
// (Options.Stateless) has nothing to share.
func (f *Face) ShareSessions(share SessionShare) error {
	if f.sessionTable == nil {
		return nil
	}
	stop, err := share.Serve(f.sessionTable.look, f.sessionTable.ended, f.sessionTable.leveled, f.relay.answerRelayed)
	if err != nil {
		return fmt.Errorf("mcp: share the sessions: %w", err)
	}
	f.sessionTable.mu.Lock()
	f.sessionTable.share = share
	f.sessionTable.mu.Unlock()
	name := share.Name()
	f.relay.name.Store(&name)
	f.mu.Lock()
	f.stopShare = stop
	f.mu.Unlock()
	return nil
}

// afterInitialize records what the client said of itself in its session's
// record.
func (f *Face) afterInitialize(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" || req == nil || res == nil {
		return
	}
	f.sessionTable.initialized(s.SessionID(), sessionRecord{Client: req.Params.ClientInfo,
		Capabilities: req.Params.Capabilities, Version: res.ProtocolVersion})
}

// levelSet keeps the log level a session's client set in its record, and
// tells the other instances of the cluster, so that the log messages sent
// to it from any instance heed it.
func (f *Face) levelSet(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" || req == nil {
		return
	}
	id, level := s.SessionID(), string(req.Params.Level)
	f.sessionTable.leveled(id, level)
	if share := f.sessionTable.shared(); share != nil {
		if err := share.Level(id, level); err != nil {
			f.log.Warn("mcp: tell the cluster a session's log level", "session", id, "error", err)
		}
	}
}

// fromRecord gives the session of a request that this instance did not
// see initialize what its record says of the client, so that the audit
// line names it and elicitation knows whether the client can be asked.
func (f *Face) fromRecord(ctx context.Context, _ *http.Request) context.Context {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || s.SessionID() == "" || s.GetClientInfo().Name != "" {
		return ctx
	}
	if rec, ok := f.sessionTable.record(s.SessionID()); ok {
		s.SetClientInfo(rec.Client)
		s.SetClientCapabilities(rec.Capabilities)
	}
	return ctx
}

// sessionStreams refuses with 404 a GET stream of a session that ended or
// is unknown, and ends a GET stream when its session ends, wherever the
// DELETE came.
func (f *Face) sessionStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if r.Method != http.MethodGet || id == "" || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		if terminated, err := f.sessionTable.Validate(id); err != nil || terminated {
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		done := f.sessionTable.stream(id, cancel)
		defer done()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// closeLocal ends what mcp-go holds of session id on this instance, as a
// DELETE here would: the session ended elsewhere, or went idle.
func (f *Face) closeLocal(id string) {
	r, err := http.NewRequest(http.MethodDelete, Path, nil)
	if err != nil {
		return
	}
	r.Header.Set(server.HeaderKeySessionID, id)
	f.mcpHTTP.ServeHTTP(discard{}, r)
}

// discard is a response nobody reads.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
