package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestAgentSeries: /metrics has each agent's series while the bridge
// knows it (its status, its queue, the messages it was sent and its
// requests' durations), with the names, labels and values of
// specs/collab.md 7.2; an agent that closes its connection is STOPPED there, and
// one the bridge forgets has no status or queue series left.
func TestAgentSeries(t *testing.T) {
	h := start(t, nil)
	h.runAgent("swarm", responder("swarm"))
	lone := h.dial("collab", "lone-agent")
	c := h.dial("fuse", requester("fuse"))
	c.send(c.encode(request("fuse", "swarm-agent", "echo", `{"note":"hi"}`, "series-1")))
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		t.Fatalf("got %s", reply.Act)
	}
	h.metricsHave(t, []string{
		`bridge_agent_status{agent_id="swarm-agent",status="READY"} 1`,
		`bridge_agent_status{agent_id="lone-agent",status="READY"} 1`,
		`bridge_agent_status{agent_id="fuse-req",status="READY"} 1`,
		`agent_queue_size{agent_id="swarm-agent"} 0`,
		`agent_messages_total{dest="swarm-agent",source="fuse-req",type="request"} 1`,
		`agent_messages_total{dest="fuse-req",source="swarm-agent",type="result"} 1`,
		`agent_request_duration_count{dest="swarm-agent",source="fuse-req"} 1`,
		`agent_request_duration_bucket{dest="swarm-agent",source="fuse-req",le="+Inf"} 1`,
	}, nil)

	if err := lone.c.Close(websocket.StatusNormalClosure, "done"); err != nil {
		t.Fatal(err)
	}
	h.metricsHave(t, []string{`bridge_agent_status{agent_id="lone-agent",status="STOPPED"} 1`},
		[]string{`bridge_agent_status{agent_id="lone-agent",status="READY"}`})

	h.srv.Bridge().Remove("swarm-agent", "removed by the test")
	h.metricsHave(t, []string{
		`bridge_agent_status{agent_id="fuse-req",status="READY"} 1`,
		// The counts stay: they are the history of a pair of agents.
		`agent_messages_total{dest="swarm-agent",source="fuse-req",type="request"} 1`,
	}, []string{`bridge_agent_status{agent_id="swarm-agent"`, `agent_queue_size{agent_id="swarm-agent"}`})
}

// metricsHave waits until /metrics has every line of want and no line
// starting as one of gone does, failing the test after wait with what it
// last read.
func (h *harness) metricsHave(t *testing.T, want, gone []string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	var missing []string
	var body string
	for {
		resp, err := http.Get(h.httpURL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
		missing = missing[:0]
		for _, w := range want {
			if !strings.Contains(body, "\n"+w+"\n") {
				missing = append(missing, w)
			}
		}
		for _, g := range gone {
			if strings.Contains(body, "\n"+g) {
				missing = append(missing, "no "+g)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("/metrics lacks %q:\n%s", missing, grep(body, "agent_"))
}
