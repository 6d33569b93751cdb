package e2e

import (
	"bytes"
	"context"
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
	"github.com/mcp-bridge/mcp-bridge/transports/httpapi"
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
	// An event needs no answer: 202.
	resp, _ = post(t, h.httpURL()+"/v1/swarm/messages", encode(t, "swarm", event("swarm", "", "ping", `{}`)), nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("event: %s", resp.Status)
	}
}

// TestHTTPAnswers: over HTTP an agent's failure or refusal is an answer,
// 200 with the failure in the sender's dialect; the bridge's own errors
// have their 4xx/5xx status, with the error in the sender's dialect as the
// body (correlated with the request where it could be read), or in plain
// JSON for a dialect the bridge does not know.
func TestHTTPAnswers(t *testing.T) {
	cfg := config.Default()
	cfg.MaxFrame = 4096
	cfg.Agents = []config.Agent{{ID: "guarded", Dialect: "fuse", Token: "s3cret"}}
	h := start(t, cfg)
	h.runAgent("swarm", responder("swarm"))
	h.runAgent("elizaacl", responder("elizaacl"))
	query := request("elizaacl", responder("elizaacl"), "add", `{"a":1,"b":2}`, "q-1")
	query.Act = canonical.ActQueryIf
	short := request("collab", responder("swarm"), "sleep", `{"ms":3000}`, "slow-1")
	short.TTL = canonical.Duration{D: 200 * time.Millisecond, Set: true}
	guarded := request("fuse", "swarm-agent", "add", `{"a":1,"b":2}`, "guarded-1")
	guarded.Sender.ID = "guarded"
	cases := []struct {
		name, dialect, query string
		body                 []byte
		status               int
		act                  canonical.Act       // the answer's act, in the sender's dialect
		code                 canonical.ErrorCode // its error code
		inReplyTo            string              // the request it answers; "" when it could not be read
		message              string              // part of its error message
	}{
		{"the agent fails", "fuse", "", encode(t, "fuse", request("fuse", responder("swarm"), "fail", `{"message":"boom"}`, "fail-1")),
			http.StatusOK, canonical.ActFailure, canonical.ErrExecutionFailed, "fail-1", "boom"},
		{"the agent has no such tool", "swarm", "", encode(t, "swarm", request("swarm", responder("swarm"), "teleport", `{}`, "nf-1")),
			http.StatusOK, canonical.ActFailure, canonical.ErrNotFound, "nf-1", "teleport"},
		{"the agent refuses", "elizaacl", "", encode(t, "elizaacl", query),
			http.StatusOK, canonical.ActRefuse, canonical.ErrRejected, "q-1", ""},
		{"malformed JSON", "fuse", "", []byte(`{"messageType":`),
			http.StatusBadRequest, canonical.ActNotUnderstood, canonical.ErrInvalidMessage, "", "fuse: not valid JSON"},
		{"no such receiver", "swarm", "", encode(t, "swarm", request("swarm", "nobody", "add", `{}`, "who-1")),
			http.StatusNotFound, canonical.ActFailure, canonical.ErrNotFound, "who-1", `no agent "nobody"`},
		{"the bridge times out", "collab", "", encode(t, "collab", short),
			http.StatusGatewayTimeout, canonical.ActFailure, canonical.ErrTimeout, "slow-1", "no answer from swarm-agent"},
		{"too large", "swarm", "", encode(t, "swarm", request("swarm", responder("swarm"), "echo", `{"pad":"`+strings.Repeat("x", 5000)+`"}`, "big-1")),
			http.StatusRequestEntityTooLarge, canonical.ActNotUnderstood, canonical.ErrTooLarge, "", "4096"},
		{"a wrong token", "fuse", "?agent=guarded&token=wrong", encode(t, "fuse", guarded),
			http.StatusUnauthorized, canonical.ActRefuse, canonical.ErrUnauthorized, "guarded-1", "agent guarded needs its token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := post(t, h.httpURL()+"/v1/"+tc.dialect+"/messages"+tc.query, tc.body, nil)
			if resp.StatusCode != tc.status {
				t.Errorf("status %s, want %d: %s", resp.Status, tc.status, got)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			codec, _ := builtin.Default().Lookup(tc.dialect)
			if p := codec.Validate(got); len(p) > 0 {
				t.Errorf("the answer is not valid %s: %v\n%s", tc.dialect, p, got)
			}
			env, err := codec.Decode(got)
			if err != nil {
				t.Fatalf("the answer is not %s: %v\n%s", tc.dialect, err, got)
			}
			act, code := asWritten(t, tc.dialect, tc.act, tc.code)
			if env.Act != act || env.Error == nil || env.Error.Code != code || !strings.Contains(env.Error.Message, tc.message) {
				t.Errorf("answer %s %+v, want %s %s %q: %s", env.Act, env.Error, act, code, tc.message, got)
			}
			if re := firstNonEmpty(env.InReplyTo, env.CorrelationID, env.TaskID); tc.inReplyTo != "" && re != tc.inReplyTo {
				t.Errorf("the answer quotes %q, want %q: %s", re, tc.inReplyTo, got)
			}
		})
	}
	t.Run("an unknown dialect", func(t *testing.T) {
		resp, got := post(t, h.httpURL()+"/v1/klingon/messages", []byte(`{}`), nil)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" ||
			gjson.GetBytes(got, "error.code").String() != "not-found" || !strings.Contains(gjson.GetBytes(got, "error.message").String(), `unknown dialect "klingon"`) {
			t.Errorf("%s %s: %s", resp.Status, resp.Header.Get("Content-Type"), got)
		}
	})
	t.Run("shutting down", func(t *testing.T) {
		// The bridge core stops while the listener still takes requests.
		if err := h.srv.Bridge().Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		resp, got := post(t, h.httpURL()+"/v1/swarm/messages?agent=late", encode(t, "swarm", request("swarm", responder("swarm"), "add", `{}`, "late-1")), nil)
		codec, _ := builtin.Default().Lookup("swarm")
		env, err := codec.Decode(got)
		_, code := asWritten(t, "swarm", canonical.ActFailure, canonical.ErrUnavailable)
		if resp.StatusCode != http.StatusServiceUnavailable || err != nil || env.Error == nil || env.Error.Code != code ||
			!strings.Contains(env.Error.Message, "shutting down") || env.InReplyTo != "late-1" {
			t.Errorf("%s: %s (%v)", resp.Status, got, err)
		}
	})
}

// asWritten returns the act and error code dialect d reads back from an
// error of code sent as act: the words of d's own vocabulary (swarm has no
// too-large, fuse no unauthorized).
func asWritten(t *testing.T, d string, act canonical.Act, code canonical.ErrorCode) (canonical.Act, canonical.ErrorCode) {
	t.Helper()
	codec, _ := builtin.Default().Lookup(d)
	env := &canonical.Envelope{Act: act, Sender: canonical.Party{ID: "x"}, InReplyTo: "r", TaskID: "T",
		Outcome: canonical.OutcomeFailure, Error: &canonical.Error{Code: code, Message: "m"}}
	frame, err := codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := codec.Decode(frame)
	if err != nil || back.Error == nil {
		t.Fatalf("%s does not read back its own error %s: %v", d, frame, err)
	}
	return back.Act, back.Error.Code
}

// firstNonEmpty returns the first of vs that is not empty.
func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
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
	cfg.Agents = []config.Agent{{ID: "hooked", Dialect: "collab", Reach: "webhook", Settings: httpapi.Hook{URL: hook.URL}, Tools: config.Named("review")}}
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
