package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestRateLimit: an agent over limits.rate is answered, in its dialect,
// with a retryable unavailable error carrying retry_after, the message
// goes nowhere, and the refusal is counted; each agent has a bucket of
// its own; once the bucket refills, the agent's messages go through again.
func TestRateLimit(t *testing.T) {
	cfg := config.Default()
	cfg.Limits.Rate, cfg.Limits.Burst = 5, 3
	h := start(t, cfg)
	sink := h.dial("swarm", "sink") // takes requests, answers none
	for _, d := range []string{"collab", "fuse", "swarm"} {
		t.Run(d, func(t *testing.T) {
			c := h.dial(d, requester(d))
			for i := range 3 + 2 {
				c.send(c.encode(request(d, "sink", "echo", `{}`, fmt.Sprintf("%s-rate-%d", d, i))))
			}
			var refusals []*canonical.Error
			for range 2 {
				env := c.decode(c.recv())
				if env.Error == nil {
					t.Fatalf("an answer that is no refusal: %+v", env)
				}
				refusals = append(refusals, env.Error)
			}
			for i := range 3 {
				if got := sink.decode(sink.recv()); got.Sender.ID != requester(d) {
					t.Fatalf("message %d at the sink is from %s", i, got.Sender.ID)
				}
			}
			_, code := asWritten(t, d, canonical.ActFailure, canonical.ErrUnavailable)
			for _, e := range refusals {
				if e.Code != code || !strings.Contains(e.Message, "limits.rate") {
					t.Errorf("the refusal is not unavailable: %+v", e)
				}
			}
			// retry_after is in the error where the dialect has a place
			// for it (collab), in its message everywhere.
			e := refusals[0]
			if !strings.Contains(e.Message, "retry after") {
				t.Errorf("the refusal does not say when to retry: %+v", e)
			}
			if c.codec.Holds(canonical.ActFailure).Has(canonical.CErrorRetryAfter) &&
				(e.Retryable == nil || !*e.Retryable || !e.RetryAfter.Set || e.RetryAfter.D <= 0) {
				t.Errorf("the refusal is not retryable with retry_after: %+v", e)
			}
			time.Sleep(time.Second) // the bucket refills at 5 a second
			c.send(c.encode(request(d, "sink", "echo", `{}`, d+"-rate-after")))
			if got := sink.decode(sink.recv()); got.Sender.ID != requester(d) {
				t.Errorf("after the bucket refilled: %+v", got)
			}
		})
	}
	if got := metricValue(t, h, `bridge_limited_total{limit="rate"}`); got != 6 {
		t.Errorf("rate refusals counted: %v, want 6", got)
	}
}

// TestConnectionLimits: past limits.connections_per_address, and past
// limits.connections, a WebSocket dial or an HTTP request is answered 429
// or 503 with Retry-After, and counted; closing a connection frees its
// place.
func TestConnectionLimits(t *testing.T) {
	cfg := config.Default()
	cfg.Limits.ConnectionsPerAddress = 2
	h := start(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	// Keep-alive connections of the default client would count too.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	dial := func() (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, h.wsURL()+"/ws/swarm", &websocket.DialOptions{HTTPClient: client})
	}
	a, _, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := dial()
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third connection from the address: %v %+v", err, resp)
	}
	r, err := client.Get(h.httpURL() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("an HTTP request over the cap: %s", r.Status)
	}
	a.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(wait)
	for {
		c, _, err := dial()
		if err == nil {
			c.Close(websocket.StatusNormalClosure, "")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection did not free its place")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Close(websocket.StatusNormalClosure, "")
	if got := waitMetric(t, h, `bridge_limited_total{limit="connections_per_address"}`); got < 2 {
		t.Errorf("per-address refusals counted: %v", got)
	}

	cfg = config.Default()
	cfg.Limits.Connections = 1
	h = start(t, cfg)
	one, _, err := websocket.Dial(ctx, h.wsURL()+"/ws/swarm", &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err = websocket.Dial(ctx, h.wsURL()+"/ws/swarm", &websocket.DialOptions{HTTPClient: client})
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a connection over limits.connections: %v %+v", err, resp)
	}
	one.Close(websocket.StatusNormalClosure, "")
	// Until the bridge has let go of one, the test's own requests for
	// /metrics are over the limit too, and counted.
	if got, refused := waitMetricRefused(t, h, `bridge_limited_total{limit="connections"}`); got != float64(1+refused) {
		t.Errorf("connection refusals counted: %v, want 1 and the %d refused reads of /metrics\n%s", got, refused, grep(h.metricsPage(t), "bridge_"))
	}
}
