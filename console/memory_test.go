package console_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestMemoryBounded: a flood of large messages through a bridge whose
// console watches grows the heap only up to what the console keeps (its
// latest ui.traffic messages, each frame cut at ui.frame_limit).
func TestMemoryBounded(t *testing.T) {
	h := start(t, func(c *config.Config) { c.UI.Traffic = 100 })
	h.runAgent("swarm", "sink")
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws://"+h.addr+"/ws/swarm?agent=flood", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	pad := strings.Repeat("x", 60<<10)
	sent := 0
	notify := func(event, text string) {
		t.Helper()
		sent++
		frame := fmt.Sprintf(`{"message_id":"n-%d","message_type":"notification","sender_id":"flood","receiver_id":"sink",`+
			`"timestamp":"2026-01-10T14:30:00Z","correlation_id":null,"payload":{"event_type":%q,"data":{"text":%q}}}`, sent, event, text)
		if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	flood := func(n int) uint64 {
		for range n {
			notify("load", pad)
		}
		end := fmt.Sprintf("end-%d", sent)
		notify(end, "")
		h.until("the console to see "+end, func() bool {
			var l trafficList
			h.getJSON("/ui/api/traffic?act=event&agent=flood", &l)
			return len(l.Messages) > 0 && l.Messages[len(l.Messages)-1].Operation == end
		})
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	first := flood(300) // fills the console's 100
	second := flood(600)
	third := flood(600)
	const slack = 8 << 20
	t.Logf("heap after 300: %d MB, +600: %d MB, +600: %d MB (each 600 is %d MB of messages)", first>>20, second>>20, third>>20, (600*len(pad))>>20)
	if third > first+slack || second > first+slack {
		t.Errorf("the heap kept growing: %d, %d, %d bytes", first, second, third)
	}
}
