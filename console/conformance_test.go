package console_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// runResult is a requirement's result in a run's stream.
type runResult struct {
	ID, Level, Status, Title, Detail string
}

// runDone ends a run's stream.
type runDone struct {
	Error  string
	Passed bool
	Must   struct{ Pass, Failed, Skip int }
	Failed []string
}

// conform starts a run with req and reads its stream to the end.
func (h *harness) conform(t *testing.T, req map[string]any) ([]runResult, runDone) {
	t.Helper()
	status, body := h.do("POST", "/ui/api/conformance", req)
	if status != http.StatusAccepted {
		t.Fatalf("start %v: %d %s", req, status, body)
	}
	var started struct{ ID, Events string }
	if err := json.Unmarshal(body, &started); err != nil {
		t.Fatal(err)
	}
	ev := h.stream(started.Events)
	var results []runResult
	for {
		select {
		case e, ok := <-ev.ch:
			if !ok {
				t.Fatal("the run's stream ended without its summary")
			}
			switch e.kind {
			case "result":
				var r runResult
				if err := json.Unmarshal([]byte(e.data), &r); err != nil {
					t.Fatal(err)
				}
				results = append(results, r)
			case "done":
				var d runDone
				if err := json.Unmarshal([]byte(e.data), &d); err != nil {
					t.Fatal(err)
				}
				return results, d
			}
		case <-t.Context().Done():
			t.Fatal("the test ended")
		}
	}
}

// TestConformance runs requirements of the suite from the console against
// a connected agent (through the bridge) and against an agent serving
// WebSocket at a URL, and watches them pass; a second run is refused while
// one is under way, and a bad request says why.
func TestConformance(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", "jules")
	only := []string{"swarm.request.answered", "swarm.request.correlated", "swarm.unknown.answered"}
	results, done := h.conform(t, map[string]any{"agent": "jules", "only": only, "level": "must"})
	if !done.Passed || done.Error != "" || done.Must.Pass != len(only) || len(results) != len(only) {
		t.Errorf("through the bridge: %+v\n%+v", done, results)
	}
	for _, r := range results {
		if r.Status != "pass" {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Detail)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served, err := refagent.New(refagent.Options{ID: "lister", Dialect: "collab"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = served.Listen(ctx, ln) }()
	results, done = h.conform(t, map[string]any{"url": "ws://" + ln.Addr().String() + "/", "dialect": "collab",
		"only": []string{"collab.request.answered", "collab.request.correlated"}})
	if !done.Passed || len(results) != 2 || results[0].Status != "pass" || results[1].Status != "pass" {
		t.Errorf("at a URL: %+v\n%+v", done, results)
	}

	_, done = h.conform(t, map[string]any{"url": "ws://127.0.0.1:1/", "dialect": "fuse", "only": []string{"fuse.request.answered"}})
	if done.Passed || !strings.Contains(done.Error, "could not be started or reached") && !strings.Contains(done.Error, "dialing") {
		t.Errorf("an agent nobody serves: %+v", done)
	}

	for _, c := range []struct {
		req    map[string]any
		status int
		says   string
	}{
		{map[string]any{"agent": "nobody"}, http.StatusNotFound, `nobody`},
		{map[string]any{"url": "http://x/", "dialect": "swarm"}, http.StatusBadRequest, "a WebSocket URL"},
		{map[string]any{"url": "ws://x/", "agent": "jules"}, http.StatusBadRequest, "either url"},
		{map[string]any{"url": "ws://x/", "dialect": "klingon"}, http.StatusBadRequest, "klingon"},
		{map[string]any{"agent": "jules", "level": "may"}, http.StatusBadRequest, "must or should"},
	} {
		if status, body := h.do("POST", "/ui/api/conformance", c.req); status != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%v: %d %s, want %d saying %q", c.req, status, body, c.status, c.says)
		}
	}

	// A run that waits on its agent: another is refused until it is stopped.
	status, body := h.do("POST", "/ui/api/conformance", map[string]any{"agent": "jules", "only": []string{"swarm.ttl.met"}})
	if status != http.StatusAccepted {
		t.Fatalf("start: %d %s", status, body)
	}
	var started struct{ ID string }
	_ = json.Unmarshal(body, &started)
	if status, body := h.do("POST", "/ui/api/conformance", map[string]any{"agent": "jules"}); status != http.StatusConflict || !strings.Contains(string(body), "under way") {
		t.Errorf("a second run: %d %s", status, body)
	}
	if status, body := h.do("POST", "/ui/api/conformance/"+started.ID+"/stop", map[string]any{}); status != http.StatusOK {
		t.Errorf("stop: %d %s", status, body)
	}
	if status, body := h.do("POST", "/ui/api/conformance", map[string]any{"agent": "jules", "only": []string{"swarm.request.answered"}}); status != http.StatusAccepted {
		t.Errorf("a run after the stop: %d %s", status, body)
	}
}

// TestMetrics: the chart's points come from the metrics /metrics serves: a
// request answered shows in the message rate and the latency.
func TestMetrics(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", "jules")
	fuse := h.runAgent("fuse", "scout")
	if _, err := fuse.Call(context.Background(), "jules", fuse.Operation("echo"), `{"text":"hi"}`); err != nil {
		t.Fatal(err)
	}
	var chart struct {
		Every  float64 `json:"every_s"`
		Window float64 `json:"window_s"`
		Points []struct {
			In, Out  float64
			Requests int
			P50      *float64 `json:"p50_ms"`
			P99      *float64 `json:"p99_ms"`
		}
	}
	h.until("a point with the request", func() bool {
		h.getJSON("/ui/api/metrics", &chart)
		for _, p := range chart.Points {
			if p.Requests > 0 {
				return p.In > 0 && p.Out > 0 && p.P50 != nil && p.P99 != nil && *p.P50 > 0
			}
		}
		return false
	})
	if chart.Every != 2 || chart.Window != 600 {
		t.Errorf("a point every %vs over %vs, want 2 over 600", chart.Every, chart.Window)
	}
}
