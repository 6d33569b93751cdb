package e2e

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/tidwall/gjson"
)

// TestObservability: /metrics carries the metrics of specs/collab.md 7.2,
// every message received and sent has one JSON log line with its ids, and
// secrets never reach the log (fuse tokens, bluelabel sensitive inputs).
func TestObservability(t *testing.T) {
	cfg := config.Default()
	cfg.LogLevel = slog.LevelDebug // the messages themselves are logged, redacted
	h := start(t, cfg)
	h.runAgent("swarm", responder("swarm"))
	c := h.dial("fuse", requester("fuse"))
	req := request("fuse", "swarm-agent", "echo", `{"api_key":"sk-live-123","note":"hi"}`, "obs-1")
	req.Authentication = `{"type":"jwt","token":"eyJhbGciOiJIUzI1NiJ9.secret"}`
	c.send(c.encode(req))
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		t.Fatalf("got %s", reply.Act)
	}
	// A bluelabel agent asks for a sensitive input; its value, sent later,
	// is redacted by that input's id.
	blue := h.dial("bluelabel", "ASKER")
	blue.send(blue.encode(&canonical.Envelope{Act: canonical.ActNeedsInput, TaskID: "T-1", Sender: canonical.Party{ID: "ASKER"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "FUSE-REQ"},
		Inputs:   `[{"id":"deploy_secret_x","type":"string","description":"key","sensitive":true}]`}))
	// fuse has no needs-input: the asker is told so, in bluelabel.
	if reply := blue.decode(blue.recv()); reply.Error == nil || !strings.Contains(reply.Error.Message, "needs-input") {
		t.Fatalf("needs_input to fuse: %+v", reply.Error)
	}
	c.send(c.encode(request("fuse", "ASKER", "deploy", `{"deploy_secret_x":"hunter2"}`, "obs-2")))
	blue.recv()

	logs := h.logs.String()
	for _, secret := range []string{"sk-live-123", "eyJhbGciOiJIUzI1NiJ9.secret", "hunter2"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds the secret %q", secret)
		}
	}
	if !strings.Contains(logs, "[REDACTED]") {
		t.Error("nothing was redacted: were the messages logged at debug?")
	}
	var received, sent int
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		l := gjson.Parse(line)
		switch l.Get("msg").String() {
		case "received":
			received++
			if l.Get("dialect").String() == "" || l.Get("act").String() == "" {
				t.Errorf("received line without dialect or act: %s", line)
			}
		case "sent":
			sent++
			if l.Get("receiver").String() == "" || l.Get("dialect").String() == "" {
				t.Errorf("sent line without receiver or dialect: %s", line)
			}
		}
		if l.Get("msg").String() == "received" && l.Get("id").String() == "obs-1" && l.Get("sender").String() != "fuse-req" {
			t.Errorf("obs-1 logged as from %s", l.Get("sender"))
		}
	}
	if received < 4 || sent < 3 { // the bridge's own error answers are logged as "refused"
		t.Errorf("%d received and %d sent lines", received, sent)
	}

	resp, err := http.Get(h.httpURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, m := range []string{
		`agent_messages_total{dest="swarm-agent",source="fuse-req",type="request"} 1`,
		`agent_request_duration_count{dest="swarm-agent",source="fuse-req"} 1`,
		`agent_queue_size{agent_id="swarm-agent"} 0`,
		`bridge_messages_received_total{dialect="fuse",type="request"}`,
	} {
		if !strings.Contains(string(body), m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
	// An error counts in agent_errors_total.
	c.send(c.encode(request("fuse", "nobody", "echo", `{}`, "obs-3")))
	c.recv()
	resp, err = http.Get(h.httpURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `agent_errors_total{error_type="not-found",source="fuse-req"} 1`) {
		t.Errorf("/metrics lacks the error:\n%s", grep(string(body), "agent_errors"))
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		r, err := http.Get(h.httpURL() + path)
		if err != nil || r.StatusCode != http.StatusOK {
			t.Errorf("%s: %v %v", path, err, r.Status)
		}
		r.Body.Close()
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// metrics returns the server's /metrics page.
func metrics(t *testing.T, h *harness) string {
	t.Helper()
	return h.metricsPage(t)
}
