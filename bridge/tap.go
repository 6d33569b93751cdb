package bridge

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Taps: observers of the traffic (the web console's traffic view). The
// hooks are where a message is received (received), copied on its way
// (tapCopy), delivered or not (Session.deliver, call.deliver) and refused
// (Session.refuseFrame, call.refuse). With no tap, each costs one atomic
// load; with taps, a hook hands each tap's goroutine one event without
// waiting, and a tap whose buffer is full loses it (counted).

// TrafficKind says what became of a message.
type TrafficKind uint8

// The kinds of Traffic.
const (
	// TrafficDelivered: the receiver's connection took the message.
	TrafficDelivered TrafficKind = iota + 1
	// TrafficRefused: the bridge refused the message and answered its
	// sender with an error.
	TrafficRefused
	// TrafficFailed: the message was queued but never delivered (it
	// expired, the connection failed or closed, a write timed out).
	TrafficFailed
	// TrafficDropped: a mapping's act policy dropped the message, as the
	// receiver's dialect cannot express its act.
	TrafficDropped
)

func (k TrafficKind) String() string {
	switch k {
	case TrafficDelivered:
		return "delivered"
	case TrafficRefused:
		return "refused"
	case TrafficFailed:
		return "failed"
	case TrafficDropped:
		return "dropped"
	}
	return "unknown"
}

// Traffic is one message as the bridge handled it, for a Tap.
type Traffic struct {
	Kind TrafficKind
	// Time is when the message was delivered, refused, failed or dropped.
	// Latency is the time from its frame's arrival to then; 0 when the
	// bridge does not remember the arrival (a message the bridge made, one
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
	// API, an arrival the bridge no longer remembers). ReceivedSize and
	// DeliveredSize are their whole lengths.
	Received, Delivered         []byte
	ReceivedSize, DeliveredSize int
	// Losses are what the receiver's dialect could not hold, held only
	// approximately, or had to fill in.
	Losses []TrafficLoss
}

// TrafficLoss is one entry of a translation's loss report.
type TrafficLoss struct {
	Kind    string `json:"kind"` // dropped, approximated or filled
	Concept string `json:"concept"`
	Field   string `json:"field"`
	// Message says what happened; it quotes the value, except where the
	// value may be secret.
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// TapOptions configure a Tap.
type TapOptions struct {
	// Buffer is how many messages may wait for the tap's function
	// (default 256); those that come while it is full are dropped.
	Buffer int
	// FrameLimit is how much of each frame the tap keeps, in bytes
	// (default 64 KiB).
	FrameLimit int
}

// The defaults of TapOptions.
const (
	DefaultTapBuffer     = 256
	DefaultTapFrameLimit = 64 << 10
)

// recentArrivals is how many arrivals the bridge remembers for its taps,
// to pair the frame as received with the frame as delivered.
const recentArrivals = 256

// Tap is an observer of the bridge's traffic (Bridge.Tap).
type Tap struct {
	b          *Bridge
	fn         func(Traffic)
	events     chan *tapEvent
	frameLimit int
	dropped    atomic.Uint64
	quit       chan struct{}
	done       chan struct{}
	once       sync.Once
}

// Tap calls fn with every message the bridge delivers, refuses, fails to
// deliver or drops from now on, until Stop. fn runs in a goroutine of the
// tap's own, one message at a time: up to o.Buffer messages wait for it,
// and those that come while they are full are dropped and counted
// (Dropped), so that a slow fn never holds up the bridge. Messages that
// pass through another instance of a cluster are not seen.
func (b *Bridge) Tap(fn func(Traffic), o TapOptions) *Tap {
	if o.Buffer <= 0 {
		o.Buffer = DefaultTapBuffer
	}
	if o.FrameLimit <= 0 {
		o.FrameLimit = DefaultTapFrameLimit
	}
	t := &Tap{b: b, fn: fn, events: make(chan *tapEvent, o.Buffer), frameLimit: o.FrameLimit,
		quit: make(chan struct{}), done: make(chan struct{})}
	b.tapMu.Lock()
	next := &tapSet{}
	if cur := b.taps.Load(); cur != nil {
		next.taps = append(next.taps, cur.taps...)
		next.recent = cur.recent
	} else {
		next.recent = &arrivals{by: map[weak.Pointer[canonical.Envelope]]*arrival{}}
	}
	next.taps = append(next.taps, t)
	for _, x := range next.taps {
		next.frameLimit = max(next.frameLimit, x.frameLimit)
	}
	b.taps.Store(next)
	b.tapMu.Unlock()
	go t.run()
	return t
}

// Stop ends the tap: fn is not called once Stop has returned. It must not
// be called from fn.
func (t *Tap) Stop() {
	t.once.Do(func() {
		b := t.b
		b.tapMu.Lock()
		if cur := b.taps.Load(); cur != nil {
			next := &tapSet{recent: cur.recent}
			for _, x := range cur.taps {
				if x != t {
					next.taps = append(next.taps, x)
					next.frameLimit = max(next.frameLimit, x.frameLimit)
				}
			}
			if len(next.taps) == 0 {
				next = nil
			}
			b.taps.Store(next)
		}
		b.tapMu.Unlock()
		close(t.quit)
	})
	<-t.done
}

// Dropped returns how many messages the tap lost because its buffer was
// full.
func (t *Tap) Dropped() uint64 { return t.dropped.Load() }

func (t *Tap) run() {
	defer close(t.done)
	for {
		select {
		case <-t.quit:
			return
		case ev := <-t.events:
			t.fn(t.traffic(ev))
		}
	}
}

// traffic renders an event for the tap's function: its frames redacted
// and clipped.
func (t *Tap) traffic(ev *tapEvent) Traffic {
	tr := ev.Traffic
	tr.Received, tr.ReceivedSize = t.frame(ev.in)
	tr.Delivered, tr.DeliveredSize = t.frame(ev.out)
	return tr
}

// lossReport puts losses in words, at once: a loss's text is made from
// the envelope it was found in, which its deliverer may reuse once the
// message is encoded.
func (b *Bridge) lossReport(losses []dialects.Loss) []TrafficLoss {
	if len(losses) == 0 {
		return nil
	}
	out := make([]TrafficLoss, 0, len(losses))
	for _, l := range losses {
		tl := TrafficLoss{Kind: l.Kind.String(), Concept: l.Concept.String(), Field: l.Path, Hint: l.Hint}
		if b.secretLoss(l) {
			tl.Message = l.Kind.String() + " " + l.Path + " (its value is not shown: it may be secret)"
		} else {
			tl.Message = l.Message()
		}
		out = append(out, tl)
	}
	return out
}

// frame returns f redacted and clipped to the tap's limit, and f's whole
// length.
func (t *Tap) frame(f clipped) ([]byte, int) {
	if f.data == nil {
		return nil, 0
	}
	data := f.data
	if !f.redacted {
		data = t.b.redactor.redactFrame(data)
	}
	if len(data) > t.frameLimit {
		data = data[:t.frameLimit]
	}
	return data, f.size
}

// secretLoss reports whether the text of a loss may quote a secret: an
// authentication value, or a member named like a credential.
func (b *Bridge) secretLoss(l dialects.Loss) bool {
	if l.Concept == canonical.CAuthentication || l.Concept == canonical.CInputs {
		return true
	}
	for _, seg := range strings.FieldsFunc(l.Path, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		if b.redactor.secret(seg) {
			return true
		}
	}
	return false
}

// tapSet is the taps at one time; the bridge swaps it whole.
type tapSet struct {
	taps       []*Tap
	recent     *arrivals
	frameLimit int
}

// tapEvent is one message for the taps, before rendering.
type tapEvent struct {
	Traffic
	in, out clipped
}

// clipped is a frame kept up to the taps' limit: a frame that fits is
// referenced (frames are never modified once read or written), a larger
// one redacted at once (only a whole frame is JSON to redact) and copied
// in part, so that the taps never hold a large frame alive.
type clipped struct {
	data     []byte
	size     int
	redacted bool
}

func (b *Bridge) clip(frame []byte, limit int) clipped {
	if frame == nil {
		return clipped{}
	}
	if len(frame) <= limit {
		return clipped{data: frame, size: len(frame)}
	}
	r := b.redactor.redactFrame(frame)
	return clipped{data: append([]byte(nil), r[:min(limit, len(r))]...), size: len(frame), redacted: true}
}

// emit hands ev to every tap, dropping it for those that are full.
func (ts *tapSet) emit(ev *tapEvent) {
	for _, t := range ts.taps {
		select {
		case t.events <- ev:
		default:
			t.dropped.Add(1)
		}
	}
}

// arrivals are the envelopes received lately and their frames, by weak
// pointer (an envelope forgotten elsewhere is not kept alive here), in a
// ring of recentArrivals.
type arrivals struct {
	mu   sync.Mutex
	by   map[weak.Pointer[canonical.Envelope]]*arrival
	ring [recentArrivals]weak.Pointer[canonical.Envelope]
	next int
}

// arrival is when and how a message arrived.
type arrival struct {
	at      time.Time
	frame   clipped
	dialect string
}

func (r *arrivals) add(env *canonical.Envelope, a *arrival) {
	k := weak.Make(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.by[k]; ok {
		r.by[k] = a
		return
	}
	delete(r.by, r.ring[r.next])
	r.ring[r.next] = k
	r.by[k] = a
	r.next = (r.next + 1) % recentArrivals
}

func (r *arrivals) get(env *canonical.Envelope) *arrival {
	if env == nil {
		return nil
	}
	k := weak.Make(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[k]
}

// tapArrived remembers env's arrival as frame, for the taps.
func (b *Bridge) tapArrived(env *canonical.Envelope, frame []byte, dialect string) {
	if ts := b.taps.Load(); ts != nil {
		ts.recent.add(env, &arrival{at: time.Now(), frame: b.clip(frame, ts.frameLimit), dialect: dialect})
	}
}

// tapCopy notes that to is a copy of env on its way (a request under its
// token, an answer in its requester's terms): it arrived as env did.
func (b *Bridge) tapCopy(env, to *canonical.Envelope) {
	if ts := b.taps.Load(); ts != nil {
		if a := ts.recent.get(env); a != nil {
			ts.recent.add(to, a)
		}
	}
}

// event starts the event of o's message, arrived as a (nil if not
// remembered), for the receiver to of dialect toDialect.
func event(kind TrafficKind, o *outgoing, a *arrival, to, toDialect string) *tapEvent {
	env := o.env
	ev := &tapEvent{Traffic: Traffic{Kind: kind, From: env.Sender.ID, FromDialect: env.Origin.Dialect, To: to, ToDialect: toDialect,
		Act: env.Act, Operation: opName(env.Operation), Outcome: env.Outcome, Error: errorCopy(env.Error), ByBridge: o.byBridge}}
	switch {
	case a != nil:
		ev.in, ev.FromDialect = a.frame, a.dialect
	case o.byBridge:
		ev.FromDialect = "bridge"
	case ev.FromDialect == "":
		ev.FromDialect = "call"
	}
	return ev
}

// errorCopy is a copy of e, which the taps read in their own goroutines.
func errorCopy(e *canonical.Error) *canonical.Error {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

// stamp sets the event's time, and its latency from the arrival a.
func (ev *tapEvent) stamp(a *arrival) {
	ev.Time = time.Now()
	if a != nil {
		ev.Latency = ev.Time.Sub(a.at)
	}
}

// tapped is a message queued for a session, to be told to the taps once
// it is delivered or has failed.
type tapped struct {
	b  *Bridge
	ev *tapEvent
	a  *arrival
}

// tapDelivery prepares the event of o's delivery to the agent to ("" for
// a connection that named none), of dialect, with the losses of its
// translation; nil when nobody taps.
func (b *Bridge) tapDelivery(o *outgoing, to, dialect string, losses []dialects.Loss) *tapped {
	ts := b.taps.Load()
	if ts == nil {
		return nil
	}
	arr := ts.recent.get(o.env)
	ev := event(TrafficDelivered, o, arr, to, dialect)
	ev.Losses = b.lossReport(losses)
	return &tapped{b: b, ev: ev, a: arr}
}

// delivered tells the taps the message went out as frame.
func (t *tapped) delivered(frame []byte) {
	if t == nil {
		return
	}
	if ts := t.b.taps.Load(); ts != nil {
		t.ev.stamp(t.a)
		t.ev.out = t.b.clip(frame, ts.frameLimit)
		ts.emit(t.ev)
	}
}

// failing returns the failure handler of a queued message: failed, which
// also tells the taps.
func (t *tapped) failing(failed func(error)) func(error) {
	if t == nil {
		return failed
	}
	return func(reason error) {
		if ts := t.b.taps.Load(); ts != nil {
			t.ev.Kind, t.ev.Reason = TrafficFailed, reason.Error()
			t.ev.stamp(t.a)
			ts.emit(t.ev)
		}
		if failed != nil {
			failed(reason)
		}
	}
}

// tapDropped tells the taps that a mapping policy dropped o's message
// for the agent to, of dialect, for the reason losses give.
func (b *Bridge) tapDropped(o *outgoing, to, dialect string, losses []dialects.Loss) {
	ts := b.taps.Load()
	if ts == nil {
		return
	}
	arr := ts.recent.get(o.env)
	ev := event(TrafficDropped, o, arr, to, dialect)
	ev.Losses = b.lossReport(losses)
	if len(ev.Losses) > 0 {
		ev.Reason = ev.Losses[0].Message
	}
	ev.stamp(arr)
	ts.emit(ev)
}

// tapCall tells the taps of a message delivered to a caller of the call
// API, sender.
func (b *Bridge) tapCall(o *outgoing, sender string) {
	ts := b.taps.Load()
	if ts == nil {
		return
	}
	arr := ts.recent.get(o.env)
	ev := event(TrafficDelivered, o, arr, sender, "call")
	ev.stamp(arr)
	ts.emit(ev)
}

// tapRefused tells the taps the bridge refused a message from source, of
// dialect, with e: frame is the message as it arrived when it was not
// decoded (env nil, or not yet remembered), reply the error sent back.
func (b *Bridge) tapRefused(frame []byte, env *canonical.Envelope, e *canonical.Error, source, dialect string, reply []byte) {
	ts := b.taps.Load()
	if ts == nil {
		return
	}
	ev := &tapEvent{Traffic: Traffic{Kind: TrafficRefused, From: source, FromDialect: dialect, Error: errorCopy(e)}}
	var arr *arrival
	if env != nil {
		arr = ts.recent.get(env)
		ev.Act, ev.Operation, ev.Outcome = env.Act, opName(env.Operation), env.Outcome
		if env.Receiver.Kind == canonical.AddressAgent {
			ev.To = env.Receiver.ID
		}
	}
	switch {
	case arr != nil:
		ev.in = arr.frame
	default:
		ev.in = b.clip(frame, ts.frameLimit)
	}
	ev.out = b.clip(reply, ts.frameLimit)
	ev.stamp(arr)
	ts.emit(ev)
}

// idOf returns a's id, "" for none.
func idOf(a *agent) string {
	if a == nil {
		return ""
	}
	return a.ID()
}
