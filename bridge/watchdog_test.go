package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// newTimedBridge returns a bridge whose deliveries may block for at most
// writeTimeout.
func newTimedBridge(t *testing.T, writeTimeout time.Duration) *Bridge {
	t.Helper()
	b, err := New(Options{Registry: builtin.Default(), Mappings: mappings.MustDefaults(), WriteTimeout: writeTimeout,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Heartbeat: -1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// putTracked queues frame on s and returns where its failure is told.
func putTracked(t *testing.T, s *Session, frame string) <-chan error {
	t.Helper()
	failed := make(chan error, 1)
	if err := s.out.put(&delivery{out: Outbound{Frame: []byte(frame)}, level: normalLevel, failed: func(reason error) { failed <- reason }}); err != nil {
		t.Fatal(err)
	}
	return failed
}

// TestWriteTimeout: a send that makes no progress is stopped once it has
// blocked for the write timeout, not before, and fails; the writer goes on
// with a fresh context.
func TestWriteTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	b := newTimedBridge(t, timeout)
	g := &gate{open: make(chan struct{}), got: make(chan string, 4)}
	s, err := b.Attach(g, AttachOptions{Dialect: "swarm", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Detach()
	start := time.Now()
	failed := putTracked(t, s, "stuck")
	select {
	case reason := <-failed:
		if took := time.Since(start); took < timeout {
			t.Errorf("stopped after %s, before the write timeout of %s", took, timeout)
		}
		if !errors.Is(reason, context.Canceled) || !strings.Contains(reason.Error(), "write timeout of 100ms") {
			t.Errorf("reason %q, want the write timeout and context.Canceled", reason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a blocked send was never stopped")
	}
	close(g.open)
	next := putTracked(t, s, "next")
	select {
	case got := <-g.got:
		if got != "next" {
			t.Fatalf("delivered %q, want next", got)
		}
	case reason := <-next:
		t.Fatalf("the next message failed: %v", reason)
	case <-time.After(10 * time.Second):
		t.Fatal("the next message was never delivered")
	}
}

// abortable is a link whose Send blocks until it is aborted, as a
// WebSocket write to a peer that stopped reading does until its connection
// is closed.
type abortable struct {
	aborted   chan struct{}
	aborts    atomic.Int32
	cancelled atomic.Bool // a send got a context that could end
}

func (l *abortable) Send(ctx context.Context, _ Outbound) error {
	if ctx.Done() != nil {
		l.cancelled.Store(true)
	}
	<-l.aborted
	return errors.New("connection closed")
}

func (l *abortable) Abort() {
	if l.aborts.Add(1) == 1 {
		close(l.aborted)
	}
}

func (l *abortable) Transport() string { return "test" }

// TestWriteTimeoutAborts: a link that can be aborted is sent to under a
// context that never ends, aborted once its send blocks past the write
// timeout, and not aborted again when its session ends.
func TestWriteTimeoutAborts(t *testing.T) {
	b := newTimedBridge(t, 50*time.Millisecond)
	l := &abortable{aborted: make(chan struct{})}
	s, err := b.Attach(l, AttachOptions{Dialect: "swarm", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case reason := <-putTracked(t, s, "stuck"):
		if !strings.Contains(reason.Error(), "write timeout") || !strings.Contains(reason.Error(), "connection closed") {
			t.Errorf("reason %q, want the write timeout and the link's error", reason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a blocked send was never aborted")
	}
	s.Detach()
	if n := l.aborts.Load(); n != 1 {
		t.Errorf("aborted %d times, want once", n)
	}
	if l.cancelled.Load() {
		t.Error("a link that can be aborted was sent to under a context that can end")
	}
}

// TestWatchdogEnds: the watchdog's rounds stop once the bridge has shut
// down and its writers have stopped.
func TestWatchdogEnds(t *testing.T) {
	b := newTimedBridge(t, 4*time.Millisecond)
	g := &gate{open: make(chan struct{}), got: make(chan string, 1)}
	close(g.open)
	s, err := b.Attach(g, AttachOptions{Dialect: "swarm", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.writers.round(0); n != 1 {
		t.Fatalf("%d writers running, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	s.Detach()
	if n := b.writers.round(0); n != 0 {
		t.Fatalf("%d writers running after shutdown, want 0", n)
	}
	select {
	case <-b.writers.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the watchdog still runs")
	}
}
