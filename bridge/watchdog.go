package bridge

import (
	"context"
	"sync"
	"time"
)

// Write timeouts. A delivery may block at most the bridge's write timeout: a
// peer that stops reading must not hold its queue, or a shutdown, forever.
// Each outbox's writer sends under one long-lived context, which the
// watchdog cancels when it finds a send running past the timeout, and the
// link then gives up; a link that can be aborted (Aborter: a WebSocket link
// closes its connection) is aborted instead. A context with a deadline per
// send would cost a runtime timer set and stopped for every message,
// measurably slower on the hot path (README, "Through the live bridge"); the
// watchdog instead looks at every writer a few times per timeout, so a stuck
// send ends between one and 1.25 times the timeout.

// Aborter is implemented by links whose send in progress can be ended from
// outside (a WebSocket link closes its connection). The bridge sends on
// such a link under a context that never ends, which spares each send the
// registration of a cancellation, and aborts a send past the write timeout
// instead of cancelling its context.
type Aborter interface {
	Abort()
}

// stuckSend marks, in outbox.sending, a send the watchdog has stopped.
const stuckSend = -1

// watchdog holds the outboxes whose writers are running.
type watchdog struct {
	mu      sync.Mutex
	writers map[*outbox]struct{}
	ended   chan struct{} // closed when the rounds end
}

// add and remove register a writer for the watchdog's rounds.
func (w *watchdog) add(o *outbox) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writers == nil {
		w.writers = map[*outbox]struct{}{}
	}
	w.writers[o] = struct{}{}
}

func (w *watchdog) remove(o *outbox) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.writers, o)
}

// round stops the sends that began before cutoff (unix nanoseconds) and
// reports how many writers are running.
func (w *watchdog) round(cutoff int64) int {
	w.mu.Lock()
	outs := make([]*outbox, 0, len(w.writers))
	for o := range w.writers {
		outs = append(outs, o)
	}
	w.mu.Unlock()
	for _, o := range outs {
		o.overdue(cutoff)
	}
	return len(outs)
}

// watchWrites starts the watchdog's rounds, every quarter of the write
// timeout (at most a second apart). They end once the bridge has shut
// down and every writer has stopped. Like the heartbeats, the rounds sleep
// outside the runtime's timers.
func (b *Bridge) watchWrites() {
	every := min(max(b.writeTimeout/4, time.Millisecond), time.Second)
	b.writers.ended = make(chan struct{})
	go func() {
		defer close(b.writers.ended)
		for {
			sleepOutsideRuntime(every)
			running := b.writers.round(time.Now().Add(-b.writeTimeout).UnixNano())
			select {
			case <-b.stopped:
				if running == 0 {
					return
				}
			default:
			}
		}
	}()
}

// sendContext returns the context for the writer's sends and the function
// that releases it, and sets what the watchdog calls to stop a send: the
// context's cancellation, or the link's Abort.
func (o *outbox) sendContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	var stop func()
	if a, ok := o.s.link.(Aborter); ok {
		stop = a.Abort
	} else {
		ctx, cancel = context.WithCancel(ctx)
		stop = cancel
	}
	o.mu.Lock()
	o.stopSend = stop
	o.mu.Unlock()
	return ctx, cancel
}

// overdue stops the send in progress if it began before cutoff.
func (o *outbox) overdue(cutoff int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t := o.sending.Load(); t > 0 && t < cutoff && o.sending.CompareAndSwap(t, stuckSend) {
		o.stopSend()
	}
}

// sendDone ends the send that began at start, and reports whether the
// watchdog stopped it: the writer then needs a fresh context.
func (o *outbox) sendDone(start int64) (stopped bool) {
	if o.sending.CompareAndSwap(start, 0) {
		return false
	}
	o.sending.Store(0)
	return true
}
