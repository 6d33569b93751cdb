package a2aface

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// modes are the cards' default input and output modes.
var modes = []string{"application/json", "text/plain"}

// served returns the agent id as the face serves it: known to the bridge
// and shown by the expose patterns (with its tools that are).
func (f *Face) served(id string) (bridge.AgentInfo, bool) {
	info, ok := f.b.Agent(id)
	if !ok || id == "" {
		return info, false
	}
	e := f.expose.Load()
	if len(info.Tools) == 0 {
		return info, e.ShowsAgent(id)
	}
	var shown []bridge.Tool
	for _, t := range info.Tools {
		t.Agent, t.Dialect = info.ID, info.Dialect
		if e.Shows(t) {
			shown = append(shown, t)
		}
	}
	info.Tools = shown
	return info, len(shown) > 0
}

// origin is <scheme>://<Host> of the URL a request reached.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// agentURL is the absolute URL of agent's A2A endpoint for a request r.
func agentURL(r *http.Request, agent string) string {
	return origin(r) + Path + "/" + url.PathEscape(agent)
}

// card is the agent card of info, its URLs built from the request r.
func (f *Face) card(r *http.Request, info bridge.AgentInfo) *a2a.AgentCard {
	desc := fmt.Sprintf("The %s agent %s, through mcp-bridge.", info.Dialect, info.ID)
	c := &a2a.AgentCard{
		Name:        info.ID,
		Description: desc,
		Version:     f.opts.Version,
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(agentURL(r, info.ID), a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(agentURL(r, info.ID)+RESTPath, a2a.TransportProtocolHTTPJSON),
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  modes,
		DefaultOutputModes: modes,
		Skills:             skills(info),
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if f.auth.Load().asks() {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}
		c.SecurityRequirements = a2a.SecurityRequirementsOptions{{"bearer": {}}}
	}
	return c
}

// skills are the skills of info: one per tool, its id the tool's
// operation name.
func skills(info bridge.AgentInfo) []a2a.AgentSkill {
	out := make([]a2a.AgentSkill, 0, len(info.Tools))
	for _, t := range info.Tools {
		name := t.Title
		if name == "" {
			name = t.Name
		}
		desc := t.Description
		if desc == "" {
			desc = fmt.Sprintf("%s, served by the %s agent %s through mcp-bridge.", t.Name, info.Dialect, info.ID)
		}
		out = append(out, a2a.AgentSkill{ID: t.Name, Name: name, Description: desc, Tags: []string{info.Dialect}})
	}
	return out
}

// Listing is what GET /a2a answers: the URL of each served agent's card.
type Listing struct {
	Agents []ListedAgent `json:"agents"`
}

// ListedAgent is one agent of a Listing.
type ListedAgent struct {
	Name    string `json:"name"`
	Dialect string `json:"dialect"`
	Card    string `json:"card"`
	URL     string `json:"url"`
}

// serveList answers GET /a2a: the cards of the agents the request's
// credential may reach.
func (f *Face) serveList(w http.ResponseWriter, r *http.Request) {
	s := scopeOf(r.Context())
	l := Listing{Agents: []ListedAgent{}}
	for _, a := range f.b.Agents("") {
		if _, ok := f.served(a.ID); !ok || !s.allows(a.ID) {
			continue
		}
		u := agentURL(r, a.ID)
		l.Agents = append(l.Agents, ListedAgent{Name: a.ID, Dialect: a.Dialect, Card: u + CardPath, URL: u})
	}
	sort.Slice(l.Agents, func(i, j int) bool { return l.Agents[i].Name < l.Agents[j].Name })
	writeJSON(w, l)
}
