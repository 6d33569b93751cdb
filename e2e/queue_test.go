package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/tidwall/gjson"
)

// pad is the bulk of the flood messages: 64 KiB, so that a few dozen fill
// a loopback socket's buffers and the rest wait in the bridge's queue.
var pad = strings.Repeat("x", 64<<10)

// collabEvent is a collab PUBLISH of id to the agent to.
func collabEvent(c *client, to, id string, p canonical.Priority, ttl time.Duration, body string) []byte {
	env := &canonical.Envelope{Act: canonical.ActEvent, ID: id, Sender: canonical.Party{ID: c.id},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: to},
		Operation: canonical.Operation{Name: "tick"}, Arguments: canonical.JSON(`{"pad":"` + body + `"}`), Priority: p}
	if ttl > 0 {
		env.TTL = canonical.Dur(ttl)
	}
	return c.encode(env)
}

// drainIDs reads from a stalled consumer until it has seen until, returning
// the ids (message_id: the consumer speaks swarm) in arrival order.
func drainIDs(c *client, until string) []string {
	var ids []string
	for {
		id := gjson.GetBytes(c.recv(), "message_id").String()
		ids = append(ids, id)
		if id == until {
			return ids
		}
	}
}

// probe sends a request to the fuse agent and returns every message c
// received until its answer: what the bridge queued for c before it.
func probe(c *client, id string) [][]byte {
	c.t.Helper()
	c.send(c.encode(request("collab", responder("fuse"), "echo", `{}`, id)))
	var before [][]byte
	for {
		frame := c.recv()
		if gjson.GetBytes(frame, "header.correlationId").String() == id && gjson.GetBytes(frame, "body.status").String() == "SUCCESS" {
			return before
		}
		before = append(before, frame)
	}
}

// stallSetup starts a server (cfg's, with a minute's write timeout: the
// stalled agent must not be cut off), a fuse reference agent, a swarm agent
// STALLED that does not read until the test says, and a collab sender.
func stallSetup(t *testing.T, cfg *config.Config) (h *harness, stalled, sender *client) {
	t.Helper()
	cfg.WriteTimeout = time.Minute
	h = start(t, cfg)
	h.runAgent("fuse", responder("fuse"))
	return h, h.dial("swarm", "STALLED"), h.dial("collab", requester("collab"))
}

// TestSlowConsumer: an agent that stops reading holds up only its own
// queue; requests between other agents are answered meanwhile.
func TestSlowConsumer(t *testing.T) {
	_, stalled, a := stallSetup(t, config.Default())
	for i := range 300 {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("flood-%d", i), 0, 0, pad))
	}
	if refused := probe(a, "while-stalled"); len(refused) > 0 {
		t.Errorf("the flood was refused: %s", refused[0])
	}
	// The stalled agent then gets everything, in order.
	ids := drainIDs(stalled, "flood-299")
	if len(ids) != 300 || ids[0] != "flood-0" {
		t.Errorf("the stalled agent got %d messages, first %s", len(ids), ids[0])
	}
}

// TestSlowConsumerPrompt: a call through the call API (as the MCP face
// makes) to an agent whose queue is empty is written by the caller's
// goroutine, which must never wait on the agent's socket: calls to an
// agent that stopped reading go on returning at once after its socket is
// full (the rest waits in its queue), other agents' traffic carries on,
// and the stalled agent then gets every request, in order.
func TestSlowConsumerPrompt(t *testing.T) {
	h, stalled, a := stallSetup(t, config.Default())
	const n = 400 // 25 MiB: more than a loopback socket's buffers take
	calls := make(chan *bridge.Pending, n)
	go func() {
		defer close(calls)
		for i := range n {
			env := canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "caller"},
				Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "STALLED"},
				Operation: canonical.Operation{Name: "echo"}, Arguments: canonical.JSON(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, pad))}
			calls <- h.srv.Bridge().Go(context.Background(), env)
		}
	}()
	var pending []*bridge.Pending
	for range n {
		select {
		case p := <-calls:
			pending = append(pending, p)
		case <-time.After(wait):
			t.Fatalf("the call API waited on a stalled agent's socket after %d calls", len(pending))
		}
	}
	if refused := probe(a, "while-stalled"); len(refused) > 0 {
		t.Errorf("the probe came after %s", refused[0])
	}
	for i := range n {
		if got := gjson.GetBytes(stalled.recv(), "payload.arguments.n").Int(); got != int64(i) {
			t.Fatalf("request %d came as the %dth", got, i)
		}
	}
	for _, p := range pending {
		p.Cancel()
	}
}

// TestQueueFull: past its queue's bound a sender is refused with a
// retryable error in its dialect, and nothing accepted is lost.
func TestQueueFull(t *testing.T) {
	cfg := config.Default()
	cfg.QueuePerAgent = 8
	_, stalled, a := stallSetup(t, cfg)
	const n = 400
	for i := range n {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("f-%d", i), 0, 0, pad))
	}
	refused := map[string]bool{}
	for _, frame := range probe(a, "after-flood") {
		env := a.decode(frame)
		if env.Error == nil || env.Error.Code != canonical.ErrUnavailable || !strings.Contains(env.Error.Message, "queue is full") {
			t.Fatalf("flood answered with %s", frame)
		}
		refused[env.InReplyTo] = true
	}
	if len(refused) == 0 {
		t.Fatal("nothing was refused: the queue bound did not bite")
	}
	var accepted []string
	for i := range n {
		if id := fmt.Sprintf("f-%d", i); !refused[id] {
			accepted = append(accepted, id)
		}
	}
	var got []string
	for range accepted {
		got = append(got, gjson.GetBytes(stalled.recv(), "message_id").String())
	}
	if !slices.Equal(got, accepted) {
		t.Errorf("accepted %d, delivered otherwise (refused %d): %v", len(accepted), len(refused), firstDiff(got, accepted))
	}
	// The queue is empty now: the next message is the next delivered.
	a.send(collabEvent(a, "STALLED", "sentinel", 0, 0, "end"))
	if id := gjson.GetBytes(stalled.recv(), "message_id").String(); id != "sentinel" {
		t.Errorf("after the accepted ones came %s", id)
	}
	t.Logf("%d accepted, %d refused with queue full", len(accepted), len(refused))
}

// TestCriticalOvertakes: a CRITICAL message goes before a queued backlog
// of LOW ones, which keep their order.
func TestCriticalOvertakes(t *testing.T) {
	_, stalled, a := stallSetup(t, config.Default())
	const n = 300
	for i := range n {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("low-%d", i), canonical.PriorityLow, 0, pad))
	}
	probe(a, "queued") // the LOW backlog is queued now
	a.send(collabEvent(a, "STALLED", "critical", canonical.PriorityCritical, 0, "urgent"))
	probe(a, "queued-too")
	ids := drainIDs(stalled, fmt.Sprintf("low-%d", n-1))
	at := slices.Index(ids, "critical")
	if at < 0 {
		t.Fatalf("the critical message came after the whole backlog")
	}
	lows := slices.DeleteFunc(slices.Clone(ids), func(s string) bool { return s == "critical" })
	for i, id := range lows {
		if id != fmt.Sprintf("low-%d", i) {
			t.Fatalf("LOW order broken at %d: %s", i, id)
		}
	}
	t.Logf("critical delivered %d of %d (the rest of the backlog was still queued)", at+1, len(ids))
}

// TestExpiredNeverDelivered: messages whose ttl passes while queued are
// dropped, and counted.
func TestExpiredNeverDelivered(t *testing.T) {
	h, stalled, a := stallSetup(t, config.Default())
	for i := range 300 {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("fill-%d", i), 0, 0, pad))
	}
	for i := range 5 {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("short-%d", i), 0, time.Millisecond, "soon stale"))
	}
	a.send(collabEvent(a, "STALLED", "marker", 0, 0, "end"))
	probe(a, "all-queued")
	time.Sleep(20 * time.Millisecond) // past the 1 ms ttl before the consumer reads again
	for _, id := range drainIDs(stalled, "marker") {
		if strings.HasPrefix(id, "short-") {
			t.Errorf("expired message %s was delivered", id)
		}
	}
	resp, err := http.Get(h.httpURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "bridge_messages_expired_total 5") {
		t.Errorf("metrics: %s", grep(string(body), "expired"))
	}
}

// TestMemoryBounded: flooding a stalled agent grows the heap only up to
// its queue's bound.
func TestMemoryBounded(t *testing.T) {
	cfg := config.Default()
	cfg.QueuePerAgent = 50
	// The web console keeps the latest messages, up to a bound of its
	// own (console's TestMemoryBounded): this test weighs the queues.
	off := false
	cfg.UI.Enabled = &off
	_, _, a := stallSetup(t, cfg)
	sent := 0
	flood := func(n int) uint64 {
		for range n {
			sent++
			a.send(collabEvent(a, "STALLED", fmt.Sprintf("m-%d", sent), 0, 0, pad))
		}
		probe(a, fmt.Sprintf("p-%d", n))
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	first := flood(300) // fills the socket buffers and the queue
	second := flood(600)
	third := flood(600)
	const slack = 8 << 20
	t.Logf("heap after 300: %d MB, +600: %d MB, +600: %d MB (each 600 is %d MB of messages)", first>>20, second>>20, third>>20, (600*len(pad))>>20)
	if third > first+slack || second > first+slack {
		t.Errorf("the heap kept growing: %d, %d, %d bytes", first, second, third)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("position %d: %s vs %s", i, a[i], b[i])
		}
	}
	return "length"
}

// TestPriorityBoost: the answer to a HIGH request, sent without a
// priority, is raised to HIGH so that it does not wait behind the
// requester's NORMAL backlog (priority inversion, specs/collab.md 8.2).
func TestPriorityBoost(t *testing.T) {
	cfg := config.Default()
	cfg.WriteTimeout = time.Minute
	h := start(t, cfg)
	responder := h.dial("swarm", "swarm-agent")
	flooder := h.dial("swarm", requester("swarm"))
	busy := h.dial("collab", requester("collab")) // does not read until the end
	const n = 300
	for i := range n {
		flooder.send(flooder.encode(&canonical.Envelope{Act: canonical.ActEvent, ID: fmt.Sprintf("n-%d", i),
			Sender: canonical.Party{ID: requester("swarm")}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: requester("collab")},
			Operation: canonical.Operation{Name: "tick"}, Arguments: canonical.JSON(`{"pad":"` + pad + `"}`)}))
	}
	req := request("collab", "swarm-agent", "urgent_work", `{}`, "high-1")
	req.Priority = canonical.PriorityHigh
	busy.send(busy.encode(req))
	responder.send(answerAs(t, responder.recv(), "swarm-agent"))
	// Wait until the bridge has boosted the answer, then read.
	deadline := time.Now().Add(wait)
	for !strings.Contains(h.logs.String(), `"msg":"priority boost"`) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	at := -1
	for i := 0; i <= n; i++ {
		frame := busy.recv()
		if gjson.GetBytes(frame, "header.correlationId").String() == "high-1" {
			at = i
			break
		}
	}
	if at < 0 || at == n {
		t.Fatalf("the answer came after the whole backlog (at %d)", at)
	}
	t.Logf("the boosted answer arrived %d of %d (the rest of the backlog was still queued)", at+1, n+1)
}

// TestWriteTimeoutCutsOff: an agent that stops reading for longer than
// write_timeout, with a delivery blocked on it, is cut off: its connection
// is closed and its requester's open request is answered unavailable,
// while other agents carry on.
func TestWriteTimeoutCutsOff(t *testing.T) {
	cfg := config.Default()
	cfg.WriteTimeout = 300 * time.Millisecond
	h := start(t, cfg)
	h.runAgent("fuse", responder("fuse"))
	stalled := h.dial("swarm", "STALLED")
	a := h.dial("collab", requester("collab"))
	a.send(a.encode(request("collab", "STALLED", "echo", `{}`, "cut")))
	// Enough to fill the loopback socket's buffers: the bridge's write
	// then blocks.
	for i := range 300 {
		a.send(collabEvent(a, "STALLED", fmt.Sprintf("flood-%d", i), 0, 0, pad))
	}
	for {
		env := a.decode(a.recv())
		if env.InReplyTo != "cut" && env.CorrelationID != "cut" {
			continue
		}
		if env.Error == nil || env.Error.Code != canonical.ErrUnavailable {
			t.Fatalf("the request to the stalled agent got %s %+v, want unavailable", env.Act, env.Error)
		}
		break
	}
	// Its connection was closed: reading what was buffered ends in an
	// error, not in a wait.
	for {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		_, _, err := stalled.c.Read(ctx)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("the stalled agent's connection is still open")
			}
			break
		}
	}
	// Other agents carry on. Events that reached the bridge after the cut
	// are answered unavailable.
	for _, frame := range probe(a, "after-cut") {
		env := a.decode(frame)
		if env.Error == nil || env.Error.Code != canonical.ErrUnavailable || !strings.HasPrefix(env.InReplyTo+env.CorrelationID, "flood-") {
			t.Errorf("before the probe's answer: %s", frame)
		}
	}
}
