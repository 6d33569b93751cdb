package delivery

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// newTestQueue returns a queue of l bounded to limit, with a budget of
// budget messages, whose writes may block for writeTimeout; it is closed
// when the test ends.
func newTestQueue(t *testing.T, l Link, limit, budget int, writeTimeout time.Duration) (*Queue, *Watchdog) {
	t.Helper()
	w := NewWatchdog(writeTimeout)
	t.Cleanup(w.Stop)
	q := NewQueue(l, QueueOptions{Limit: limit, Budget: NewBudget(budget), Watchdog: w})
	t.Cleanup(q.Close)
	return q, w
}

// putTracked queues frame on q and returns where its failure is told.
func putTracked(t *testing.T, q *Queue, frame string) <-chan error {
	t.Helper()
	failed := make(chan error, 1)
	if err := q.Put(&Item{Out: Outbound{Frame: []byte(frame)}, Level: NormalLevel, Failed: func(reason error) { failed <- reason }}); err != nil {
		t.Fatal(err)
	}
	return failed
}

// TestQueueOrder: the highest level first, first in first out within a
// level; the bound refuses past it except CRITICAL and forced messages; an
// expired message is never delivered.
func TestQueueOrder(t *testing.T) {
	g := &gate{open: make(chan struct{}), got: make(chan string, 16)}
	q, _ := newTestQueue(t, g, 4, 100, 5*time.Second)
	expired := make(chan error, 1)
	put := func(frame string, level int, force bool, expires time.Time) error {
		return q.Put(&Item{Out: Outbound{Frame: []byte(frame)}, Level: level, Force: force, Expires: expires,
			Failed: func(reason error) { expired <- reason }})
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The first is taken by the writer at once and waits at the gate; the
	// queue then holds up to 4.
	must(put("first", NormalLevel, false, time.Time{}))
	deadline := time.Now().Add(5 * time.Second)
	for q.Len() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	must(put("low-1", 1, false, time.Time{}))
	must(put("low-2", 1, false, time.Time{}))
	must(put("stale", NormalLevel, false, time.Now().Add(-time.Second)))
	must(put("high", 3, false, time.Time{}))
	if err := put("normal", NormalLevel, false, time.Time{}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("a fifth message: %v, want queue full", err)
	}
	must(put("critical", CriticalLevel, false, time.Time{})) // past the bound
	must(put("answer", NormalLevel, true, time.Time{}))      // the bridge's own: forced
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
	if reason := <-expired; !errors.Is(reason, ErrExpired) {
		t.Errorf("the stale message failed with %v, want expired", reason)
	}
}

// TestBudget: the budget bounds all queues together, forced messages too,
// and what a closed queue held is given back and fails as disconnected.
func TestBudget(t *testing.T) {
	g1 := &gate{open: make(chan struct{}), got: make(chan string, 8)}
	g2 := &gate{open: make(chan struct{}), got: make(chan string, 8)}
	// A short write timeout: closing a queue waits for its writer, which
	// is stuck at its gate until the watchdog stops it.
	w := NewWatchdog(50 * time.Millisecond)
	defer w.Stop()
	budget := NewBudget(3)
	q1 := NewQueue(g1, QueueOptions{Limit: 10, Budget: budget, Watchdog: w})
	q2 := NewQueue(g2, QueueOptions{Limit: 10, Budget: budget, Watchdog: w})
	defer q2.Close()
	var disconnected atomic.Int32
	put := func(q *Queue) error {
		return q.Put(&Item{Out: Outbound{Frame: []byte("x")}, Level: 1, Force: true, Failed: func(reason error) {
			if errors.Is(reason, ErrDisconnect) {
				disconnected.Add(1)
			}
		}})
	}
	// One each, taken by the writers, which then wait at their gates.
	for _, q := range []*Queue{q1, q2} {
		if err := put(q); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for (q1.Len() != 0 || q2.Len() != 0) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		if err := put(q1); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(q2); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("past the budget: %v, want queue full", err)
	}
	q1.Close()
	if got := budget.Len(); got != 0 {
		t.Errorf("budget holds %d after closing the queue that held all, want 0", got)
	}
	if err := put(q1); !errors.Is(err, ErrDisconnect) {
		t.Errorf("put on a closed queue: %v, want disconnected", err)
	}
	if n := disconnected.Load(); n != 3 {
		t.Errorf("%d messages failed as disconnected, want the 3 queued", n)
	}
	if err := put(q2); err != nil {
		t.Errorf("with the budget given back: %v", err)
	}
}

// TestWriteTimeout: a send that makes no progress is stopped once it has
// blocked for the write timeout, not before, and fails; the writer goes on
// with a fresh context.
func TestWriteTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	g := &gate{open: make(chan struct{}), got: make(chan string, 4)}
	q, _ := newTestQueue(t, g, 10, 100, timeout)
	start := time.Now()
	failed := putTracked(t, q, "stuck")
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
	next := putTracked(t, q, "next")
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
// timeout, and not aborted again when its queue closes.
func TestWriteTimeoutAborts(t *testing.T) {
	l := &abortable{aborted: make(chan struct{})}
	w := NewWatchdog(50 * time.Millisecond)
	defer w.Stop()
	q := NewQueue(l, QueueOptions{Limit: 10, Budget: NewBudget(10), Watchdog: w})
	select {
	case reason := <-putTracked(t, q, "stuck"):
		if !strings.Contains(reason.Error(), "write timeout") || !strings.Contains(reason.Error(), "connection closed") {
			t.Errorf("reason %q, want the write timeout and the link's error", reason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a blocked send was never aborted")
	}
	q.Close()
	if n := l.aborts.Load(); n != 1 {
		t.Errorf("aborted %d times, want once", n)
	}
	if l.cancelled.Load() {
		t.Error("a link that can be aborted was sent to under a context that can end")
	}
}

// TestWatchdogEnds: the watchdog's rounds go on while a writer runs after
// Stop, and end once the last writer has stopped.
func TestWatchdogEnds(t *testing.T) {
	g := &gate{open: make(chan struct{}), got: make(chan string, 1)}
	close(g.open)
	w := NewWatchdog(4 * time.Millisecond)
	q := NewQueue(g, QueueOptions{Limit: 10, Budget: NewBudget(10), Watchdog: w})
	if n := w.round(0); n != 1 {
		t.Fatalf("%d writers running, want 1", n)
	}
	w.Stop()
	select {
	case <-w.Ended():
		t.Fatal("the watchdog ended while a writer runs")
	case <-time.After(50 * time.Millisecond):
	}
	q.Close()
	if n := w.round(0); n != 0 {
		t.Fatalf("%d writers running after close, want 0", n)
	}
	select {
	case <-w.Ended():
	case <-time.After(10 * time.Second):
		t.Fatal("the watchdog still runs")
	}
}

// notes is a Notifier that records what it is told.
type notes struct{ told chan string }

func (n *notes) Sent(it *Item) { n.told <- "sent " + string(it.Out.Frame) }
func (n *notes) Failed(it *Item, reason error) {
	n.told <- "failed " + string(it.Out.Frame) + ": " + reason.Error()
}

// TestQueueNotify: an item's Notifier is told, with the item, whether it
// was sent or why it failed, in place of its Failed.
func TestQueueNotify(t *testing.T) {
	g := &gate{open: make(chan struct{}), got: make(chan string, 16)}
	close(g.open)
	q, _ := newTestQueue(t, g, 4, 100, 5*time.Second)
	n := &notes{told: make(chan string, 4)}
	failed := func(error) { t.Error("Failed was told, not Notify") }
	for _, tc := range []struct {
		frame   string
		expires time.Time
		want    string
	}{
		{"a", time.Time{}, "sent a"},
		{"b", time.Now().Add(-time.Second), "failed b: " + ErrExpired.Error()},
	} {
		if err := q.Put(&Item{Out: Outbound{Frame: []byte(tc.frame)}, Level: NormalLevel, Expires: tc.expires,
			Failed: failed, Notify: n}); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-n.told:
			if got != tc.want {
				t.Errorf("%s: told %q, want %q", tc.frame, got, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing told", tc.frame)
		}
	}
}
