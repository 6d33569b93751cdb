package console

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// The traffic view: the bridge's tap feeds a ring of the latest messages,
// which the view lists and streams (with filters), and whose frames it
// shows on demand. Each stream has a backlog of its own, bounded: a
// stream that falls behind misses messages and is told how many.

// backlog bounds the messages waiting for one stream.
const backlog = 256

// message is one message the tap told of, numbered.
type message struct {
	seq uint64
	tap.Traffic
}

// traffic is the ring of the latest messages and the streams that follow
// it.
type traffic struct {
	mu    sync.Mutex
	ring  []*message
	next  int // where the next message goes
	seq   uint64
	watch map[*follower]struct{}
}

// follower is one stream following the traffic.
type follower struct {
	ch     chan *message
	missed atomic.Uint64
}

func newTraffic(keep int) *traffic {
	return &traffic{ring: make([]*message, keep), watch: map[*follower]struct{}{}}
}

func (t *traffic) capacity() int { return len(t.ring) }

// add keeps tr, as the next message, and hands it to the followers.
func (t *traffic) add(tr tap.Traffic) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	m := &message{seq: t.seq, Traffic: tr}
	t.ring[t.next] = m
	t.next = (t.next + 1) % len(t.ring)
	for f := range t.watch {
		select {
		case f.ch <- m:
		default:
			f.missed.Add(1)
		}
	}
}

// since returns the messages kept after seq that f keeps, oldest first.
func (t *traffic) since(after uint64, f filter) []*message {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*message
	for i := range len(t.ring) {
		m := t.ring[(t.next+i)%len(t.ring)]
		if m != nil && m.seq > after && f.keeps(m) {
			out = append(out, m)
		}
	}
	return out
}

// get returns the message seq, nil when it is no longer kept.
func (t *traffic) get(seq uint64) *message {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.ring {
		if m != nil && m.seq == seq {
			return m
		}
	}
	return nil
}

// follow starts a follower; unfollow ends it.
func (t *traffic) follow() *follower {
	f := &follower{ch: make(chan *message, backlog)}
	t.mu.Lock()
	t.watch[f] = struct{}{}
	t.mu.Unlock()
	return f
}

func (t *traffic) unfollow(f *follower) {
	t.mu.Lock()
	delete(t.watch, f)
	t.mu.Unlock()
}

// filter is what a view of the traffic keeps.
type filter struct {
	agent, dialect, act string
	errors              bool
}

// filterOf reads a filter from a query: agent (sender or receiver),
// dialect (either side's), act, errors (true: only refusals, failures,
// drops and errors).
func filterOf(q url.Values) filter {
	return filter{agent: q.Get("agent"), dialect: q.Get("dialect"), act: q.Get("act"),
		errors: q.Get("errors") == "true" || q.Get("errors") == "1"}
}

func (f filter) keeps(m *message) bool {
	switch {
	case f.agent != "" && m.From != f.agent && m.To != f.agent:
		return false
	case f.dialect != "" && m.FromDialect != f.dialect && m.ToDialect != f.dialect:
		return false
	case f.act != "" && string(m.Act) != f.act:
		return false
	case f.errors && !failed(m):
		return false
	}
	return true
}

// failed reports whether a message is something gone wrong: refused,
// undelivered, dropped, or carrying an error or a failed outcome.
func failed(m *message) bool {
	return m.Kind != tap.Delivered || m.Error != nil || m.Outcome == canonical.OutcomeFailure
}

// summary is a message as the traffic table lists it.
type summary struct {
	Seq         uint64       `json:"seq"`
	Time        time.Time    `json:"time"`
	Kind        string       `json:"kind"`
	From        string       `json:"from"`
	FromDialect string       `json:"from_dialect"`
	To          string       `json:"to"`
	ToDialect   string       `json:"to_dialect"`
	Act         string       `json:"act"`
	Operation   string       `json:"operation,omitempty"`
	Outcome     string       `json:"outcome,omitempty"`
	Error       *errorReport `json:"error,omitempty"`
	ByBridge    bool         `json:"by_bridge,omitempty"`
	Failed      bool         `json:"failed"`
	// LatencyMS is from the frame's arrival to its delivery; absent when
	// the bridge does not know the arrival.
	LatencyMS *float64 `json:"latency_ms,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Losses    int      `json:"losses"`
}

// errorReport is a message's error.
type errorReport struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// detail is a message with its frames and loss report.
type detail struct {
	summary
	Received      string     `json:"received"`
	ReceivedSize  int        `json:"received_size"`
	Delivered     string     `json:"delivered"`
	DeliveredSize int        `json:"delivered_size"`
	LossReport    []tap.Loss `json:"loss_report"`
}

func (m *message) summary() summary {
	s := summary{Seq: m.seq, Time: m.Time, Kind: m.Kind.String(), From: m.From, FromDialect: m.FromDialect,
		To: m.To, ToDialect: m.ToDialect, Act: string(m.Act), Operation: m.Operation, Outcome: string(m.Outcome),
		ByBridge: m.ByBridge, Failed: failed(m), Reason: m.Reason, Losses: len(m.Losses)}
	if m.Error != nil {
		s.Error = &errorReport{Code: string(m.Error.Code), Message: m.Error.Message}
	}
	if m.Latency > 0 {
		ms := float64(m.Latency.Microseconds()) / 1000
		s.LatencyMS = &ms
	}
	return s
}

func (m *message) detail() detail {
	d := detail{summary: m.summary(), Received: string(m.Received), ReceivedSize: m.ReceivedSize,
		Delivered: string(m.Delivered), DeliveredSize: m.DeliveredSize, LossReport: m.Losses}
	if d.LossReport == nil {
		d.LossReport = []tap.Loss{}
	}
	return d
}

// trafficList answers GET /ui/api/traffic: the messages kept that the
// query's filter keeps (after=N: only those after the message N).
func (c *Console) trafficList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	after, _ := strconv.ParseUint(q.Get("after"), 10, 64)
	list := []summary{}
	for _, m := range c.traffic.since(after, filterOf(q)) {
		list = append(list, m.summary())
	}
	writeJSON(w, http.StatusOK, struct {
		Messages []summary `json:"messages"`
		Capacity int       `json:"capacity"`
		// Dropped counts the messages the tap lost: the console did not
		// keep up with the bridge.
		Dropped uint64 `json:"dropped"`
	}{list, c.traffic.capacity(), c.rec.Dropped()})
}

// trafficMessage answers GET /ui/api/traffic/{seq}: the message with its
// frames and loss report.
func (c *Console) trafficMessage(w http.ResponseWriter, r *http.Request) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil {
		fail(w, http.StatusBadRequest, "traffic: %q is not a message number", r.PathValue("seq"))
		return
	}
	m := c.traffic.get(seq)
	if m == nil {
		fail(w, http.StatusNotFound, "traffic: message %d is not kept (the view keeps the latest %d)", seq, c.traffic.capacity())
		return
	}
	writeJSON(w, http.StatusOK, m.detail())
}

// trafficEvents answers GET /ui/api/traffic/events: a stream of the
// messages the query's filter keeps, as "message" events (each with its
// number as the event id), starting with those kept after ?after=N or the
// Last-Event-ID (all kept, without either); a "missed" event tells how
// many messages the stream has missed in all by falling behind.
func (c *Console) trafficEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := filterOf(q)
	after, _ := strconv.ParseUint(q.Get("after"), 10, 64)
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		after, _ = strconv.ParseUint(id, 10, 64)
	}
	defer c.rec.hold()()
	fl := c.traffic.follow()
	defer c.traffic.unfollow(fl)
	s, release, ok := c.openStream(w)
	if !ok {
		return
	}
	defer release()
	last := after
	emit := func(m *message) error {
		if m.seq <= last {
			return nil
		}
		last = m.seq
		if !f.keeps(m) {
			return nil
		}
		return s.send("message", strconv.FormatUint(m.seq, 10), m.summary())
	}
	for _, m := range c.traffic.since(after, f) {
		if emit(m) != nil {
			return
		}
	}
	tick := time.NewTicker(keepalive)
	defer tick.Stop()
	var told uint64
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done():
			return
		case m := <-fl.ch:
			err = emit(m)
		case <-tick.C:
			err = s.ping()
		}
		if n := fl.missed.Load(); err == nil && n != told {
			told = n
			err = s.send("missed", "", struct {
				Missed uint64 `json:"missed"`
			}{n})
		}
		if err != nil {
			return
		}
	}
}
