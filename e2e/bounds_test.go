package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestBounds: with small memory bounds and more traffic than they hold,
// the oldest entries go first and are counted, and every request still gets
// exactly one answer: the open request pushed out is answered unavailable,
// a repeated request whose answer was dropped is refused, a forgotten one
// is delivered again, and a recent one is answered from the first.
func TestBounds(t *testing.T) {
	cfg := config.Default()
	cfg.Memory = config.Memory{DedupeEntries: 20, DedupeAnswers: 1500, PendingRequests: 4, GOGC: 100}
	h := start(t, cfg)
	h.runAgent("swarm", "worker")
	c := h.dial("collab", requester("collab"))
	answers := func(n int) map[string]*canonical.Envelope {
		t.Helper()
		got := map[string]*canonical.Envelope{}
		for len(got) < n {
			env := answerOf(c)
			if got[env.InReplyTo] != nil {
				t.Fatalf("a second answer to %s: %s", env.InReplyTo, env.Act)
			}
			got[env.InReplyTo] = env
		}
		return got
	}

	// Six slow requests, four open at most: the two oldest are given up.
	for i := 1; i <= 6; i++ {
		c.send(c.encode(request("collab", "worker", "sleep", `{"ms":300}`, fmt.Sprint("slow-", i))))
	}
	for id, env := range answers(6) {
		evicted := id == "slow-1" || id == "slow-2"
		switch {
		case evicted && (env.Error == nil || env.Error.Code != canonical.ErrUnavailable || !strings.Contains(env.Error.Message, "too many open requests")):
			t.Errorf("%s, pushed out: %s %+v", id, env.Act, env.Error)
		case !evicted && env.Act != canonical.ActResult:
			t.Errorf("%s: %s %+v", id, env.Act, env.Error)
		}
	}
	if got := metricValue(t, h, `bridge_table_dropped_total{table="pending_requests"}`); got != 2 {
		t.Errorf("open requests dropped: %v, want 2", got)
	}
	// The agent's answers to the two given up come late; the count below
	// includes them, so they must have come.
	for deadline := time.Now().Add(wait); metricValue(t, h, "bridge_late_answers_total") < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the answers to the requests given up never came")
		}
	}

	// 25 quick ones: with the six above, the agent's declaration and the
	// late answers to the two given up, 34 messages for 20 entries.
	for i := 1; i <= 25; i++ {
		c.send(c.encode(request("collab", "worker", "echo", fmt.Sprintf(`{"text":"message %d of 25, padded to make its answer long enough that a few fill the bound"}`, i), fmt.Sprint("q-", i))))
		answers(1)
	}
	if got := metricValue(t, h, `bridge_table_dropped_total{table="dedupe_entries"}`); got != 14 {
		t.Errorf("dedupe entries dropped: %v, want 14", got)
	}
	if got := metricValue(t, h, `bridge_table_size{table="dedupe_entries"}`); got != 20 {
		t.Errorf("dedupe entries: %v, want the bound, 20", got)
	}
	if got := metricValue(t, h, `bridge_table_dropped_total{table="dedupe_answers"}`); got < 20 {
		t.Errorf("kept answers dropped: %v, want at least 20 of 25", got)
	}
	if got, limit := metricValue(t, h, `bridge_table_size{table="dedupe_answers"}`), metricValue(t, h, `bridge_table_limit{table="dedupe_answers"}`); got > limit || limit != 1500 {
		t.Errorf("kept answers: %v bytes of %v", got, limit)
	}
	resend := func(i int) *canonical.Envelope {
		c.send(c.encode(request("collab", "worker", "echo", fmt.Sprintf(`{"text":"message %d of 25, padded to make its answer long enough that a few fill the bound"}`, i), fmt.Sprint("q-", i))))
		return answers(1)[fmt.Sprint("q-", i)]
	}
	if env := resend(25); env == nil || env.Act != canonical.ActResult || !strings.Contains(string(env.Result), "message 25") {
		t.Errorf("the newest request sent again, its answer kept: %+v", env)
	}
	if env := resend(15); env == nil || env.Error == nil || env.Error.Code != canonical.ErrRejected {
		t.Errorf("a remembered request whose answer was dropped, sent again: %+v", env)
	}
	if env := resend(1); env == nil || env.Act != canonical.ActResult || !strings.Contains(string(env.Result), "message 1 ") {
		t.Errorf("a forgotten request sent again is delivered again: %+v", env)
	}
	if got := metricValue(t, h, "bridge_duplicates_total"); got != 2 {
		t.Errorf("duplicates %v, want 2 (q-25 and q-15)", got)
	}
}

// TestIdleAgents: 2,000 agents of all five dialects connect and stay
// idle; the bridge lists them all READY, and a request reaches any of
// them while the others sit there.
func TestIdleAgents(t *testing.T) {
	const n = 2000
	h := start(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conns := make([]*websocket.Conn, n)
	idleID := func(i int) string { return fmt.Sprintf("IDLE-%04d", i) }
	for i := range n {
		c, _, err := websocket.Dial(ctx, fmt.Sprintf("%s/ws/%s?agent=%s", h.wsURL(), dialectNames[i%len(dialectNames)], idleID(i)), nil)
		if err != nil {
			t.Fatalf("agent %d: %v", i, err)
		}
		t.Cleanup(func() { c.CloseNow() })
		conns[i] = c
	}
	deadline := time.Now().Add(wait)
	for {
		ready := 0
		for _, a := range h.srv.Bridge().Agents("") {
			if strings.HasPrefix(a.ID, "IDLE-") && a.Status == bridge.StatusReady {
				ready++
			}
		}
		if ready == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d idle agents READY", ready, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := metricValue(t, h, "bridge_connections"); got != n {
		t.Errorf("bridge_connections %v, want %d", got, n)
	}
	// One agent of each dialect, among the last connected, gets a
	// request from a collab requester, in its own dialect.
	c := h.dial("collab", requester("collab"))
	for k := range len(dialectNames) {
		i := n - 1 - k
		d := dialectNames[i%len(dialectNames)]
		c.send(c.encode(request("collab", idleID(i), "echo", `{"text":"wake up"}`, fmt.Sprint("wake-", i))))
		rctx, rcancel := context.WithTimeout(ctx, wait)
		_, frame, err := conns[i].Read(rctx)
		rcancel()
		if err != nil {
			t.Fatalf("%s (%s) got nothing: %v", idleID(i), d, err)
		}
		codec, _ := h.srv.Bridge().Registry().Lookup(d)
		env, err := codec.Decode(frame)
		if err != nil || env.Act != canonical.ActRequest || !strings.Contains(string(env.Arguments), "wake up") {
			t.Errorf("%s (%s) got %s (%v)", idleID(i), d, frame, err)
		}
	}
}
