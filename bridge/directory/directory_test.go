package directory

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// conn is a test endpoint.
type conn struct{ name string }

func (c *conn) Transport() string { return "test" }

// recorder collects the changes a directory tells.
type recorder struct {
	mu  sync.Mutex
	got []Change
}

func (r *recorder) watch(c Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, c)
}

// take returns the changes told so far, as "kind id status", and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.got {
		out = append(out, c.Kind.String()+" "+c.Agent.ID+" "+string(c.Agent.Status))
	}
	r.got = nil
	return out
}

func expect(t *testing.T, r *recorder, want ...string) {
	t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}

func TestLifecycle(t *testing.T) {
	d := New[*conn]()
	r := &recorder{}
	stop := d.Watch(r.watch)
	defer stop()
	d.Declare(Spec{ID: "jules", Dialect: "swarm", Token: "s3cret",
		Tools: []canonical.Tool{{Name: "debug_code", Description: "Debugs code.", InputSchema: `{"type":"object"}`}}})
	expect(t, r, "declared jules STOPPED")
	d.Starting("jules")
	expect(t, r, "status jules INITIALIZING")
	d.Unreachable("jules", "its card does not resolve")
	expect(t, r, "status jules UNAVAILABLE")
	d.Starting("jules")
	expect(t, r, "status jules INITIALIZING")

	c1 := &conn{"c1"}
	if _, _, err := d.Bind("jules", c1, BindOptions{Dialect: "swarm", Token: "wrong"}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("a wrong token: %v", err)
	}
	if _, _, err := d.Bind("jules", c1, BindOptions{Dialect: "fuse", Token: "s3cret"}); err == nil || !strings.Contains(err.Error(), "speaks swarm") {
		t.Fatalf("another dialect: %v", err)
	}
	a, old, err := d.Bind("jules", c1, BindOptions{Dialect: "swarm", Token: "s3cret"})
	if err != nil || old != nil {
		t.Fatalf("bind: %v, old %v", err, old)
	}
	d.SetStatus(a, StatusReady, "connected")
	expect(t, r, "status jules READY")
	if got, ep, ok := d.Lookup("jules"); !ok || got != a || ep != c1 {
		t.Fatalf("lookup: %v %v %v", got, ep, ok)
	}

	// Tools: listed while the agent can be reached, with their schemas.
	tools := d.Tools(false)
	if len(tools) != 1 || tools[0].Agent != "jules" || tools[0].Dialect != "swarm" || tools[0].Description != "Debugs code." ||
		string(tools[0].InputSchema) != `{"type":"object"}` || tools[0].Operation.Name != "debug_code" {
		t.Fatalf("tools %+v", tools)
	}
	d.Learn(a, &canonical.Capabilities{Tools: []canonical.Tool{{Capability: "code", Name: "fix"}}, Topics: []string{"findings"}})
	expect(t, r, "declared jules READY")
	if tools := d.Tools(false); len(tools) != 1 || tools[0].Name != "code/fix" {
		t.Fatalf("after declaring again: %+v", tools)
	}

	// In flight: shown as BUSY, not told.
	a.Inflight(1)
	if info, _ := d.Agent("jules"); info.Status != StatusBusy {
		t.Errorf("with a request in flight: %s, want BUSY", info.Status)
	}
	a.Inflight(-1)
	expect(t, r)

	// A newer connection replaces the older; the older can no longer
	// unbind the agent.
	c2 := &conn{"c2"}
	if _, old, _ := d.Bind("jules", c2, BindOptions{Dialect: "swarm", Token: "s3cret"}); old != c1 {
		t.Fatalf("rebind: old %v, want c1", old)
	}
	if d.Unbind(a, c1) {
		t.Error("the replaced connection unbound the agent")
	}
	if !d.Unbind(a, c2) {
		t.Error("the current connection did not unbind the agent")
	}
	d.SetStatus(a, StatusStopped, "disconnected")
	expect(t, r, "status jules STOPPED")
	if tools := d.Tools(false); len(tools) != 0 {
		t.Errorf("a stopped agent's tools are listed: %+v", tools)
	}
}

func TestHealth(t *testing.T) {
	d := New[*conn]()
	r := &recorder{}
	d.Watch(r.watch)
	c := &conn{"c"}
	a, _, _ := d.Bind("a", c, BindOptions{Dialect: "collab"})
	d.SetStatus(a, StatusReady, "connected")
	r.take()
	for range UnavailableAfter - 1 {
		d.TimedOut(a)
	}
	expect(t, r)
	d.TimedOut(a)
	expect(t, r, "status a UNAVAILABLE")
	if tools := d.Tools(false); len(tools) != 0 {
		t.Errorf("an unavailable agent's tools are listed: %v", tools)
	}
	d.HeardFrom(a)
	expect(t, r, "status a READY")
	// Heartbeats missed by a connection that no longer delivers for the
	// agent do not count against it.
	other := &conn{"other"}
	for range UnavailableAfter {
		d.Missed(a, other)
	}
	expect(t, r)
	for range UnavailableAfter {
		d.Missed(a, c)
	}
	expect(t, r, "status a UNAVAILABLE")
	d.HeardFrom(a)
	expect(t, r, "status a READY")
}

func TestResolve(t *testing.T) {
	d := New[*conn]()
	upper := strings.ToUpper
	for _, id := range []string{"planner", "Twin", "twin"} {
		d.Bind(id, &conn{id}, BindOptions{Dialect: "swarm"})
	}
	for _, tc := range []struct {
		id    string
		spell func(string) string
		want  string
	}{
		{"planner", upper, "planner"}, // an agent has it
		{"PLANNER", upper, "planner"}, // the one agent spelled so
		{"PLANNER", nil, "PLANNER"},   // the dialect spells ids as they are
		{"TWIN", upper, "TWIN"},       // two agents spelled so: ambiguous
		{"NOBODY", upper, "NOBODY"},   // none
		{"Twin", upper, "Twin"},       // exact wins
	} {
		if got := d.Resolve(tc.id, tc.spell); got != tc.want {
			t.Errorf("Resolve(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestRouting(t *testing.T) {
	d := New[*conn]()
	conns := map[string]*conn{}
	for _, spec := range []Spec{
		{ID: "b", Dialect: "fuse", Tools: ToolsFromNames([]string{"nlp/sentiment"}), Subscribe: []string{"news"}},
		{ID: "a", Dialect: "swarm", Tools: ToolsFromNames([]string{"sentiment"}), Subscribe: []string{"news"}},
		{ID: "c", Dialect: "collab", Subscribe: []string{"other"}},
		{ID: "offline", Dialect: "collab", Subscribe: []string{"news"}},
	} {
		d.Declare(spec)
		if spec.ID != "offline" {
			conns[spec.ID] = &conn{spec.ID}
			d.Bind(spec.ID, conns[spec.ID], BindOptions{Dialect: spec.Dialect})
		}
	}
	ids := func(ts []Target[*conn]) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Agent.ID())
		}
		return strings.Join(out, ",")
	}
	if got := ids(d.Connected(nil, nil)); got != "a,b,c" {
		t.Errorf("connected %s", got)
	}
	if got := ids(d.Connected(conns["a"], func(a *Agent[*conn]) bool { return a.Follows("news") })); got != "b" {
		t.Errorf("news subscribers but a: %s", got)
	}
	if got := ids(d.Connected(nil, func(a *Agent[*conn]) bool { return a.Serves("sentiment") })); got != "a,b" {
		t.Errorf("serving sentiment: %s", got)
	}
	if got := ids(d.Connected(nil, func(a *Agent[*conn]) bool { return a.Serves("nlp/sentiment") })); got != "a,b" {
		t.Errorf("serving nlp/sentiment: %s", got)
	}
	if got := ids(d.Connected(nil, func(a *Agent[*conn]) bool { return a.Serves("other/sentiment") })); got != "a" {
		t.Errorf("serving other/sentiment: %s", got)
	}
	all := d.Connected(nil, nil)
	d.SetStatus(all[0].Agent, StatusUnavailable, "test")
	if got := ids(d.Available(all)); got != "b,c" {
		t.Errorf("available %s", got)
	}
	if got := d.Agents("sentiment"); len(got) != 2 || got[0].ID != "a" || got[1].Capabilities[0] != "nlp/sentiment" {
		t.Errorf("agents serving sentiment: %+v", got)
	}
}

// TestForget: agents known only from HTTP are forgotten once idle; agents
// that ever delivered, or are declared, are not.
func TestForget(t *testing.T) {
	d := New[*conn]()
	r := &recorder{}
	d.Watch(r.watch)
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	d.Declare(Spec{ID: "declared", Dialect: "collab"})
	r.take()
	d.Bind("declared", &conn{"h1"}, BindOptions{Dialect: "collab", Ephemeral: true, Now: t0})
	d.Bind("poster", &conn{"h2"}, BindOptions{Dialect: "collab", Ephemeral: true, Now: t0})
	d.Bind("busy", &conn{"h3"}, BindOptions{Dialect: "collab", Ephemeral: true, Now: t0})
	d.Bind("recent", &conn{"h4"}, BindOptions{Dialect: "collab", Ephemeral: true, Now: t0.Add(time.Hour)})
	busy, _, _ := d.Lookup("busy")
	busy.Inflight(1)
	if info, _ := d.Agent("poster"); !info.HTTPOnly || info.LastSeen == nil || !info.LastSeen.Equal(t0) || info.Transport != "test" {
		t.Errorf("poster: %+v", info)
	}
	if info, _ := d.Agent("declared"); info.HTTPOnly {
		t.Errorf("a declared agent counts as HTTP-only: %+v", info)
	}
	if got := d.Forget(t0.Add(time.Minute)); !slices.Equal(got, []string{"poster"}) {
		t.Errorf("forgot %v, want poster", got)
	}
	expect(t, r, "removed poster STOPPED")
	// An HTTP-only agent that connects for real is no longer HTTP-only.
	d.Bind("recent", &conn{"ws"}, BindOptions{Dialect: "collab"})
	if got := d.Forget(t0.Add(2 * time.Hour)); len(got) != 0 {
		t.Errorf("forgot %v", got)
	}
}

// TestDistinctTools: the tools of the connected agents, but the asker's,
// each distinct tool once in the order of the agents' ids; a tool that
// differs in any field is another.
func TestDistinctTools(t *testing.T) {
	echo := canonical.Tool{Name: "echo", Description: "Echoes.", InputSchema: `{"type":"object"}`}
	add := canonical.Tool{Name: "add", InputSchema: `{"type":"object","required":["a"]}`}
	addV2 := add
	addV2.Version = "2"
	cases := []struct {
		name   string
		agents map[string][]canonical.Tool // connected agents by id; "me" asks
		want   []canonical.Tool
	}{
		{"none", map[string][]canonical.Tool{"me": {echo}}, nil},
		{"the same tools of many agents", map[string][]canonical.Tool{"b": {echo, add}, "a": {echo, add}, "c": {add}, "me": {addV2}}, []canonical.Tool{echo, add}},
		{"a field differs", map[string][]canonical.Tool{"a": {add}, "b": {addV2, echo}}, []canonical.Tool{add, addV2, echo}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := New[*conn]()
			var me *conn
			for id, tools := range tc.agents {
				ep := &conn{name: id}
				if id == "me" {
					me = ep
				}
				a, _, err := d.Bind(id, ep, BindOptions{Dialect: "swarm", Now: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				d.Learn(a, &canonical.Capabilities{Tools: tools})
			}
			if got := d.DistinctTools(me); !slices.Equal(got, tc.want) {
				t.Errorf("DistinctTools = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestInternedTools: agents declaring equal tools, each decoded from a
// message of its own, share one copy of them and of their schema's bytes;
// a tool that differs is kept apart, and what an agent declared reads back
// as declared.
func TestInternedTools(t *testing.T) {
	d := New[*conn]()
	declared := func(id, desc string) *Agent[*conn] {
		// Each from its own buffer, as a decoded message's strings are.
		frame := []byte(`{"type":"object"}` + desc)
		schema := canonical.JSON(string(frame[:17]))
		a, _, err := d.Bind(id, &conn{name: id}, BindOptions{Dialect: "swarm", Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		d.Learn(a, &canonical.Capabilities{Tools: []canonical.Tool{{Name: "echo", Description: desc, InputSchema: schema}}})
		return a
	}
	a, b, c := declared("a", "Echoes."), declared("b", "Echoes."), declared("c", "Echoes twice.")
	same := func(x, y *Agent[*conn]) bool {
		return unsafe.StringData(string(x.tools[0].InputSchema)) == unsafe.StringData(string(y.tools[0].InputSchema)) &&
			unsafe.StringData(x.tools[0].Description) == unsafe.StringData(y.tools[0].Description)
	}
	if !same(a, b) {
		t.Error("a and b declared the same tool: not shared")
	}
	if same(a, c) {
		t.Error("c's tool differs from a's: shared")
	}
	ia, _ := d.Agent("a")
	ib, _ := d.Agent("b")
	if string(ia.Tools[0].InputSchema) != `{"type":"object"}` || ia.Tools[0].Description != "Echoes." {
		t.Errorf("a's tool reads back as %+v", ia.Tools[0])
	}
	if &ia.Tools[0].InputSchema[0] != &ib.Tools[0].InputSchema[0] {
		t.Error("a's and b's listed schemas are not the same bytes")
	}
}

// TestSharedToolLists: agents that declare the same tools share one list;
// a list shared so is never changed through one of them (a config's
// tools added to a declared agent's, another agent's declaration); and an
// agent that follows no topic has none, and can follow one later.
func TestSharedToolLists(t *testing.T) {
	d := New[*conn]()
	echo := []canonical.Tool{{Name: "echo", Description: "Echoes.", InputSchema: `{"type":"object"}`}, {Name: "sum"}}
	learn := func(id string, tools []canonical.Tool, topics ...string) *Agent[*conn] {
		a, _, err := d.Bind(id, &conn{name: id}, BindOptions{Dialect: "swarm", Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		d.Learn(a, &canonical.Capabilities{Tools: slices.Clone(tools), Topics: topics})
		return a
	}
	a, b := learn("a", echo), learn("b", echo)
	c := learn("c", echo[:1], "news")
	names := func(id string) []string {
		info, _ := d.Agent(id)
		return info.Capabilities
	}
	// Each case in turn: what it checks, and what happens after.
	cases := []struct {
		name       string
		holds      func() bool
		afterwards func()
	}{
		{"a and b declared the same tools: one list", func() bool { return &a.tools[0] == &b.tools[0] && len(a.tools) == 2 }, nil},
		{"c declared fewer: a list of its own", func() bool { return &a.tools[0] != &c.tools[0] }, nil},
		{"a shared list cannot grow in place", func() bool { return cap(a.tools) == len(a.tools) },
			// The config adds a tool to a's: b's stay as they were.
			func() { d.Declare(Spec{ID: "a", Dialect: "swarm", Tools: []canonical.Tool{{Name: "extra"}}}) }},
		{"a has the config's tool too", func() bool { return slices.Equal(names("a"), []string{"echo", "sum", "extra"}) }, nil},
		{"b's tools are as it declared them", func() bool { return slices.Equal(names("b"), []string{"echo", "sum"}) }, nil},
		{"a follows no topic", func() bool { return a.topics == nil && !a.Follows("alerts") },
			func() { d.Subscribe(a, "alerts", true) }},
		{"a follows the topic it subscribed to", func() bool { return a.Follows("alerts") && !b.Follows("alerts") }, nil},
		{"c follows the topic it declared", func() bool { return c.Follows("news") }, nil},
	}
	for _, tc := range cases {
		if !tc.holds() {
			t.Errorf("%s: does not hold", tc.name)
		}
		if tc.afterwards != nil {
			tc.afterwards()
		}
	}
	if info, _ := d.Agent("b"); info.Topics == nil || len(info.Topics) != 0 {
		t.Errorf("b's topics listed as %#v, want an empty list", info.Topics)
	}
}
