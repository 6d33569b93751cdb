package delivery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Item is one message waiting in a queue.
type Item struct {
	Out   Outbound
	Level int
	// Expires is when the message stops being worth delivering (its ttl or
	// deadline, or its request's timeout); zero is never. An expired
	// message is dropped, never delivered.
	Expires time.Time
	// Failed is told when the link refuses the message, or it expires or
	// is dropped; nil ignores it.
	Failed func(reason error)
	// Notify, when set, is told what became of the message (sent, or why
	// not) in place of Failed: for a caller that keeps what it has to tell
	// in the object its item is part of, rather than in closures of its
	// own.
	Notify Notifier
	// Force queues it past the queue's own bound (the bridge's own
	// answers, answers to the party's requests).
	Force bool
	// Prompt lets Put deliver it in the caller's goroutine when nothing is
	// waiting and the link can take it without waiting on the peer
	// (Prompt): for a caller with nothing else to do.
	Prompt bool
}

// Notifier is told what became of an item (Item.Notify).
type Notifier interface {
	// Sent is told when the link took the item.
	Sent(it *Item)
	// Failed is told why the item was not delivered.
	Failed(it *Item, reason error)
}

// Fail tells the item's Notify or Failed handler, if any, why it was not
// delivered.
func (it *Item) Fail(reason error) {
	switch {
	case it.Notify != nil:
		it.Notify.Failed(it, reason)
	case it.Failed != nil:
		it.Failed(reason)
	}
}

// sent tells the item's Notify, if any, that the link took it.
func (it *Item) sent() {
	if it.Notify != nil {
		it.Notify.Sent(it)
	}
}

// Reasons a queued message was not delivered.
var (
	ErrExpired    = errors.New("expired while queued")
	ErrQueueFull  = errors.New("queue full")
	ErrDisconnect = errors.New("the agent disconnected")
)

// ErrBusy is a Prompt link's answer to SendNow while a write the queue did
// not make may be waiting on the peer; the queue's writer sends the message
// instead.
var ErrBusy = errors.New("the link is busy with a write that may wait on its peer")

// Budget bounds the messages all queues hold together. The zero value
// holds nothing; NewBudget gives one a bound.
type Budget struct {
	limit  int64
	queued atomic.Int64
}

// NewBudget returns a budget of limit messages.
func NewBudget(limit int) *Budget { return &Budget{limit: int64(limit)} }

// reserve counts one more message, or reports that the bound is reached.
func (b *Budget) reserve() bool {
	if b.queued.Add(1) > b.limit {
		b.queued.Add(-1)
		return false
	}
	return true
}

func (b *Budget) release(n int) { b.queued.Add(-int64(n)) }

// force counts one more message, past the bound if need be.
func (b *Budget) force() { b.queued.Add(1) }

// Len returns how many messages the budget's queues hold.
func (b *Budget) Len() int { return int(b.queued.Load()) }

// Limit returns the budget's bound.
func (b *Budget) Limit() int { return int(b.limit) }

// QueueOptions configure a Queue.
type QueueOptions struct {
	// Limit bounds the messages waiting in this queue (CRITICAL and forced
	// ones excepted); Budget bounds them across queues. Both are required.
	Limit  int
	Budget *Budget
	// Watchdog stops sends that block past its timeout; required.
	Watchdog *Watchdog
	// Length is told the queue's length whenever it changes; nil ignores it.
	Length func(n int)
	// Expired is told of each message dropped because it expired; nil
	// ignores it.
	Expired func()
}

// Queue is one connection's outbound queue: the highest priority level
// first, first in first out within a level (so per sender too). One writer
// goroutine hands the messages to the link, so a slow receiver holds up only
// its own queue. The writer starts with the first message it has to write:
// a connection that is never sent anything costs no goroutine. Once
// started it stays, parked while the queue is empty, so that a busy
// connection does not start a goroutine (and grow its stack) for every
// message, until Rest lets it go (the heartbeat asks once a round, so a
// busy connection starts one writer a round at most): an idle connection
// costs no goroutine either. A prompt item (Item.Prompt) that finds nothing waiting, on a
// link that never waits on the peer (Prompt), is delivered by Put itself;
// what the link then keeps, the writer flushes. An idle queue holds no
// more than its own fields: its lines are made with the first message
// queued, the writer's channels with the writer, and both are let go
// when the writer goes.
type Queue struct {
	link Link
	opt  QueueOptions
	mu   sync.Mutex
	q    *[Levels][]*Item // nil until a message is queued, and once the writer went
	n    int              // queued, all levels
	// wake wakes the writer; done is closed when it has stopped for good
	// (Close). Both are made when the writer starts, and are nil while
	// none runs (and until the queue is closed).
	wake chan struct{}
	done chan struct{}
	// started is set while the writer runs; rest once Rest lets it go,
	// until the queue is next empty or used.
	started, rest bool
	// closed is set once the writer is told to stop; what is queued then
	// fails with ErrDisconnect.
	closed bool
	// sending is when the send in progress began (unix nanoseconds), 0
	// when none is, stuckSend once the watchdog stopped it; stopSend
	// stops it when the link cannot be aborted (watchdog.go, stopper).
	sending  atomic.Int64
	stopSend func()
	// prompt is the link as a Prompt, nil if it is none. sendMu is held
	// by whoever hands the link a message (the writer, or Put for a
	// prompt item), so that messages reach it one at a time, in order;
	// flush is set when a prompt send left something for the writer.
	prompt Prompt
	sendMu sync.Mutex
	flush  bool
	// holder is the link as a Holder, nil if it is none.
	holder Holder
}

// NewQueue returns the queue of link; its writer starts with the first
// message.
func NewQueue(link Link, opt QueueOptions) *Queue {
	q := &Queue{link: link, opt: opt}
	q.prompt, _ = link.(Prompt)
	q.holder, _ = link.(Holder)
	opt.Watchdog.add(q)
	return q
}

// Put queues it. A full queue (its own bound, or the budget) refuses it
// with ErrQueueFull: the caller answers the sender with a retryable error
// rather than the bridge growing without bound. A closed queue refuses it
// with ErrDisconnect.
func (q *Queue) Put(it *Item) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrDisconnect
	}
	if it.Prompt && q.prompt != nil && q.n == 0 && !q.flush && q.sendMu.TryLock() {
		q.mu.Unlock()
		q.sendNow(it)
		return nil
	}
	if it.Level != CriticalLevel && !it.Force && q.n >= q.opt.Limit {
		q.mu.Unlock()
		return ErrQueueFull
	}
	if !q.opt.Budget.reserve() {
		q.mu.Unlock()
		return ErrQueueFull
	}
	lines := q.lines()
	lines[it.Level] = append(lines[it.Level], it)
	q.n++
	n := q.n
	start, wake, done := q.wantWriter()
	q.mu.Unlock()
	q.length(n)
	q.wakeWriter(start, wake, done)
	return nil
}

// lines returns the queue's lines, making them; q.mu is held.
func (q *Queue) lines() *[Levels][]*Item {
	if q.q == nil {
		q.q = new([Levels][]*Item)
	}
	return q.q
}

// wantWriter notes that the writer has work (q.mu is held): it reports
// whether it must be started, which the caller does once q.mu is
// released (wakeWriter), and the writer's channels, made when it starts.
func (q *Queue) wantWriter() (start bool, wake, done chan struct{}) {
	start = !q.started
	q.started, q.rest = true, false
	if start {
		q.wake, q.done = make(chan struct{}, 1), make(chan struct{})
	}
	return start, q.wake, q.done
}

// wakeWriter starts the writer with its channels if start is set
// (wantWriter said so), and wakes it otherwise.
func (q *Queue) wakeWriter(start bool, wake, done chan struct{}) {
	if start {
		go q.write(wake, done)
		return
	}
	select {
	case wake <- struct{}{}:
	default:
	}
}

// sendNow hands the link the prompt item it in the caller's goroutine,
// and has the writer flush what the link kept; sendMu is held, and is
// released.
func (q *Queue) sendNow(it *Item) {
	if q.dropExpired(it) {
		return
	}
	start := time.Now().UnixNano()
	q.sending.Store(start)
	backlog, err := q.prompt.SendNow(it.Out)
	if errors.Is(err, ErrBusy) {
		q.sendDone(start)
		q.requeue(it)
		return
	}
	if q.sendDone(start) && err != nil {
		err = q.stuck(err)
	}
	if backlog && err == nil {
		q.mu.Lock()
		closed := q.closed
		var start bool
		var wake, done chan struct{}
		if !closed {
			q.flush = true
			start, wake, done = q.wantWriter()
		}
		q.mu.Unlock()
		if !closed {
			q.wakeWriter(start, wake, done)
		}
	}
	q.sendMu.Unlock()
	if err != nil {
		it.Fail(err)
	} else {
		it.sent()
	}
}

// requeue puts it, which the link could not take at once (ErrBusy), first
// in line for the writer and wakes it; sendMu is held, and is released
// once it is queued, so that the writer finds it before anything put
// after it.
func (q *Queue) requeue(it *Item) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		q.sendMu.Unlock()
		it.Fail(ErrDisconnect)
		return
	}
	q.opt.Budget.force() // it was accepted: no bound refuses it now
	lines := q.lines()
	lines[it.Level] = append([]*Item{it}, lines[it.Level]...)
	q.n++
	n := q.n
	start, wake, done := q.wantWriter()
	q.mu.Unlock()
	q.sendMu.Unlock()
	q.length(n)
	q.wakeWriter(start, wake, done)
}

// Limit returns the queue's own bound.
func (q *Queue) Limit() int { return q.opt.Limit }

// Len returns how many messages wait.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

func (q *Queue) length(n int) {
	if q.opt.Length != nil {
		q.opt.Length(n)
	}
}

// dropExpired reports whether it expired before it could be sent; if so it
// lets go of sendMu, which is held, and fails it.
func (q *Queue) dropExpired(it *Item) bool {
	if it.Expires.IsZero() || !time.Now().After(it.Expires) {
		return false
	}
	q.sendMu.Unlock()
	if q.opt.Expired != nil {
		q.opt.Expired()
	}
	it.Fail(ErrExpired)
	return true
}

// flushLink runs flush (what the link kept or held) as a send the watchdog
// watches, lets go of sendMu, which is held, and reports whether the
// watchdog stopped it. A failed flush has lost the connection, which its
// reader sees.
func (q *Queue) flushLink(ctx context.Context, flush func(context.Context) error) (stopped bool) {
	start := time.Now().UnixNano()
	q.sending.Store(start)
	_ = flush(ctx)
	stopped = q.sendDone(start)
	q.sendMu.Unlock()
	return stopped
}

// stuck is the error of a send the watchdog stopped, which failed with err.
func (q *Queue) stuck(err error) error {
	return fmt.Errorf("no progress within the write timeout of %s: %w", q.opt.Watchdog.timeout, err)
}

// takeFlush reports whether a prompt send left something for the writer
// to flush, and clears that.
func (q *Queue) takeFlush() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := q.flush
	q.flush = false
	return f && !q.closed
}

// take removes the next item: the oldest of the highest level; more says
// whether others wait after it.
func (q *Queue) take() (it *Item, more, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for l := Levels - 1; l >= 0 && q.q != nil; l-- {
		if len(q.q[l]) == 0 {
			continue
		}
		it := q.q[l][0]
		q.q[l][0] = nil
		q.q[l] = q.q[l][1:]
		if len(q.q[l]) == 0 {
			q.q[l] = nil // let the backing array go
		}
		q.n--
		q.opt.Budget.release(1)
		q.length(q.n)
		return it, q.n > 0, true
	}
	return nil, false, false
}

// Rest lets the writer go once the queue is empty: the next message
// starts another.
func (q *Queue) Rest() {
	q.mu.Lock()
	if !q.started || q.closed {
		q.mu.Unlock()
		return
	}
	q.rest = true
	wake := q.wake
	q.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default:
	}
}

// write delivers until the queue is closed, closing done then, or Rest
// lets it go; wake wakes it.
func (q *Queue) write(wake, done chan struct{}) {
	ctx, release := q.sendContext()
	defer func() { release() }()
	held := false // the link holds a message for the next
	for {
		q.sendMu.Lock()
		var flush func(context.Context) error
		if q.takeFlush() {
			flush = q.prompt.Flush // only a prompt send sets it
		}
		var it *Item
		var more, ok bool
		if flush == nil {
			it, more, ok = q.take()
			if !ok && held {
				// What was held waited for messages that expired.
				flush = q.holder.Flush
			}
		}
		if flush != nil {
			held = false
			if q.flushLink(ctx, flush) {
				release()
				ctx, release = q.sendContext()
			}
			continue
		}
		if !ok {
			q.sendMu.Unlock()
			q.mu.Lock()
			closed := q.closed
			rest := !closed && q.rest && q.n == 0 && !q.flush
			if rest {
				// Put starts another writer, with channels of its
				// own, from now on; Close finishes without this one.
				q.started, q.rest = false, false
				q.q, q.wake, q.done = nil, nil, nil
			}
			q.mu.Unlock()
			if closed {
				q.opt.Watchdog.remove(q)
				close(done)
				return
			}
			if rest {
				return
			}
			<-wake
			continue
		}
		if q.dropExpired(it) {
			continue
		}
		start := time.Now().UnixNano()
		q.sending.Store(start)
		var err error
		if held = more && q.holder != nil; held {
			err = q.holder.Hold(ctx, it.Out)
		} else {
			err = q.link.Send(ctx, it.Out)
		}
		// Before sendMu goes: a prompt send may set sending next.
		stopped := q.sendDone(start)
		q.sendMu.Unlock()
		if stopped {
			release()
			ctx, release = q.sendContext()
			if err != nil {
				err = q.stuck(err)
			}
		}
		if err != nil {
			it.Fail(err)
		} else {
			it.sent()
		}
	}
}

// Close stops the writer after what it is writing; every message still
// queued fails with ErrDisconnect. It waits for the writer to finish.
func (q *Queue) Close() {
	q.mu.Lock()
	if q.closed {
		done := q.done
		q.mu.Unlock()
		<-done
		return
	}
	q.closed = true
	started := q.started
	var left []*Item
	if q.q != nil {
		for l := range q.q {
			left = append(left, q.q[l]...)
		}
		q.q = nil
	}
	q.opt.Budget.release(len(left))
	q.n = 0
	if !started {
		// No writer to close it: a later Close waits on it too.
		q.done = make(chan struct{})
		close(q.done)
	}
	wake, done := q.wake, q.done
	q.mu.Unlock()
	q.length(0)
	if !started {
		q.opt.Watchdog.remove(q)
	}
	select {
	case wake <- struct{}{}:
	default:
	}
	<-done
	for _, it := range left {
		it.Fail(ErrDisconnect)
	}
}
