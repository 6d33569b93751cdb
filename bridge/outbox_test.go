package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// gate is a link whose Send waits until the test opens it, recording what
// it was sent.
type gate struct {
	open chan struct{}
	got  chan string
}

func (g *gate) Send(ctx context.Context, out Outbound) error {
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.got <- string(out.Frame)
	return nil
}

func (g *gate) Transport() string { return "test" }

func TestOutbox(t *testing.T) {
	b, err := New(Options{Registry: builtin.Default(), Mappings: mappings.MustDefaults(), QueuePerAgent: 4,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Heartbeat: -1})
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{open: make(chan struct{}), got: make(chan string, 16)}
	s, err := b.Attach(g, AttachOptions{Dialect: "swarm", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Detach()
	expired := make(chan error, 1)
	put := func(frame string, level int, force bool, expires time.Time) error {
		d := &delivery{out: Outbound{Frame: []byte(frame)}, level: level, force: force, expires: expires,
			failed: func(reason error) { expired <- reason }}
		return s.out.put(d)
	}
	// The first is taken by the writer at once and waits at the gate; the
	// queue then holds up to 4.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(put("first", normalLevel, false, time.Time{}))
	deadline := time.Now().Add(5 * time.Second)
	for s.out.len() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	must(put("low-1", 1, false, time.Time{}))
	must(put("low-2", 1, false, time.Time{}))
	must(put("stale", normalLevel, false, time.Now().Add(-time.Second)))
	must(put("high", 3, false, time.Time{}))
	if err := put("normal", normalLevel, false, time.Time{}); !errors.Is(err, errQueueFull) {
		t.Fatalf("a fifth message: %v, want queue full", err)
	}
	must(put("critical", criticalLevel, false, time.Time{})) // past the bound
	must(put("answer", normalLevel, true, time.Time{}))      // the bridge's own: forced
	close(g.open)
	var order []string
	for range 6 {
		order = append(order, <-g.got)
	}
	want := []string{"first", "critical", "high", "answer", "low-1", "low-2"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("delivered %v, want %v", order, want)
		}
	}
	if reason := <-expired; !errors.Is(reason, errExpired) {
		t.Errorf("the stale message failed with %v, want expired", reason)
	}
}
