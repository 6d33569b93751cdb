package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// The bounds of what the suite holds of an agent's frames at a time.
const (
	inboxFrames = 1024     // frames read but not yet taken by the run
	inboxBytes  = 16 << 20 // their bytes
	keptProblem = 20       // frame problems kept for the report
	clipFrame   = 2048     // bytes of a frame shown in a report
)

// inbound is one frame the agent sent, checked.
type inbound struct {
	Frame
	seq int
	at  time.Time
	// env is the decoded frame; nil when it does not decode or is over the
	// size limit.
	env *canonical.Envelope
	// corr is the value the frame quotes at the dialect's reply paths ("" for
	// none).
	corr string
}

// frameProblem is one thing wrong with a frame the agent sent.
type frameProblem struct {
	seq         int
	requirement string // the requirement running when it came
	frame       string // the frame, clipped
	path        string
	rule        string
}

// inspector checks every frame the agent sends, for the whole run (across
// reconnections), and keeps what the Frames requirements report.
type inspector struct {
	codec    dialects.Codec
	replyAt  []string
	maxFrame int
	max      int // frames in a run
	tr       *transcript

	current atomic.Pointer[string] // the requirement running

	mu       sync.Mutex
	seq      int
	problems []frameProblem
	bad      int // frames with a problem
	lastBad  int // the last of them
	dropped  int // frames dropped because the run could not keep up
	stopped  error
}

// setCurrent records the requirement running, for the frames that come.
func (in *inspector) setCurrent(id string) { in.current.Store(&id) }

func (in *inspector) currentID() string {
	if p := in.current.Load(); p != nil {
		return *p
	}
	return ""
}

// check decodes and validates one frame and records what is wrong with it.
// ok is false once the run must stop (the agent sent more frames than a
// run takes).
func (in *inspector) check(f Frame) (m *inbound, ok bool) {
	in.mu.Lock()
	in.seq++
	m = &inbound{Frame: f, seq: in.seq, at: time.Now()}
	over := in.seq > in.max
	in.mu.Unlock()
	in.tr.received(m, in.currentID())
	if over {
		in.stop(fmt.Errorf("the agent sent more than %d frames in one run (a flood); the suite stopped the run", in.max))
		in.problem(m, "", fmt.Sprintf("a run takes at most %d frames", in.max))
		return m, false
	}
	if f.Oversize() {
		in.problem(m, "", fmt.Sprintf("a frame is at most %d bytes; this one is %d", in.maxFrame, f.Size))
		return m, true
	}
	problems := in.codec.Validate(f.Data)
	env, err := in.codec.Decode(bytes.Clone(f.Data))
	var derr *dialects.Error
	switch {
	case err == nil:
		m.env = env
	case len(problems) > 0:
	case errors.As(err, &derr):
		problems = append(problems, dialects.Problem{Path: derr.Path, Message: derr.Problem})
	default:
		problems = append(problems, dialects.Problem{Message: err.Error()})
	}
	for _, p := range problems {
		in.problem(m, p.Path, p.Message)
	}
	if m.env != nil {
		root := gjson.ParseBytes(f.Data)
		for _, p := range in.replyAt {
			if v := root.Get(p); v.Type == gjson.String && v.Str != "" {
				m.corr = v.Str
				break
			}
		}
	}
	return m, true
}

// problem records that frame m breaks rule at path.
func (in *inspector) problem(m *inbound, path, rule string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.lastBad != m.seq {
		in.bad++
		in.lastBad = m.seq
	}
	if len(in.problems) < keptProblem {
		in.problems = append(in.problems, frameProblem{seq: m.seq, requirement: in.currentID(), frame: clip(m.Data), path: path, rule: rule})
	}
}

// drop records a frame the run could not take in time.
func (in *inspector) drop(m *inbound) {
	in.mu.Lock()
	in.dropped++
	first := in.dropped == 1
	in.mu.Unlock()
	if first {
		in.problem(m, "", fmt.Sprintf("the agent sent frames faster than the suite takes them (%d frames or %d MiB waiting); frames were dropped", inboxFrames, inboxBytes>>20))
	}
}

// stop records why the run must stop; the first reason stays.
func (in *inspector) stop(err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped == nil {
		in.stopped = err
	}
}

// stoppedBy returns why the run stopped, or nil.
func (in *inspector) stoppedBy() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.stopped
}

// clip returns a frame as text, cut to clipFrame bytes.
func clip(b []byte) string {
	if len(b) <= clipFrame {
		return string(b)
	}
	return string(b[:clipFrame]) + fmt.Sprintf("... (%d bytes)", len(b))
}

// wire is one connection to the agent: a goroutine reads its frames, has
// each checked, and queues them for the run, within bounds.
type wire struct {
	conn   Conn
	inbox  chan *inbound
	queued atomic.Int64 // bytes in inbox
	done   chan struct{}
	err    error // why reading stopped; set before done closes
}

func startWire(conn Conn, in *inspector) *wire {
	w := &wire{conn: conn, inbox: make(chan *inbound, inboxFrames), done: make(chan struct{})}
	go w.read(in)
	return w
}

func (w *wire) read(in *inspector) {
	defer close(w.done)
	for {
		f, err := w.conn.Read()
		if err != nil {
			w.err = err
			return
		}
		m, ok := in.check(f)
		if !ok {
			w.err = in.stoppedBy()
			_ = w.conn.Close()
			return
		}
		if w.queued.Load()+int64(len(m.Data)) > inboxBytes {
			in.drop(m)
			continue
		}
		select {
		case w.inbox <- m:
			w.queued.Add(int64(len(m.Data)))
		default:
			in.drop(m)
		}
	}
}

// taken accounts for a frame taken from inbox.
func (w *wire) taken(m *inbound) *inbound {
	w.queued.Add(-int64(len(m.Data)))
	return m
}

// ended reports whether the connection has ended.
func (w *wire) ended() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}
