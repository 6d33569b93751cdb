package event

import (
	"sync"
	"sync/atomic"
)

// Subscriber is told of every event of the core. Handle runs on the
// goroutine that caused the event, in the middle of the core's work: it
// must not block, and a subscriber that does real work hands the event to
// a goroutine of its own (as the console's tap does).
type Subscriber interface {
	Handle(e Event)
}

// Func is a function as a Subscriber.
type Func func(e Event)

// Handle calls f.
func (f Func) Handle(e Event) { f(e) }

// Want names the parts of events that cost the core something to make,
// which it makes only while a subscriber asks for them.
type Want uint8

// The optional parts of events.
const (
	// Copies: the Copied events.
	Copies Want = 1 << iota
	// Reports: the Report of Translated and Dropped events.
	Reports
	// Failures: the Failed events.
	Failures
	// Spans: the span slots, the Requested and Delivering events, and the
	// time each encoding took.
	Spans
)

// Wanter is implemented by a subscriber that wants optional parts.
type Wanter interface {
	Wants() Want
}

// Kinds is a set of event kinds.
type Kinds uint32

// KindsOf returns the set of ks.
func KindsOf(ks ...Kind) Kinds {
	var s Kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s Kinds) Has(k Kind) bool { return s&(1<<k) != 0 }

// Picker is implemented by a subscriber told of some kinds of event only;
// one that is not is told of every kind.
type Picker interface {
	Kinds() Kinds
}

// Stream is the list of subscribers the core emits to. Subscribing and
// unsubscribing replace the list whole; Emit reads it with one atomic
// load, and with no subscriber costs nothing more.
type Stream struct {
	mu   sync.Mutex
	subs atomic.Pointer[subscribers]
	seq  atomic.Uint64
}

// NextSeq returns a number no other call returned, for the Seq of a
// message's events.
func (st *Stream) NextSeq() uint64 { return st.seq.Add(1) }

type subscribers struct {
	list   []*entry
	byKind [numKinds][]Subscriber // the subscribers of each kind, in order
	wants  Want
}

type entry struct{ s Subscriber }

// Subscribe adds s after the subscribers already there; stop removes it.
// Events emitted after Subscribe returns reach s; none reach it once stop
// has returned.
func (st *Stream) Subscribe(s Subscriber) (stop func()) {
	e := &entry{s: s}
	st.mu.Lock()
	cur := st.subs.Load()
	next := &subscribers{}
	if cur != nil {
		next.list = append(next.list, cur.list...)
	}
	next.list = append(next.list, e)
	next.index()
	st.subs.Store(next)
	st.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { st.remove(e) }) }
}

func (st *Stream) remove(e *entry) {
	st.mu.Lock()
	defer st.mu.Unlock()
	cur := st.subs.Load()
	if cur == nil {
		return
	}
	next := &subscribers{}
	for _, x := range cur.list {
		if x != e {
			next.list = append(next.list, x)
		}
	}
	if len(next.list) == 0 {
		st.subs.Store(nil)
		return
	}
	next.index()
	st.subs.Store(next)
}

// index makes the tables of s: what its subscribers want, and which of
// them each kind goes to.
func (s *subscribers) index() {
	for _, e := range s.list {
		if x, ok := e.s.(Wanter); ok {
			s.wants |= x.Wants()
		}
		kinds := ^Kinds(0)
		if p, ok := e.s.(Picker); ok {
			kinds = p.Kinds()
		}
		for k := range numKinds {
			if kinds.Has(Kind(k)) {
				s.byKind[k] = append(s.byKind[k], e.s)
			}
		}
	}
}

// Active reports whether anyone subscribes.
func (st *Stream) Active() bool { return st.subs.Load() != nil }

// Wants reports whether a subscriber asked for the parts w.
func (st *Stream) Wants(w Want) bool {
	s := st.subs.Load()
	return s != nil && s.wants&w != 0
}

// Emit tells every subscriber of e's kind of e, in the order they
// subscribed.
func (st *Stream) Emit(e Event) {
	s := st.subs.Load()
	if s == nil || int(e.Kind) >= numKinds {
		return
	}
	for _, x := range s.byKind[e.Kind] {
		x.Handle(e)
	}
}
