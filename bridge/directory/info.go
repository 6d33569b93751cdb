package directory

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Info describes an agent, as GET /v1/agents lists it.
type Info struct {
	ID        string `json:"id"`
	Dialect   string `json:"dialect"`
	Transport string `json:"transport"`
	Status    Status `json:"status"`
	// Capabilities are its tools' operation names, as mapping files spell
	// them (fuse's as capability/action).
	Capabilities []string `json:"capabilities"`
	// Tools describe them.
	Tools  []Tool   `json:"tools"`
	Topics []string `json:"topics"`
	// HTTPOnly marks an agent known only from the HTTP requests it sent;
	// it is forgotten after a while without one.
	HTTPOnly bool `json:"http_only,omitempty"`
	// LastSeen is when an HTTP-only agent last sent a request.
	LastSeen *time.Time `json:"last_seen,omitempty"`
	// Connected is set while an endpoint delivers to it.
	Connected bool `json:"connected"`
	// Instance is the instance of a cluster that holds its connection
	// (absent when the bridge is not in a cluster).
	Instance string `json:"instance,omitempty"`
	// Since is when its connection began.
	Since *time.Time `json:"since,omitempty"`
}

// Tool is one tool of one agent.
type Tool struct {
	// Agent is the canonical id of the agent that serves it, Dialect the
	// agent's dialect, Status the agent's status.
	Agent   string `json:"agent"`
	Dialect string `json:"dialect"`
	Status  Status `json:"status"`
	// Name is the operation's name as mapping files spell it (fuse's
	// capability/action).
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema and OutputSchema are JSON Schemas, when declared.
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Version is the version of the tool's definition, when declared.
	Version string `json:"version,omitempty"`
	// Operation is how a request to the agent names the tool.
	Operation canonical.Operation `json:"-"`
}

// OperationName spells a tool as operation names are written in mapping
// files: two levels as capability/action.
func OperationName(t canonical.Tool) string {
	if t.Capability != "" && t.Name != "" {
		return t.Capability + "/" + t.Name
	}
	if t.Name == "" {
		return t.Capability
	}
	return t.Name
}

// ToolsFromNames turns operation names, as mapping files and the config
// spell them, into tools.
func ToolsFromNames(names []string) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(names))
	for _, n := range names {
		if c, a, ok := strings.Cut(n, "/"); ok {
			out = append(out, canonical.Tool{Capability: c, Name: a})
		} else {
			out = append(out, canonical.Tool{Name: n})
		}
	}
	return out
}

// infoLocked describes a; the directory's lock is held.
func (a *Agent[E]) infoLocked(self string, n *interner) Info {
	var none E
	in := Info{ID: a.id, Dialect: a.dialect, Transport: a.transport, Status: a.status,
		Capabilities: []string{}, Tools: []Tool{}, Topics: []string{}, HTTPOnly: a.httpOnly, Connected: a.endpoint != none,
		Instance: a.instance}
	if in.Instance == "" {
		in.Instance = self
	}
	if in.Connected && !a.since.IsZero() {
		since := a.since
		in.Since = &since
	}
	in.Status = a.shownStatus()
	if a.httpOnly {
		seen := a.lastSeen
		in.LastSeen = &seen
	}
	for _, t := range a.tools {
		in.Capabilities = append(in.Capabilities, OperationName(t))
	}
	in.Tools = a.appendTools(in.Tools, in.Status, n)
	for t := range a.topics {
		in.Topics = append(in.Topics, t)
	}
	sort.Strings(in.Topics)
	return in
}

// shownStatus is a's status as it is described: BUSY for a READY agent
// with requests in flight.
func (a *Agent[E]) shownStatus() Status {
	if a.status == StatusReady && a.inflight.Load() > 0 {
		return StatusBusy
	}
	return a.status
}

// appendTools appends a's tools, its status shown as status, to out; the
// directory's lock is held.
func (a *Agent[E]) appendTools(out []Tool, status Status, n *interner) []Tool {
	for _, t := range a.tools {
		out = append(out, Tool{
			Agent: a.id, Dialect: a.dialect, Status: status, Name: OperationName(t),
			Title: t.Title, Description: t.Description,
			InputSchema: n.raw(t.InputSchema), OutputSchema: n.raw(t.OutputSchema), Version: t.Version,
			Operation: canonical.Operation{Capability: t.Capability, Name: t.Name},
		})
	}
	return out
}

// Agents describes the registered agents sorted by id; a non-empty
// capability keeps those that serve it.
func (d *Directory[E]) Agents(capability string) []Info {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]Info, 0, len(d.agents))
	for _, a := range d.agents {
		if capability != "" && !a.Serves(capability) {
			continue
		}
		out = append(out, a.infoLocked(d.self, d.in))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// AgentsPage lists at most limit agents whose ids sort after after
// ("" from the first), sorted by id, and whether more follow; a non-empty
// capability keeps those that serve it. Only the page's agents are
// described, so that a page of a large directory costs its size.
func (d *Directory[E]) AgentsPage(capability, after string, limit int) (page []Info, more bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var ids []*Agent[E]
	for _, a := range d.agents {
		if a.id > after && (capability == "" || a.Serves(capability)) {
			ids = append(ids, a)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].id < ids[j].id })
	if len(ids) > limit {
		ids, more = ids[:limit], true
	}
	page = make([]Info, len(ids))
	for i, a := range ids {
		page[i] = a.infoLocked(d.self, d.in)
	}
	return page, more
}

// Agent describes the agent id.
func (d *Directory[E]) Agent(id string) (Info, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	a := d.agents[id]
	if a == nil {
		return Info{}, false
	}
	return a.infoLocked(d.self, d.in), true
}

// Tools returns the tools of every agent that can be reached now (it is
// connected and not UNAVAILABLE, STOPPING or STOPPED), or with all those of
// every agent, sorted by agent and then by name.
func (d *Directory[E]) Tools(all bool) []Tool {
	var none E
	d.mu.RLock()
	defer d.mu.RUnlock()
	listed := func(a *Agent[E]) bool { return all || a.endpoint != none && reachable(a.status) }
	n := 0
	for _, a := range d.agents {
		if listed(a) {
			n += len(a.tools)
		}
	}
	var out []Tool // nil for none, as before
	if n > 0 {
		out = make([]Tool, 0, n)
	}
	for _, a := range d.agents {
		if !listed(a) {
			continue
		}
		// Only the tools: a whole description of each agent would
		// make garbage of its topics and names for every listing of
		// thousands of agents' tools.
		out = a.appendTools(out, a.shownStatus(), d.in)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// reachable reports whether an agent of status takes requests.
func reachable(s Status) bool {
	return s == StatusReady || s == StatusBusy || s == StatusInitializing
}
