package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/tidwall/gjson"
)

func encode(t *testing.T, d string, env *canonical.Envelope) []byte {
	t.Helper()
	codec, _ := builtin.Default().Lookup(d)
	out, err := codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func post(t *testing.T, url string, body []byte, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

// TestHTTPWaits: a request POSTed over HTTP waits for its answer in the
// response, in the sender's dialect; trace context travels as traceparent.
func TestHTTPWaits(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", responder("swarm"))
	body := encode(t, "fuse", request("fuse", "swarm-agent", "add", `{"a":1,"b":2}`, "http-1"))
	resp, got := post(t, h.httpURL()+"/v1/fuse/messages", body, http.Header{"Traceparent": {"00-" + traceID + "-00f067aa0ba902b7-01"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s: %s", resp.Status, got)
	}
	if gjson.GetBytes(got, "content.requestId").String() != "http-1" || gjson.GetBytes(got, "content.data.sum").Float() != 3 {
		t.Errorf("answer %s", got)
	}
	if tp := resp.Header.Get("traceparent"); !strings.Contains(tp, traceID) {
		t.Errorf("traceparent %q does not carry the trace", tp)
	}
	if !strings.Contains(h.logs.String(), `"trace_id":"`+traceID+`"`) {
		t.Error("the trace id is not in the logs")
	}
	// Bad input over HTTP: the error in fuse, with a 4xx status.
	resp, got = post(t, h.httpURL()+"/v1/fuse/messages", []byte(`{"messageType":`), nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), "fuse: not valid JSON") {
		t.Errorf("malformed: %s %s", resp.Status, got)
	}
	// An event needs no answer: 202.
	resp, _ = post(t, h.httpURL()+"/v1/swarm/messages", encode(t, "swarm", event("swarm", "", "ping", `{}`)), nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("event: %s", resp.Status)
	}
}

// TestWebhook: an agent declared with a webhook gets its messages POSTed
// there, and the answers to what it POSTs come there too.
func TestWebhook(t *testing.T) {
	inbox := make(chan []byte, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		inbox <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()
	cfg := config.Default()
	cfg.Agents = []config.Agent{{ID: "hooked", Dialect: "collab", Reach: config.ReachWebhook, URL: hook.URL, Tools: config.Named("review")}}
	h := start(t, cfg)
	h.agentUp("hooked", 1)
	h.runAgent("swarm", responder("swarm"))
	// hooked asks swarm-agent over HTTP: 202 now, the answer at the hook.
	req := request("collab", "swarm-agent", "echo", `{"via":"webhook"}`, "hook-1")
	req.Sender.ID = "hooked"
	resp, got := post(t, h.httpURL()+"/v1/collab/messages", encode(t, "collab", req), nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %s: %s", resp.Status, got)
	}
	select {
	case b := <-inbox:
		if gjson.GetBytes(b, "header.correlationId").String() != "hook-1" || !strings.Contains(string(b), "webhook") {
			t.Errorf("webhook got %s", b)
		}
	case <-time.After(wait):
		t.Fatal("no answer at the webhook")
	}
	// A request for hooked is POSTed to its webhook.
	c := h.dial("swarm", requester("swarm"))
	c.send(c.encode(request("swarm", "hooked", "review", `{"pr":7}`, "to-hook")))
	select {
	case b := <-inbox:
		if gjson.GetBytes(b, "header.type").String() != "REQUEST" || gjson.GetBytes(b, "body.action").String() != "review" {
			t.Errorf("webhook got %s", b)
		}
	case <-time.After(wait):
		t.Fatal("the request did not reach the webhook")
	}
	// /v1/agents lists it, filtered by capability, BUSY: the review request
	// is in flight.
	r, err := http.Get(h.httpURL() + "/v1/agents?capability=review")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct {
		Agents []struct{ ID, Dialect, Transport, Status string }
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Agents) != 1 || list.Agents[0].ID != "hooked" || list.Agents[0].Transport != "http" || list.Agents[0].Status != "BUSY" {
		t.Errorf("/v1/agents?capability=review = %+v", list.Agents)
	}
}
