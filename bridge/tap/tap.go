// Package tap shows the bridge's traffic to an observer (the web
// console's traffic view): each message as it was received and as it was
// delivered, refused, dropped or failed, with what its translation lost.
// A Tap is a subscriber of the core's event stream (package event) that
// hands what it sees to a goroutine of its own, so that a slow observer
// never holds up the bridge; with no tap, the bridge pays nothing for it.
package tap

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Kind says what became of a message.
type Kind uint8

// The kinds of Traffic.
const (
	// Delivered: the receiver's connection took the message.
	Delivered Kind = iota + 1
	// Refused: the bridge refused the message and answered its sender
	// with an error.
	Refused
	// Failed: the message was queued but never delivered (it expired,
	// the connection failed or closed, a write timed out).
	Failed
	// Dropped: a mapping's act policy dropped the message, as the
	// receiver's dialect cannot express its act.
	Dropped
)

func (k Kind) String() string {
	switch k {
	case Delivered:
		return "delivered"
	case Refused:
		return "refused"
	case Failed:
		return "failed"
	case Dropped:
		return "dropped"
	}
	return "unknown"
}

// Loss is one entry of a translation's loss report.
type Loss = event.Loss

// Traffic is one message as the bridge handled it.
type Traffic struct {
	Kind Kind
	// Time is when the message was delivered, refused, failed or dropped.
	// Latency is the time from its frame's arrival to then; 0 when the
	// tap does not remember the arrival (a message the bridge made, one
	// from the call API, a retry).
	Time    time.Time
	Latency time.Duration
	// From is the sending agent's canonical id ("unknown" for a refused
	// frame that named none) and FromDialect its dialect ("auto" for a
	// frame whose dialect could not be told, "call" for the call API,
	// "bridge" for the bridge's own messages).
	From, FromDialect string
	// To is the receiving agent's canonical id ("" for a connection that
	// named no agent) and ToDialect its dialect; for a refusal, To is the
	// agent the message was addressed to, if any.
	To, ToDialect string
	// Act is the message's act ("" for a frame that could not be decoded),
	// Operation its operation as mapping files spell it, Outcome its
	// outcome (answers).
	Act       canonical.Act
	Operation string
	Outcome   canonical.Outcome
	// Error is the error the message carries, or the one the bridge
	// refused it with.
	Error *canonical.Error
	// ByBridge marks a message the bridge made itself: an error on an
	// agent's behalf (a timeout), an accept, a handshake answer.
	ByBridge bool
	// Reason says why a failed message was not delivered, or why a
	// dropped one was dropped.
	Reason string
	// Received is the frame as it arrived and Delivered the frame as it
	// went out (for a refusal, the error sent back to the sender), each
	// with its secrets redacted as in the logs and clipped to the tap's
	// FrameLimit; nil when there is none (a link of envelopes, the call
	// API, an arrival the tap no longer remembers). ReceivedSize and
	// DeliveredSize are their whole lengths.
	Received, Delivered         []byte
	ReceivedSize, DeliveredSize int
	// Losses are what the receiver's dialect could not hold, held only
	// approximately, or had to fill in.
	Losses []Loss
}

// Options configure a Tap.
type Options struct {
	// Buffer is how many messages may wait for the tap's function
	// (default 256); those that come while it is full are dropped.
	Buffer int
	// FrameLimit is how much of each frame the tap keeps, in bytes
	// (default 64 KiB).
	FrameLimit int
}

// The defaults of Options.
const (
	DefaultBuffer     = 256
	DefaultFrameLimit = 64 << 10
)

// Source is what a tap watches: the bridge's event stream, and the
// redactor that knows its secrets.
type Source interface {
	Subscribe(s event.Subscriber) (stop func())
	Redactor() *redact.Redactor
}

// Tap is an observer of the bridge's traffic.
type Tap struct {
	fn         func(Traffic)
	red        *redact.Redactor
	events     chan *record
	frameLimit int
	dropped    atomic.Uint64
	quit       chan struct{}
	done       chan struct{}
	once       sync.Once
	unsub      func()

	recent arrivals
	// queued are the messages translated and queued, until they are
	// delivered or fail, by their event.Seq.
	mu     sync.Mutex
	queued map[uint64]*record
}

// Start calls fn with every message src's bridge delivers, refuses, fails
// to deliver or drops from now on, until Stop. fn runs in a goroutine of
// the tap's own, one message at a time: up to o.Buffer messages wait for
// it, and those that come while they are full are dropped and counted
// (Dropped). Messages that pass through another instance of a cluster are
// not seen.
func Start(src Source, fn func(Traffic), o Options) *Tap {
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.FrameLimit <= 0 {
		o.FrameLimit = DefaultFrameLimit
	}
	t := &Tap{fn: fn, red: src.Redactor(), events: make(chan *record, o.Buffer), frameLimit: o.FrameLimit,
		quit: make(chan struct{}), done: make(chan struct{}), queued: map[uint64]*record{}}
	t.recent.init()
	t.unsub = src.Subscribe(t)
	go t.run()
	return t
}

// Stop ends the tap: fn is not called once Stop has returned. It must not
// be called from fn.
func (t *Tap) Stop() {
	t.once.Do(func() {
		t.unsub()
		close(t.quit)
	})
	<-t.done
}

// Dropped returns how many messages the tap lost because its buffer was
// full.
func (t *Tap) Dropped() uint64 { return t.dropped.Load() }

// Waiting returns how many messages wait for the tap's function.
func (t *Tap) Waiting() int { return len(t.events) }

// Kinds picks the events a tap shows.
func (t *Tap) Kinds() event.Kinds {
	return event.KindsOf(event.Received, event.Copied, event.Translated, event.Delivered, event.Failed, event.Dropped, event.Refused)
}

// Wants asks the core for the copies of messages (to pair a message with
// its arrival), the loss reports, and the failures.
func (t *Tap) Wants() event.Want { return event.Copies | event.Reports | event.Failures }

func (t *Tap) run() {
	defer close(t.done)
	for {
		select {
		case <-t.quit:
			return
		case r := <-t.events:
			t.fn(t.traffic(r))
		}
	}
}

// traffic renders a record for the tap's function: its frames redacted
// and clipped.
func (t *Tap) traffic(r *record) Traffic {
	tr := r.Traffic
	tr.Received, tr.ReceivedSize = t.frame(r.in)
	tr.Delivered, tr.DeliveredSize = t.frame(r.out)
	return tr
}

// frame returns f redacted and clipped to the tap's limit, and f's whole
// length.
func (t *Tap) frame(f clipped) ([]byte, int) {
	if f.data == nil {
		return nil, 0
	}
	data := f.data
	if !f.redacted {
		data = t.red.Frame(data)
	}
	if len(data) > t.frameLimit {
		data = data[:t.frameLimit]
	}
	return data, f.size
}

// emit hands r to the tap's goroutine, dropping it when the buffer is
// full.
func (t *Tap) emit(r *record) {
	select {
	case t.events <- r:
	default:
		t.dropped.Add(1)
	}
}

// record is one message for the tap, before rendering.
type record struct {
	Traffic
	in, out clipped
	arrived *arrival
}

// clipped is a frame kept up to the tap's limit: a frame that fits is
// referenced (frames are never modified once read or written), a larger
// one redacted at once (only a whole frame is JSON to redact) and copied
// in part, so that the tap never holds a large frame alive.
type clipped struct {
	data     []byte
	size     int
	redacted bool
}

func (t *Tap) clip(frame []byte) clipped {
	if frame == nil {
		return clipped{}
	}
	if len(frame) <= t.frameLimit {
		return clipped{data: frame, size: len(frame)}
	}
	r := t.red.Frame(frame)
	return clipped{data: append([]byte(nil), r[:min(t.frameLimit, len(r))]...), size: len(frame), redacted: true}
}

// stamp sets the record's time, and its latency from its arrival.
func (r *record) stamp(at time.Time) {
	r.Time = at
	if r.arrived != nil {
		r.Latency = at.Sub(r.arrived.at)
	}
}

// errorCopy is a copy of e, which the tap reads in its own goroutine.
func errorCopy(e *canonical.Error) *canonical.Error {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}
