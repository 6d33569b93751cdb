package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// swarmError is a swarm error answer to req from id with code.
func swarmError(t *testing.T, req []byte, id, code string) []byte {
	t.Helper()
	out := []byte(`{"message_type":"error","timestamp":"2026-11-21T10:00:00Z","payload":{"error_code":"","error_message":"try again"}}`)
	var err error
	for _, kv := range [][2]string{
		{"message_id", "e-" + gjson.GetBytes(req, "message_id").String()},
		{"sender_id", id}, {"receiver_id", gjson.GetBytes(req, "sender_id").String()},
		{"correlation_id", gjson.GetBytes(req, "message_id").String()}, {"payload.error_code", code},
	} {
		if out, err = sjson.SetBytes(out, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestRetry: a request answered with a retryable error is delivered again
// after the policy's wait; the requester sees only the final answer.
func TestRetry(t *testing.T) {
	cfg := config.Default()
	cfg.Retry.InitialDelay, cfg.Retry.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	h := start(t, cfg)
	flaky := h.dial("swarm", "flaky")
	c := h.dial("fuse", requester("fuse"))
	c.send(c.encode(request("fuse", "flaky", "work", `{"n":1}`, "r-1")))
	for attempt := 1; attempt <= 3; attempt++ {
		req := flaky.recv()
		if gjson.GetBytes(req, "payload.arguments.n").Int() != 1 {
			t.Fatalf("attempt %d: %s", attempt, req)
		}
		if attempt < 3 {
			flaky.send(swarmError(t, req, "flaky", "TIMEOUT"))
			continue
		}
		flaky.send(answerAs(t, req, "flaky"))
	}
	reply := c.decode(c.recv())
	if reply.Act != canonical.ActResult || reply.InReplyTo != "r-1" {
		t.Fatalf("the requester got %s %+v", reply.Act, reply.Error)
	}
	// Only that answer: the next message answers the next request.
	c.send(c.encode(request("fuse", "nobody", "work", `{}`, "r-2")))
	if reply := c.decode(c.recv()); reply.InReplyTo != "r-2" {
		t.Errorf("a retried attempt's error reached the requester: %+v", reply)
	}
	// A retryable error after the last retry is the answer.
	cfg2 := config.Default()
	cfg2.Retry.MaxRetries = 1
	cfg2.Retry.InitialDelay = 10 * time.Millisecond
	h2 := start(t, cfg2)
	flaky2 := h2.dial("swarm", "flaky")
	c2 := h2.dial("fuse", requester("fuse"))
	c2.send(c2.encode(request("fuse", "flaky", "work", `{}`, "r-3")))
	for range 2 {
		flaky2.send(swarmError(t, flaky2.recv(), "flaky", "TIMEOUT"))
	}
	if reply := c2.decode(c2.recv()); reply.Error == nil || reply.Error.Code != canonical.ErrTimeout {
		t.Errorf("after the retries: %+v", reply)
	}
}

// TestCircuitBreaker: after the threshold of failures the circuit opens
// and requests are refused without reaching the agent; after the reset
// timeout a probe goes through and its success closes the circuit.
func TestCircuitBreaker(t *testing.T) {
	cfg := config.Default()
	cfg.Retry.MaxRetries = 0
	cfg.CircuitBreaker = config.CircuitBreaker{FailureThreshold: 2, ResetTimeout: 300 * time.Millisecond, HalfOpenRequests: 1}
	h := start(t, cfg)
	flaky := h.dial("swarm", "flaky")
	c := h.dial("collab", requester("collab"))
	for i := range 2 {
		c.send(c.encode(request("collab", "flaky", "work", `{}`, "f-"+string(rune('0'+i)))))
		flaky.send(swarmError(t, flaky.recv(), "flaky", "TIMEOUT"))
		c.recv()
	}
	// Open: refused at once, in collab, and the agent sees nothing.
	c.send(c.encode(request("collab", "flaky", "work", `{}`, "refused")))
	reply := c.decode(c.recv())
	if reply.Error == nil || !strings.Contains(reply.Error.Message, "circuit") {
		t.Fatalf("with the circuit open: %+v", reply)
	}
	if !strings.Contains(metrics(t, h), `bridge_circuit_state{agent_id="flaky"} 2`) {
		t.Error("the circuit is not open in /metrics")
	}
	// After the reset timeout the probe reaches the agent; its success
	// closes the circuit.
	time.Sleep(350 * time.Millisecond)
	c.send(c.encode(request("collab", "flaky", "work", `{"probe":true}`, "probe")))
	req := flaky.recv()
	if !gjson.GetBytes(req, "payload.arguments.probe").Bool() {
		t.Fatalf("the agent got %s, want the probe (was the refused request delivered?)", req)
	}
	flaky.send(answerAs(t, req, "flaky"))
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		t.Fatalf("probe: %+v", reply)
	}
	if !strings.Contains(metrics(t, h), `bridge_circuit_state{agent_id="flaky"} 0`) {
		t.Error("the circuit did not close")
	}
}
