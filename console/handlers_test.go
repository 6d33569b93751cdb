package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// agentRow is a row of the agents table.
type agentRow struct {
	ID, Dialect, Transport, Status string
	Tools                          []string
	Queue                          int
	Breaker                        string
	Connected                      bool
}

type agentList struct {
	Agents []agentRow
}

func (l agentList) find(id string) (agentRow, bool) {
	for _, a := range l.Agents {
		if a.ID == id {
			return a, true
		}
	}
	return agentRow{}, false
}

// TestAgents: the agents list and its stream show agents of two dialects
// with their tools, queue and breaker, and the stream follows an agent
// that comes and one that goes.
func TestAgents(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", "jules")
	h.runAgent("collab", "relay")
	var list agentList
	h.getJSON("/ui/api/agents", &list)
	for id, dialect := range map[string]string{"jules": "swarm", "relay": "collab"} {
		a, ok := list.find(id)
		hasAdd := slices.ContainsFunc(a.Tools, func(tool string) bool { return tool == "add" || strings.HasSuffix(tool, "/add") })
		if !ok || a.Dialect != dialect || a.Status != "READY" || a.Transport != "websocket" || !a.Connected ||
			!hasAdd || a.Breaker != "closed" || a.Queue != 0 {
			t.Errorf("%s: %+v (listed: %v)", id, a, ok)
		}
	}

	ev := h.stream("/ui/api/agents/events")
	var first agentList
	if err := json.Unmarshal([]byte(ev.next("agents").data), &first); err != nil || len(first.Agents) != 2 {
		t.Fatalf("first agents event: %v %+v", err, first)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := websocket.Dial(ctx, "ws://"+h.addr+"/ws/fuse?agent=scout", nil)
	if err != nil {
		t.Fatal(err)
	}
	ev.until("scout", "READY")
	c.Close(websocket.StatusNormalClosure, "bye")
	cancel()
	ev.until("scout", "STOPPED")
}

// until reads the agents' events until one lists the agent id with status.
func (e *events) until(id, status string) {
	e.t.Helper()
	for {
		var l agentList
		if err := json.Unmarshal([]byte(e.next("agents").data), &l); err != nil {
			e.t.Fatal(err)
		}
		if a, _ := l.find(id); a.Status == status {
			return
		}
	}
}

// summary is a row of the traffic table.
type summary struct {
	Seq                 uint64
	Kind                string
	From, To            string
	FromDialect         string `json:"from_dialect"`
	ToDialect           string `json:"to_dialect"`
	Act, Operation      string
	Outcome             string
	Failed              bool
	ByBridge            bool     `json:"by_bridge"`
	LatencyMS           *float64 `json:"latency_ms"`
	Losses              int
	Error               *struct{ Code, Message string }
	Received, Delivered string
	LossReport          []struct{ Kind, Field, Message string } `json:"loss_report"`
}

type trafficList struct {
	Messages []summary
	Capacity int
}

// find returns the first message that keep accepts.
func (l trafficList) find(keep func(summary) bool) (summary, bool) {
	for _, m := range l.Messages {
		if keep(m) {
			return m, true
		}
	}
	return summary{}, false
}

// TestTraffic: the spec's Eddy -> Jules request (elizaacl to swarm), the
// accept the bridge sends Eddy for Jules and Jules's answer are listed as
// they passed, with the frames as received and as delivered and the loss
// report; a malformed frame is listed refused; the filters keep what they
// say.
func TestTraffic(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", "Jules")
	ctx := context.Background()
	eddy, _, err := websocket.Dial(ctx, "ws://"+h.addr+"/ws/elizaacl?agent=Eddy", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eddy.CloseNow()
	frame, err := os.ReadFile("../examples/eddy-task-request.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := eddy.Write(ctx, websocket.MessageText, frame); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TASK_ACCEPT", "INFORM_RESULT"} {
		if _, got, err := eddy.Read(ctx); err != nil || !strings.Contains(string(got), want) {
			t.Fatalf("Eddy reads %s (%v), want %s", got, err, want)
		}
	}
	raw, _, err := websocket.Dial(ctx, "ws://"+h.addr+"/ws/swarm?agent=rawbot", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.CloseNow()
	if err := raw.Write(ctx, websocket.MessageText, []byte(`{"message_type": "request",`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := raw.Read(ctx); err != nil { // the error in swarm
		t.Fatal(err)
	}

	var list trafficList
	h.until("the traffic listed", func() bool {
		h.getJSON("/ui/api/traffic", &list)
		_, answered := list.find(func(m summary) bool { return m.Act == "result" && m.To == "Eddy" })
		_, refused := list.find(func(m summary) bool { return m.Kind == "refused" })
		// The request is told once the link to Jules took it, which may
		// be after Jules's answer.
		_, asked := list.find(func(m summary) bool { return m.Act == "request" })
		return answered && refused && asked
	})
	req, _ := list.find(func(m summary) bool { return m.Act == "request" && m.From == "Eddy" })
	if req.To != "Jules" || req.FromDialect != "elizaacl" || req.ToDialect != "swarm" || req.Operation != "debug_code" ||
		req.Kind != "delivered" || req.Failed || req.LatencyMS == nil || req.Losses == 0 {
		t.Errorf("request: %+v", req)
	}
	accept, ok := list.find(func(m summary) bool { return m.Act == "accept" })
	if !ok || !accept.ByBridge || accept.To != "Eddy" || accept.FromDialect != "bridge" {
		t.Errorf("the accept the bridge sends Eddy for Jules: %+v", accept)
	}
	answer, _ := list.find(func(m summary) bool { return m.Act == "result" })
	if answer.From != "Jules" || answer.Outcome != "success" || answer.FromDialect != "swarm" || answer.ToDialect != "elizaacl" {
		t.Errorf("answer: %+v", answer)
	}
	bad, _ := list.find(func(m summary) bool { return m.Kind == "refused" })
	if bad.From != "rawbot" || bad.FromDialect != "swarm" || !bad.Failed || bad.Error == nil || bad.Error.Code != "invalid-message" {
		t.Errorf("refused: %+v", bad)
	}

	var d summary
	h.getJSON(fmt.Sprintf("/ui/api/traffic/%d", req.Seq), &d)
	if !strings.Contains(d.Received, `"performative":"TASK_REQUEST"`) || !strings.Contains(d.Delivered, `"tool_name":"debug_code"`) {
		t.Errorf("request frames: received %s\ndelivered %s", d.Received, d.Delivered)
	}
	if len(d.LossReport) != req.Losses || !slices.ContainsFunc(d.LossReport, func(l struct{ Kind, Field, Message string }) bool {
		return l.Kind == "dropped" && l.Field == "reply_with"
	}) {
		t.Errorf("loss report of elizaacl -> swarm: %+v", d.LossReport)
	}
	h.getJSON(fmt.Sprintf("/ui/api/traffic/%d", bad.Seq), &d)
	if d.Received != `{"message_type": "request",` || !strings.Contains(d.Delivered, `"message_type":"error"`) {
		t.Errorf("refused frames: received %s\ndelivered %s", d.Received, d.Delivered)
	}
	if status, body := h.do("GET", "/ui/api/traffic/999999", nil); status != http.StatusNotFound || !strings.Contains(string(body), "not kept") {
		t.Errorf("a message never seen: %d %s", status, body)
	}

	for _, c := range []struct {
		query string
		keep  func(summary) bool
	}{
		{"agent=Jules", func(m summary) bool { return m.From == "Jules" || m.To == "Jules" }},
		{"dialect=elizaacl", func(m summary) bool { return m.FromDialect == "elizaacl" || m.ToDialect == "elizaacl" }},
		{"act=result", func(m summary) bool { return m.Act == "result" }},
		{"errors=true", func(m summary) bool { return m.Failed }},
		{"agent=Eddy&act=request", func(m summary) bool { return m.From == "Eddy" && m.Act == "request" }},
	} {
		var all, got trafficList
		h.getJSON("/ui/api/traffic", &all)
		h.getJSON("/ui/api/traffic?"+c.query, &got)
		var want []uint64
		for _, m := range all.Messages {
			if c.keep(m) {
				want = append(want, m.Seq)
			}
		}
		var seqs []uint64
		for _, m := range got.Messages {
			seqs = append(seqs, m.Seq)
		}
		if len(want) == 0 || !slices.Equal(seqs, want) {
			t.Errorf("?%s: %v, want %v", c.query, seqs, want)
		}
	}
}

// TestTrafficEvents: the stream replays what is kept, then follows the
// traffic live under its filter; after= and Last-Event-ID resume it.
func TestTrafficEvents(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", "jules")
	fuse := h.runAgent("fuse", "scout")
	ctx := context.Background()
	call := func() {
		t.Helper()
		if _, err := fuse.Call(ctx, "jules", fuse.Operation("echo"), `{"text":"hi"}`); err != nil {
			t.Fatal(err)
		}
	}
	call()
	all := h.stream("/ui/api/traffic/events")
	first := all.next("message")
	var s summary
	if err := json.Unmarshal([]byte(first.data), &s); err != nil || first.id != fmt.Sprint(s.Seq) {
		t.Fatalf("first event: %v %+v (id %s)", err, s, first.id)
	}
	results := h.stream("/ui/api/traffic/events?act=result&agent=scout")
	replayed := results.next("message")
	call()
	live := results.next("message")
	for _, e := range []event{replayed, live} {
		if err := json.Unmarshal([]byte(e.data), &s); err != nil || s.Act != "result" || s.To != "scout" {
			t.Errorf("filtered stream: %+v", s)
		}
	}
	var r1, r2 summary
	_ = json.Unmarshal([]byte(replayed.data), &r1)
	_ = json.Unmarshal([]byte(live.data), &r2)
	if r2.Seq <= r1.Seq {
		t.Errorf("live message %d after replayed %d", r2.Seq, r1.Seq)
	}
	resumed := h.stream("/ui/api/traffic/events?act=result", "Last-Event-ID", fmt.Sprint(r1.Seq))
	if e := resumed.next("message"); e.id != fmt.Sprint(r2.Seq) {
		t.Errorf("resumed after %d at %s, want %d", r1.Seq, e.id, r2.Seq)
	}
	after := h.stream(fmt.Sprintf("/ui/api/traffic/events?act=result&after=%d", r1.Seq))
	if e := after.next("message"); e.id != fmt.Sprint(r2.Seq) {
		t.Errorf("after=%d starts at %s, want %d", r1.Seq, e.id, r2.Seq)
	}
}

// TestViewers: live streams are bounded; one more is refused until one
// closes.
func TestViewers(t *testing.T) {
	h := start(t, func(c *config.Config) { c.UI.Viewers = 2 })
	a := h.stream("/ui/api/agents/events")
	h.stream("/ui/api/traffic/events")
	if status, body := h.do("GET", "/ui/api/traffic/events", nil); status != http.StatusServiceUnavailable || !strings.Contains(string(body), "2 live views") {
		t.Errorf("a third stream: %d %s", status, body)
	}
	a.close()
	h.until("a viewer slot free again", func() bool {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", h.url("/ui/api/agents/events"), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// playResult is the playground's answer.
type playResult struct {
	Dialect  string
	Detected bool
	Error    string
	Valid    bool
	Problems []struct{ Path, Message string }
	Trans    []struct {
		To, Message, Error string
		Dropped            bool
		Losses             []struct{ Kind, Field, Message string }
	} `json:"translations"`
}

const swarmRequest = `{"message_id":"m-1","message_type":"request","sender_id":"agent-1","receiver_id":"Jules",` +
	`"timestamp":"2026-01-10T14:30:00Z","correlation_id":null,"priority":"urgent","payload":{"tool_name":"debug_code","arguments":{"code":"x"},"timeout":30}}`

// TestPlayground: a pasted message is detected, validated and translated
// into every other dialect with what was lost, as the command line does;
// a bad one gets its problems at their paths.
func TestPlayground(t *testing.T) {
	h := start(t, nil)
	play := func(req map[string]string) playResult {
		t.Helper()
		status, body := h.do("POST", "/ui/api/translate", req)
		if status != http.StatusOK {
			t.Fatalf("%v: %d %s", req, status, body)
		}
		var r playResult
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}

	r := play(map[string]string{"message": swarmRequest})
	others := len(dialects.Names()) - 1 // every dialect but the message's own
	if r.Dialect != "swarm" || !r.Detected || !r.Valid || len(r.Problems) != 0 || len(r.Trans) != others {
		t.Fatalf("swarm request: %+v", r)
	}
	for _, tr := range r.Trans {
		if tr.Error != "" || tr.Dropped || !json.Valid([]byte(tr.Message)) {
			t.Errorf("to %s: %+v", tr.To, tr)
		}
		if tr.To == "bluelabel" && !slices.ContainsFunc(tr.Losses, func(l struct{ Kind, Field, Message string }) bool {
			return l.Kind == "approximated" && strings.Contains(l.Message, "AGENT-1")
		}) {
			t.Errorf("to bluelabel, the upper-cased sender is not reported: %+v", tr.Losses)
		}
	}

	bad := play(map[string]string{"message": `{"message_id":"m-2","message_type":"request","sender_id":"a","receiver_id":"b","timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"x","arguments":{},"timeout":900}}`, "from": "swarm"})
	if bad.Detected || bad.Valid || len(bad.Problems) != 1 || bad.Problems[0].Path != "payload.timeout" || len(bad.Trans) != others {
		t.Errorf("a timeout of 900: %+v", bad)
	}
	typed := play(map[string]string{"message": `{"message_type":"request","sender_id":"agent-1","payload":{"tool_name":7}}`})
	if typed.Valid || len(typed.Trans) != 0 || !slices.ContainsFunc(typed.Problems, func(p struct{ Path, Message string }) bool {
		return p.Path == "payload.tool_name" && strings.Contains(p.Message, "must be a string")
	}) {
		t.Errorf("a tool name that is a number: %+v", typed)
	}
	if junk := play(map[string]string{"message": `hello`}); junk.Error == "" || junk.Dialect != "" {
		t.Errorf("not JSON: %+v", junk)
	}

	for _, c := range []struct {
		body   any
		header []string
		status int
		says   string
	}{
		{map[string]string{"message": swarmRequest, "from": "swarn"}, nil, http.StatusBadRequest, "unknown dialect"},
		{"just a string", nil, http.StatusBadRequest, "not {"},
		{map[string]string{"message": swarmRequest}, []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType, "application/json"},
	} {
		status, body := h.do("POST", "/ui/api/translate", c.body, c.header...)
		if status != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%v: %d %s, want %d saying %q", c.body, status, body, c.status, c.says)
		}
	}
}

// TestOverview: the header's facts.
func TestOverview(t *testing.T) {
	h := start(t, nil)
	var o struct {
		BridgeID string `json:"bridge_id"`
		Dialects []string
		Acts     []string
		Tokens   bool
		Traffic  int
	}
	h.getJSON("/ui/api/overview", &o)
	if o.BridgeID != "mcp-bridge" || !slices.Equal(o.Dialects, dialects.Names()) || !slices.Contains(o.Acts, "needs-input") || o.Tokens || o.Traffic != 500 {
		t.Errorf("overview: %+v", o)
	}
	status, body := h.do("GET", "/ui/", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `id="traffic-table"`) {
		t.Errorf("/ui/: %d %.200s", status, body)
	}
	if status, _ := h.do("GET", "/ui/static/console.js", nil); status != http.StatusOK {
		t.Errorf("console.js: %d", status)
	}
}
