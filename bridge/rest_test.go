package bridge_test

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/bridgetest"
)

// writers counts the goroutines writing an agent's queue.
func writers() int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	n := 0
	for _, block := range bytes.Split(buf.Bytes(), []byte("\n\n")) {
		if !bytes.Contains(block, []byte("delivery.(*Queue).write")) {
			continue
		}
		for line := range bytes.Lines(block) {
			var count int
			if _, err := fmt.Sscanf(string(line), "%d @", &count); err == nil {
				n += count
				break
			}
		}
	}
	return n
}

// TestWritersRest: the writers a burst of messages started go once their
// queues are empty, within a couple of seconds and with the heartbeat off,
// so that agents gone quiet hold none; and the agents still get what is
// sent them afterwards.
func TestWritersRest(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{}) // heartbeat off
	const n = 20
	agents := make([]*bridgetest.Agent, n)
	for i := range agents {
		agents[i] = bridgetest.Attach(t, b, "swarm", fmt.Sprintf("quiet-%d", i), nil)
	}
	asker := bridgetest.Attach(t, b, "swarm", "asker", nil)
	send := func(round int) {
		t.Helper()
		for i, a := range agents {
			frame := fmt.Appendf(nil, `{"message_id":"m-%d-%d","message_type":"request","sender_id":"asker","receiver_id":"quiet-%d","timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"echo","arguments":{}}}`, round, i, i)
			if r := asker.Session.Receive(frame); r.Err != nil {
				t.Fatal(r.Err)
			}
			select {
			case <-a.Got:
			case <-time.After(5 * time.Second):
				t.Fatalf("quiet-%d got no request in round %d", i, round)
			}
		}
	}
	send(1)
	if w := writers(); w == 0 {
		t.Fatal("no queue writer after the burst: the test does not exercise what it should")
	}
	deadline := time.Now().Add(5 * time.Second)
	for writers() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d queue writers still run 5 s after their queues emptied", writers())
		}
		time.Sleep(20 * time.Millisecond)
	}
	send(2) // a writer starts again for the next message
}
