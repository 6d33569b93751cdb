package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
)

// The cold first message (issue 32): a request to an agent that has been
// idle for longer than a heartbeat, against requests to an agent that
// answers all the time, through a bridge in its own process.
const (
	// coldHeartbeat is the bridge's heartbeat in BenchmarkColdPaired.
	coldHeartbeat = 500 * time.Millisecond
	// coldIdle is how long an agent has had no message when it is sent
	// its cold one: two heartbeats, so that it was pinged in between.
	coldIdle = 2 * coldHeartbeat
	// coldAgents is how many idle agents take the cold requests in turn.
	coldAgents = 250
	// coldPause is the pause before every request, cold or warm: the
	// bridge process is then as idle before a warm request as before a
	// cold one, and only the agent's idleness differs.
	coldPause = 2 * time.Millisecond
)

// spawnBridge runs `mcp-bridge serve` (the binary TestMain built) as a
// child process on a loopback port with config (YAML) and returns its
// address. Its log goes to a file; it is stopped with SIGTERM when tb ends.
func spawnBridge(tb testing.TB, config string) string {
	cfgFile := filepath.Join(tb.TempDir(), "serve.yaml")
	if err := os.WriteFile(cfgFile, []byte(config), 0o600); err != nil {
		tb.Fatal(err)
	}
	addr, _ := spawn(tb, exec.Command(binary, "serve", "--config", cfgFile, "--listen", "127.0.0.1:0"))
	return addr
}

// swarmResponderAs answers every swarm request arriving on c as the agent
// named id, until c closes.
func swarmResponderAs(c *websocket.Conn, id string) {
	ctx := context.Background()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if gjson.GetBytes(msg, "message_type").String() != "request" {
			continue
		}
		if err := c.Write(ctx, websocket.MessageText, swarmResponseFrom(msg, id)); err != nil {
			return
		}
	}
}

// awaitListed waits until the bridge at addr lists every agent of ids
// READY.
func awaitListed(tb testing.TB, addr string, ids []string) {
	deadline := time.Now().Add(wait)
	for {
		ready := map[string]bool{}
		if resp, err := http.Get("http://" + addr + "/v1/agents"); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for _, a := range gjson.GetBytes(body, "agents").Array() {
				if a.Get("status").String() == "READY" {
					ready[a.Get("id").String()] = true
				}
			}
		}
		missing := 0
		for _, id := range ids {
			if !ready[id] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d of %d agents are not listed READY", missing, len(ids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkColdPaired times requests from a collab agent through a bridge
// in its own process (serve, heartbeat coldHeartbeat) to swarm agents: to
// one warm agent, and to coldAgents agents in turn, each of which has had
// no message for at least coldIdle when it gets its request (cold). The
// two alternate (warm, cold, cold, warm), every request after a pause of
// coldPause, so that both see the same machine and the same idle bridge.
// Every agent introduces itself with a swarm handshake when it connects.
// The first request to each cold agent is the first message the bridge
// sends it since it connected (first); the later ones come after it idled (idle). It reports
// the warm p50 and the first and idle p50s as ratios to it (first-x,
// idle-x), in µs and ratios; run with -count for rounds. The agents are
// on WebSockets (the sub-benchmark ws).
func BenchmarkColdPaired(b *testing.B) { b.Run("ws", benchCold) }

func benchCold(b *testing.B) {
	addr := spawnBridge(b, fmt.Sprintf("heartbeat: %s\n", coldHeartbeat))
	base := "ws://" + addr
	h := &hopClient{a: dialRaw(b, base+"/ws/collab?agent=collab-req")}
	ids := make([]string, coldAgents)
	for i := range ids {
		ids[i] = fmt.Sprintf("cold-%03d", i)
		c := dialRaw(b, base+"/ws/swarm?agent="+ids[i])
		// Each introduces itself, as a swarm agent does: a handshake with
		// its tool.
		hello := `{"message_id":"hello-` + ids[i] + `","message_type":"handshake_request","sender_id":"` + ids[i] + `","receiver_id":null,` +
			`"timestamp":"2026-11-25T10:00:00Z","correlation_id":null,"priority":"normal",` +
			`"payload":{"agent_id":"` + ids[i] + `","agent_name":"` + ids[i] + `","agent_role":"worker","tools":["build_report"],"version":"1.0.0"}}`
		if err := c.Write(context.Background(), websocket.MessageText, []byte(hello)); err != nil {
			b.Fatal(err)
		}
		go swarmResponderAs(c, ids[i])
	}
	go swarmResponderAs(dialRaw(b, base+"/ws/swarm?agent=warm-agent"), "warm-agent")
	awaitListed(b, addr, append([]string{"collab-req", "warm-agent"}, ids...))
	for range 50 {
		_, reply, err := h.roundTripTo("warm-agent")
		if err != nil {
			b.Fatal(err)
		}
		checkAnswer(b, reply)
	}
	time.Sleep(coldIdle) // the requester and the bridge settle: nothing but heartbeats
	var warm, first, idle []time.Duration
	used := make([]time.Time, coldAgents)
	next := 0
	for i := 0; b.Loop(); i++ {
		to, k := "warm-agent", -1
		if j := i % 4; j == 1 || j == 2 {
			k = next % coldAgents
			next++
			to = ids[k]
			if !used[k].IsZero() {
				if d := coldIdle - time.Since(used[k]); d > 0 {
					time.Sleep(d)
				}
			}
		}
		time.Sleep(coldPause)
		d, reply, err := h.roundTripTo(to)
		if err != nil {
			b.Fatal(err)
		}
		// An if chain, not a tagless switch: Go 1.26.8's escape analysis
		// fails on this one (internal compiler error in b.Loop's body).
		if k < 0 {
			warm = append(warm, d)
		} else if used[k].IsZero() {
			first = append(first, d)
		} else {
			idle = append(idle, d)
		}
		if k >= 0 {
			checkAnswer(b, reply)
			used[k] = time.Now()
		}
	}
	b.StopTimer()
	if len(warm) == 0 {
		return
	}
	w := float64(percentile(warm, 50))
	b.ReportMetric(w/1e3, "warm-p50-µs")
	if len(first) > 0 {
		b.ReportMetric(float64(percentile(first, 50))/1e3, "first-p50-µs")
		b.ReportMetric(float64(percentile(first, 50))/w, "first-x")
	}
	if len(idle) > 0 {
		b.ReportMetric(float64(percentile(idle, 50))/1e3, "idle-p50-µs")
		b.ReportMetric(float64(percentile(idle, 50))/w, "idle-x")
		b.ReportMetric(float64(percentile(idle, 90))/float64(percentile(warm, 90)), "idle-p90-x")
	}
}
