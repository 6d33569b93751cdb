package bridge

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// levels is the number of canonical priority levels (BATCH 0 .. CRITICAL 4).
const levels = 5

// normalLevel is the level of a message that sets no priority.
const normalLevel = 2

// criticalLevel messages bypass the queue's bound and go first.
const criticalLevel = 4

// delivery is one message waiting in an outbox.
type delivery struct {
	out   Outbound
	level int
	// expires is when the message stops being worth delivering (its ttl or
	// deadline, or its request's timeout); zero is never. An expired
	// message is dropped, never delivered.
	expires time.Time
	// failed is told when the link refuses the message, or it expires or
	// is dropped; nil ignores it.
	failed func(reason error)
	// sent is told when the link took the message.
	sent func()
	// force queues it past the agent's bound (the bridge's own answers).
	force bool
}

// Reasons a queued delivery did not happen.
var (
	errExpired    = errors.New("expired while queued")
	errQueueFull  = errors.New("queue full")
	errDisconnect = errors.New("the agent disconnected")
)

// outbox is a session's outbound queue: the highest priority level first,
// first in first out within a level (so per sender too). One writer
// goroutine hands the messages to the link, so a slow receiver holds up
// only its own queue.
type outbox struct {
	b     *Bridge
	s     *Session
	mu    sync.Mutex
	q     [levels][]*delivery
	n     int // queued, all levels
	limit int
	wake  chan struct{}
	done  chan struct{}
	// closed is set once the writer is told to stop; what is queued then
	// fails with errDisconnect.
	closed bool
	// sending is when the send in progress began (unix nanoseconds), 0
	// when none is, stuckSend once the watchdog stopped it; stopSend
	// stops it (watchdog.go).
	sending  atomic.Int64
	stopSend func()
}

func newOutbox(b *Bridge, s *Session) *outbox {
	o := &outbox{b: b, s: s, limit: b.queuePerAgent, wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.writers.add(o)
	go o.write()
	return o
}

// put queues d. A full queue (this agent's bound, or the bridge's overall
// one) refuses it: the caller answers the sender with a retryable error
// rather than the bridge growing without bound. CRITICAL messages are not
// held to the agent's bound.
func (o *outbox) put(d *delivery) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return errDisconnect
	}
	if d.level != criticalLevel && !d.force && o.n >= o.limit {
		o.mu.Unlock()
		return errQueueFull
	}
	if !o.b.reserve() {
		o.mu.Unlock()
		return errQueueFull
	}
	o.q[d.level] = append(o.q[d.level], d)
	o.n++
	n := o.n
	o.mu.Unlock()
	o.b.metrics.queued(o.s, n)
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return nil
}

// len returns how many messages wait.
func (o *outbox) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// take removes the next delivery: the oldest of the highest level.
func (o *outbox) take() (*delivery, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for l := levels - 1; l >= 0; l-- {
		if len(o.q[l]) == 0 {
			continue
		}
		d := o.q[l][0]
		o.q[l][0] = nil
		o.q[l] = o.q[l][1:]
		if len(o.q[l]) == 0 {
			o.q[l] = nil // let the backing array go
		}
		o.n--
		o.b.release()
		o.b.metrics.queued(o.s, o.n)
		return d, true
	}
	return nil, false
}

// write delivers until the outbox is closed.
func (o *outbox) write() {
	defer close(o.done)
	defer o.b.writers.remove(o)
	ctx, release := o.sendContext()
	defer func() { release() }()
	for {
		d, ok := o.take()
		if !ok {
			o.mu.Lock()
			closed := o.closed
			o.mu.Unlock()
			if closed {
				return
			}
			<-o.wake
			continue
		}
		if !d.expires.IsZero() && time.Now().After(d.expires) {
			o.b.metrics.expired.Inc()
			d.fail(errExpired)
			continue
		}
		start := time.Now().UnixNano()
		o.sending.Store(start)
		err := o.s.link.Send(ctx, d.out)
		if o.sendDone(start) {
			release()
			ctx, release = o.sendContext()
			err = fmt.Errorf("no progress within the write timeout of %s: %w", o.b.writeTimeout, err)
		}
		switch {
		case err != nil:
			d.fail(err)
		case d.sent != nil:
			d.sent()
		}
	}
}

// close stops the writer after what it is writing; every message still
// queued fails with errDisconnect. It waits for the writer to finish.
func (o *outbox) close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		<-o.done
		return
	}
	o.closed = true
	var left []*delivery
	for l := range o.q {
		left = append(left, o.q[l]...)
		o.q[l] = nil
	}
	for range left {
		o.b.release()
	}
	o.n = 0
	o.mu.Unlock()
	o.b.metrics.queued(o.s, 0)
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.done
	for _, d := range left {
		d.fail(errDisconnect)
	}
}

func (d *delivery) fail(reason error) {
	if d.failed != nil {
		d.failed(reason)
	}
}

// levelOf returns the queue level of a priority; unset is NORMAL.
func levelOf(p canonical.Priority) int {
	if p == 0 {
		return normalLevel
	}
	return p.Level()
}

// reserve counts one more queued message against the bridge's overall
// bound, or reports that the bound is reached.
func (b *Bridge) reserve() bool {
	if b.queued.Add(1) > int64(b.queueTotal) {
		b.queued.Add(-1)
		return false
	}
	return true
}

func (b *Bridge) release() { b.queued.Add(-1) }
