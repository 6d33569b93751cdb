package loadgen

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// progress is what the requesters share with the run.
type progress struct {
	base     time.Time     // time zero of the run's clock
	sent     atomic.Int64  // requests written
	answered atomic.Int64  // requests answered (the first answer of each)
	last     atomic.Int64  // when the latest answer came, on the run's clock
	stop     chan struct{} // closed to stop sending
}

// now returns the time on the run's clock.
func (p *progress) now() int64 { return int64(time.Since(p.base)) }

// answeredAt records an answer at t, keeping the latest.
func (p *progress) answeredAt(t int64) {
	p.answered.Add(1)
	for {
		old := p.last.Load()
		if t <= old || p.last.CompareAndSwap(old, t) {
			return
		}
	}
}

// requester sends its quota of requests, numbered 0, 1, ..., each to the
// next of its targets, at most window of them unanswered, and reads the
// answers: correlated by the request id its dialect's answer names, each
// request answered once, the result echoing its number.
type requester struct {
	peer
	index   int
	conn    *agentclient.Conn
	codec   dialects.Codec
	wire    wire
	targets []peer
	quota   int
	window  chan struct{}
	// sentAt[seq] is when request seq was written, on the run's clock,
	// plus one; 0 while it is not.
	sentAt []atomic.Int64
	// What the reader saw, read once it has stopped.
	answered []bool
	// lastResult[k] is the highest sequence number answered with a
	// result by target k; -1 before the first.
	lastResult []int
	// latency[d] are the round trips of the requests to responders of
	// dialect d, in nanoseconds.
	latency    [][]int64
	delivered  int64 // frames
	accepts    int64
	completed  int64
	errors     int64
	duplicated int64
	reordered  int64 // results from one responder numbered below an earlier one
	stray      int64 // frames answering no request this requester sent
	strayEx    string
	kinds      map[string]*ErrorKind
}

// newRequester returns the requester p, the index-th, of the run's
// dialects, with its quota of requests to targets.
func (l *load) newRequester(p peer, index int, targets []peer, quota, window int) *requester {
	lg := &l.langs[p.dialect]
	r := &requester{
		peer: p, index: index, codec: lg.codec, wire: lg.wire, targets: targets, quota: quota,
		window: make(chan struct{}, window), sentAt: make([]atomic.Int64, quota),
		answered: make([]bool, quota), lastResult: make([]int, len(targets)),
		latency: make([][]int64, len(l.langs)), kinds: map[string]*ErrorKind{},
	}
	for k := range r.lastResult {
		r.lastResult[k] = -1
	}
	return r
}

// send writes the requests: when the window has room and, with an
// interval, not before request seq's time (offset + seq*interval from
// now). It returns when all are written or p.stop closes, or with the
// error that stopped it.
func (r *requester) send(ctx context.Context, p *progress, interval, offset time.Duration, filler string) error {
	ectx := encodeContext(r.id)
	var id, args, out []byte
	var timer *time.Timer
	start := time.Now()
	for seq := range r.quota {
		if interval > 0 {
			if d := time.Until(start.Add(offset + time.Duration(seq)*interval)); d > 0 {
				if timer == nil {
					timer = time.NewTimer(d)
				} else {
					timer.Reset(d)
				}
				select {
				case <-timer.C:
				case <-p.stop:
					return nil
				}
			}
		}
		select {
		case r.window <- struct{}{}:
		case <-p.stop:
			return nil
		}
		select {
		case <-p.stop:
			return nil
		default:
		}
		t := r.targets[seq%len(r.targets)]
		id = requestID(id[:0], r.id, seq)
		args = arguments(args[:0], r.index, seq, filler)
		ectx.Losses = ectx.Losses[:0]
		var err error
		out, err = r.codec.Encode(out[:0], request(&r.wire, r.id, t.id, string(id), args), ectx)
		if err != nil {
			return fmt.Errorf("encode request %d: %w", seq, err)
		}
		r.sentAt[seq].Store(p.now() + 1)
		p.sent.Add(1)
		if err := r.conn.Write(ctx, out); err != nil {
			return fmt.Errorf("write request %d: %w", seq, err)
		}
	}
	return nil
}

// read takes the answers until the connection ends, and returns why it
// did.
func (r *requester) read(ctx context.Context, p *progress) error {
	w := &r.wire
	for {
		frame, err := r.conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		now := p.now()
		r.delivered++
		// Read before decoding: the decoder parses the frame in place.
		corr := w.answerTo(frame)
		env, err := r.codec.Decode(frame)
		if err != nil {
			r.strayFrame("undecodable: " + err.Error())
			continue
		}
		if env.Act == canonical.ActAccept {
			r.accepts++
			continue
		}
		seq, ok := parseRequestID(corr, r.id)
		if !ok || seq >= r.quota || r.sentAt[seq].Load() == 0 {
			r.strayFrame("a " + string(env.Act) + " naming " + strconv.Quote(corr) + ", no request of " + r.id)
			continue
		}
		if r.answered[seq] {
			r.duplicated++
			continue
		}
		r.answered[seq] = true
		k := seq % len(r.targets)
		d := r.targets[k].dialect
		r.latency[d] = append(r.latency[d], now-(r.sentAt[seq].Load()-1))
		<-r.window
		p.answeredAt(now)
		r.take(env, seq, k)
	}
}

// take counts the first answer to request seq, sent to target k.
func (r *requester) take(env *canonical.Envelope, seq, k int) {
	if env.Act != canonical.ActResult || env.Outcome == canonical.OutcomeFailure {
		r.errors++
		switch {
		case env.Error != nil && env.Error.Code != "":
			r.note(string(env.Error.Code), env.Error.Message)
		case env.Error != nil:
			r.note(string(env.Act), env.Error.Message)
		default:
			r.note(string(env.Act), "outcome "+string(env.Outcome))
		}
		return
	}
	// bluelabel's results are {output, data}: the echo is in data
	// whenever bluelabel is on the way.
	res := gjson.Parse(string(env.Result))
	echo := res.Get("seq")
	if !echo.Exists() {
		echo = res.Get("data.seq")
	}
	if !echo.Exists() || echo.Int() != int64(seq) {
		r.errors++
		r.note("wrong result", "request "+r.id+"-"+strconv.Itoa(seq)+" answered with "+string(env.Result))
		return
	}
	r.completed++
	if seq < r.lastResult[k] {
		r.reordered++
		return
	}
	r.lastResult[k] = seq
}

// note counts an error of kind, keeping the first example.
func (r *requester) note(kind, example string) {
	e := r.kinds[kind]
	if e == nil {
		e = &ErrorKind{Kind: strings.Clone(kind), Example: strings.Clone(example)}
		r.kinds[e.Kind] = e
	}
	e.Count++
}

// strayFrame counts a frame that answers no request of this requester,
// keeping the first example.
func (r *requester) strayFrame(example string) {
	if r.stray == 0 {
		r.strayEx = strings.Clone(example)
	}
	r.stray++
}

// lost returns how many requests were written and never answered.
func (r *requester) lost() int64 {
	var n int64
	for seq := range r.quota {
		if r.sentAt[seq].Load() != 0 && !r.answered[seq] {
			n++
		}
	}
	return n
}
