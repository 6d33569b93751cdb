package delivery

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/sleep"
)

// Write timeouts. A delivery may block at most the write timeout: a peer
// that stops reading must not hold its queue, or a shutdown, forever. Each
// queue's writer sends under one long-lived context, which the watchdog
// cancels when it finds a send running past the timeout, and the link then
// gives up; a link that can be aborted (Aborter: a WebSocket link closes its
// connection) is aborted instead. A context with a deadline per send would
// cost a runtime timer set and stopped for every message, measurably slower
// on the hot path (docs/performance.md, "Where the time goes"); the watchdog instead
// looks at every writer a few times per timeout, so a stuck send ends
// between one and 1.25 times the timeout.

// stuckSend marks, in Queue.sending, a send the watchdog has stopped.
const stuckSend = -1

// Watchdog stops the sends of its queues that run past its timeout.
type Watchdog struct {
	timeout time.Duration
	mu      sync.Mutex
	writers map[*Queue]struct{}
	stop    chan struct{} // closed by Stop
	ended   chan struct{} // closed when the rounds end
}

// NewWatchdog starts a watchdog whose rounds run every quarter of timeout
// (at most a second apart), sleeping outside the runtime's timers, until
// Stop is called and every writer has stopped.
func NewWatchdog(timeout time.Duration) *Watchdog {
	w := &Watchdog{timeout: timeout, writers: map[*Queue]struct{}{}, stop: make(chan struct{}), ended: make(chan struct{})}
	every := min(max(timeout/4, time.Millisecond), time.Second)
	go func() {
		defer close(w.ended)
		for {
			sleep.OutsideRuntime(every)
			running := w.round(time.Now().Add(-timeout).UnixNano())
			select {
			case <-w.stop:
				if running == 0 {
					return
				}
			default:
			}
		}
	}()
	return w
}

// Stop ends the rounds once no writer is running. Ended is closed then.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
}

// Ended is closed when the watchdog's rounds have ended.
func (w *Watchdog) Ended() <-chan struct{} { return w.ended }

// add and remove register a writer for the watchdog's rounds.
func (w *Watchdog) add(q *Queue) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writers[q] = struct{}{}
}

func (w *Watchdog) remove(q *Queue) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.writers, q)
}

// round stops the sends that began before cutoff (unix nanoseconds) and
// reports how many writers are running.
func (w *Watchdog) round(cutoff int64) int {
	w.mu.Lock()
	qs := make([]*Queue, 0, len(w.writers))
	for q := range w.writers {
		qs = append(qs, q)
	}
	w.mu.Unlock()
	for _, q := range qs {
		q.overdue(cutoff)
	}
	return len(qs)
}

// sendContext returns the context for the writer's sends and the function
// that releases it, and sets what the watchdog calls to stop a send: the
// context's cancellation, or the link's Abort.
func (q *Queue) sendContext() (context.Context, context.CancelFunc) {
	if _, ok := q.link.(Aborter); ok {
		// The watchdog aborts the link (stopper).
		return context.Background(), func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	q.mu.Lock()
	q.stopSend = cancel
	q.mu.Unlock()
	return ctx, cancel
}

// stopper returns what stops a send in progress: the link's Abort where
// it has one (taken when asked, not kept: a method value kept for every
// queue is a closure each, 32 bytes an idle agent), else the writer's
// context's cancellation, nil until the writer has made it; q.mu is held.
func (q *Queue) stopper() func() {
	if q.stopSend != nil {
		return q.stopSend
	}
	if a, ok := q.link.(Aborter); ok {
		return a.Abort
	}
	return nil
}

// overdue stops the send in progress if it began before cutoff.
func (q *Queue) overdue(cutoff int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.sending.Load(); t > 0 && t < cutoff {
		if stop := q.stopper(); stop != nil && q.sending.CompareAndSwap(t, stuckSend) {
			stop()
		}
	}
}

// sendDone ends the send that began at start, and reports whether the
// watchdog stopped it: the writer then needs a fresh context.
func (q *Queue) sendDone(start int64) (stopped bool) {
	if q.sending.CompareAndSwap(start, 0) {
		return false
	}
	q.sending.Store(0)
	return true
}
