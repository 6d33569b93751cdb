package console_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/server"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
)

// wait bounds every wait of these tests; no test measures time with it.
const wait = 10 * time.Second

// harness is a bridge served on a loopback port, its console on.
type harness struct {
	t    testing.TB
	srv  *server.Server
	addr string
}

// start runs a server on the default config as edit changes it.
func start(t testing.TB, edit func(*config.Config)) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	if edit != nil {
		edit(cfg)
	}
	// A server that does not stop fails the test: a console stream held
	// it up.
	run := servertest.Start(t, cfg, servertest.Options{})
	h := &harness{t: t, srv: run.Server, addr: run.Addr}
	// The console records the traffic while someone has it open: a
	// viewer opens it first (without a token this does nothing, and the
	// tests of tokens look at no traffic).
	h.do("GET", "/ui/api/overview", nil)
	return h
}

func (h *harness) url(path string) string { return "http://" + h.addr + path }

// runAgent connects a reference agent of dialect d as id and waits until
// the bridge has it READY.
func (h *harness) runAgent(d, id string) *refagent.Agent {
	h.t.Helper()
	a, err := refagent.New(refagent.Options{ID: id, Dialect: d})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, "ws://"+h.addr, "")
	}()
	h.t.Cleanup(func() { cancel(); <-done })
	h.until("agent "+id+" READY", func() bool {
		info, ok := h.srv.Bridge().Agent(id)
		return ok && info.Status == bridge.StatusReady && (d == "bluelabel" || len(info.Capabilities) > 0)
	})
	return a
}

// until waits for cond, failing the test after wait.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// do sends a request and returns the response's status and body.
func (h *harness) do(method, path string, body any, header ...string) (int, []byte) {
	h.t.Helper()
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.url(path), r)
	if err != nil {
		h.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// noRedirects is a client that shows redirects rather than following them.
var noRedirects = &http.Client{
	Timeout:       wait,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// getJSON GETs path, expecting 200, into v.
func (h *harness) getJSON(path string, v any) {
	h.t.Helper()
	status, body := h.do("GET", path, nil)
	if status != http.StatusOK {
		h.t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		h.t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// event is one server-sent event.
type event struct {
	kind, id, data string
}

// events is a server-sent event stream the test reads.
type events struct {
	t      testing.TB
	ch     chan event
	cancel context.CancelFunc
}

// stream opens the event stream at path, expecting 200.
func (h *harness) stream(path string, header ...string) *events {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", h.url(path), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("GET %s: %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	e := &events{t: h.t, ch: make(chan event, 1024), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(e.ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.kind != "" {
					e.ch <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.kind = line[len("event: "):]
			case strings.HasPrefix(line, "id: "):
				ev.id = line[len("id: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[len("data: "):]
			}
		}
	}()
	h.t.Cleanup(cancel)
	return e
}

// next returns the next event of kind, skipping others.
func (e *events) next(kind string) event {
	e.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-e.ch:
			if !ok {
				e.t.Fatalf("the stream ended before a %q event", kind)
			}
			if ev.kind == kind {
				return ev
			}
		case <-deadline:
			e.t.Fatalf("no %q event", kind)
		}
	}
}

// close ends the stream.
func (e *events) close() { e.cancel() }
