package delivery

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// promptLink records how each message reached it: "now:" for SendNow, by
// the caller's goroutine, "sent:" for Send, by the writer's. While backlog
// is set, SendNow reports it kept something, and Flush clears it. Send
// waits at gate when it is not nil.
type promptLink struct {
	mu      sync.Mutex
	got     []string
	backlog bool
	busy    bool // SendNow answers ErrBusy, taking nothing
	flushed chan struct{}
	gate    chan struct{}
}

func (l *promptLink) record(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, s)
}

func (l *promptLink) Send(ctx context.Context, out Outbound) error {
	if l.gate != nil {
		<-l.gate
	}
	l.record("sent:" + string(out.Frame))
	return nil
}

func (l *promptLink) SendNow(out Outbound) (bool, error) {
	l.mu.Lock()
	busy := l.busy
	l.mu.Unlock()
	if busy {
		return false, ErrBusy
	}
	l.record("now:" + string(out.Frame))
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.backlog, nil
}

func (l *promptLink) Flush(context.Context) error {
	l.mu.Lock()
	l.backlog = false
	l.mu.Unlock()
	l.flushed <- struct{}{}
	return nil
}

func (l *promptLink) Transport() string { return "test" }

func (l *promptLink) Abort() {}

func (l *promptLink) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// TestPromptItems: a prompt item that finds nothing waiting is handed to the
// link by Put itself, and told sent before Put returns; one that finds
// messages waiting (or the item is not prompt) goes after them through the
// writer, in order; what a prompt send leaves is flushed by the writer.
func TestPromptItems(t *testing.T) {
	l := &promptLink{flushed: make(chan struct{}, 1), gate: make(chan struct{})}
	q, _ := newTestQueue(t, l, 10, 100, 5*time.Second)
	put := func(frame string, prompt bool) (sent *bool) {
		t.Helper()
		done := false
		if err := q.Put(&Item{Out: Outbound{Frame: []byte(frame)}, Level: NormalLevel, Prompt: prompt, Notify: told{sent: func() { done = true }}}); err != nil {
			t.Fatal(err)
		}
		return &done
	}
	if sent := put("a", true); !*sent {
		t.Fatal("a prompt item on an idle queue was not sent by Put")
	}
	// A plain item goes to the writer, which waits at the gate; the prompt
	// ones after it must wait their turn.
	put("b", false)
	put("c", true)
	put("d", true)
	close(l.gate)
	waitFor(t, func() bool { return len(l.messages()) == 4 })
	want := []string{"now:a", "sent:b", "sent:c", "sent:d"}
	if got := l.messages(); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}

	// A prompt send that leaves a backlog: the writer flushes it, and the
	// next prompt item goes through the writer until it has.
	l.mu.Lock()
	l.backlog = true
	l.mu.Unlock()
	put("e", true)
	select {
	case <-l.flushed:
	case <-time.After(5 * time.Second):
		t.Fatal("the backlog was never flushed")
	}
	// Once the writer is done flushing (it lets go of the link).
	waitFor(t, func() bool { return linkFree(q) })
	if sent := put("f", true); !*sent {
		t.Fatal("after the flush, a prompt item was not sent by Put")
	}
	if got := l.messages(); got[len(got)-2] != "now:e" || got[len(got)-1] != "now:f" {
		t.Fatalf("got %q", got)
	}
}

// TestPromptBacklogHoldsLaterItems: while a prompt send's backlog waits for
// the writer, later prompt items queue behind it rather than being sent
// past it.
func TestPromptBacklogHoldsLaterItems(t *testing.T) {
	l := &promptLink{flushed: make(chan struct{})} // Flush waits until the test reads
	l.backlog = true
	q, _ := newTestQueue(t, l, 10, 100, 5*time.Second)
	if err := q.Put(&Item{Out: Outbound{Frame: []byte("a")}, Level: NormalLevel, Prompt: true}); err != nil {
		t.Fatal(err)
	}
	// The writer is now flushing (blocked sending on flushed).
	if err := q.Put(&Item{Out: Outbound{Frame: []byte("b")}, Level: NormalLevel, Prompt: true}); err != nil {
		t.Fatal(err)
	}
	<-l.flushed
	waitFor(t, func() bool { return len(l.messages()) == 2 })
	if got, want := l.messages(), []string{"now:a", "sent:b"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestPromptBusy: a prompt item the link cannot take at once (ErrBusy) is
// not lost and does not wait in Put: the writer sends it, before what was
// put after it, and its sender is told it was sent.
func TestPromptBusy(t *testing.T) {
	l := &promptLink{flushed: make(chan struct{}, 1), gate: make(chan struct{}), busy: true}
	q, _ := newTestQueue(t, l, 10, 100, 5*time.Second)
	var sent sync.WaitGroup
	for _, frame := range []string{"a", "b"} {
		sent.Add(1)
		if err := q.Put(&Item{Out: Outbound{Frame: []byte(frame)}, Level: NormalLevel, Prompt: true, Notify: told{sent: sent.Done}}); err != nil {
			t.Fatal(err)
		}
	}
	// Put has returned with the writer held at the gate: nothing waited.
	if got := l.messages(); len(got) != 0 {
		t.Fatalf("a busy link took %q", got)
	}
	close(l.gate)
	sent.Wait()
	if got, want := l.messages(), []string{"sent:a", "sent:b"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Once the link is free again, prompt items go straight to it.
	l.mu.Lock()
	l.busy = false
	l.mu.Unlock()
	waitFor(t, func() bool { return q.Len() == 0 && linkFree(q) })
	done := false
	if err := q.Put(&Item{Out: Outbound{Frame: []byte("c")}, Level: NormalLevel, Prompt: true, Notify: told{sent: func() { done = true }}}); err != nil {
		t.Fatal(err)
	}
	if !done || l.messages()[2] != "now:c" {
		t.Fatalf("after the link was free: sent %v, %q", done, l.messages())
	}
}

// linkFree reports whether nobody is handing q's link a message.
func linkFree(q *Queue) bool {
	if !q.sendMu.TryLock() {
		return false
	}
	q.sendMu.Unlock()
	return true
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// holdLink is a promptLink that can hold messages back (Holder).
type holdLink struct{ promptLink }

func (l *holdLink) Hold(_ context.Context, out Outbound) error {
	l.record("held:" + string(out.Frame))
	return nil
}

// TestHoldBurst: a writer with more messages waiting holds each but the
// last, which the link writes with them.
func TestHoldBurst(t *testing.T) {
	l := &holdLink{promptLink{gate: make(chan struct{})}}
	q, _ := newTestQueue(t, l, 10, 100, 5*time.Second)
	put := func(f string) {
		t.Helper()
		if err := q.Put(&Item{Out: Outbound{Frame: []byte(f)}, Level: NormalLevel}); err != nil {
			t.Fatal(err)
		}
	}
	// The writer takes a alone, and waits at the gate sending it.
	put("a")
	waitFor(t, func() bool { return q.Len() == 0 })
	put("b")
	put("c")
	put("d")
	close(l.gate)
	waitFor(t, func() bool { return len(l.messages()) == 4 })
	if got, want := l.messages(), []string{"sent:a", "held:b", "held:c", "sent:d"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// quickLink takes every message at once, by Send or SendNow, counting
// them.
type quickLink struct {
	mu  sync.Mutex
	got map[string]int
}

func (l *quickLink) take(out Outbound) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got[string(out.Frame)]++
}

func (l *quickLink) Send(_ context.Context, out Outbound) error { l.take(out); return nil }
func (l *quickLink) SendNow(out Outbound) (bool, error)         { l.take(out); return false, nil }
func (l *quickLink) Flush(context.Context) error                { return nil }
func (l *quickLink) Transport() string                          { return "test" }
func (l *quickLink) Abort()                                     {}

// TestPromptAndWriterTogether: prompt sends by several goroutines mixed
// with the writer's sends deliver every message once, and none is told it
// failed (a prompt send that starts as the writer finishes one must not
// look like a send the watchdog stopped).
func TestPromptAndWriterTogether(t *testing.T) {
	l := &quickLink{got: map[string]int{}}
	q, _ := newTestQueue(t, l, 100000, 100000, time.Minute)
	var failed, sent sync.WaitGroup
	var failures []error
	var mu sync.Mutex
	const producers, each = 4, 5000
	sent.Add(producers * each)
	for p := range producers {
		failed.Go(func() {
			for i := range each {
				it := &Item{Out: Outbound{Frame: []byte{byte(p), byte(i >> 8), byte(i)}}, Level: NormalLevel, Prompt: i%3 != 0,
					Notify: told{sent: sent.Done, failed: func(reason error) {
						mu.Lock()
						failures = append(failures, reason)
						mu.Unlock()
						sent.Done()
					}}}
				if err := q.Put(it); err != nil {
					t.Error(err)
					sent.Done()
				}
			}
		})
	}
	failed.Wait()
	sent.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d messages failed, the first: %v", len(failures), failures[0])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.got) != producers*each {
		t.Fatalf("%d distinct messages delivered, want %d", len(l.got), producers*each)
	}
	for f, n := range l.got {
		if n != 1 {
			t.Fatalf("%v delivered %d times", []byte(f), n)
		}
	}
}

// TestHoldThenExpired: a message held for the next is written (flushed)
// when the next one expired before its turn, not left with the link.
func TestHoldThenExpired(t *testing.T) {
	l := &holdLink{promptLink{gate: make(chan struct{}), flushed: make(chan struct{}, 1)}}
	q, _ := newTestQueue(t, l, 10, 100, 5*time.Second)
	put := func(f string, expires time.Time) {
		t.Helper()
		if err := q.Put(&Item{Out: Outbound{Frame: []byte(f)}, Level: NormalLevel, Expires: expires}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", time.Time{})
	waitFor(t, func() bool { return q.Len() == 0 }) // the writer has a, at the gate
	put("b", time.Time{})
	put("c", time.Now().Add(-time.Second)) // expired: dropped at its turn
	close(l.gate)
	select {
	case <-l.flushed:
	case <-time.After(5 * time.Second):
		t.Fatalf("b was held and never flushed: %q", l.messages())
	}
	if got, want := l.messages(), []string{"sent:a", "held:b"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// told is a Notifier of two functions, either nil to ignore what it would
// be told.
type told struct {
	sent   func()
	failed func(error)
}

func (t told) Sent(*Item) {
	if t.sent != nil {
		t.sent()
	}
}

func (t told) Failed(_ *Item, reason error) {
	if t.failed != nil {
		t.failed(reason)
	}
}
