package console

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// recordIdle is how long the console goes on tapping the traffic after
// its last viewer's last request.
const recordIdle = 5 * time.Minute

// recorder taps the bridge's traffic while the console is open: from a
// viewer's first request until recordIdle after the last, or while a
// traffic stream is open. A tap copies and redacts every message, which
// the bridge should not pay for while nobody looks.
type recorder struct {
	b    *bridge.Bridge
	fn   func(tap.Traffic)
	opts tap.Options

	mu      sync.Mutex
	tap     *tap.Tap  // nil while not recording
	last    time.Time // the latest request
	streams int       // traffic streams open
	dropped uint64    // by the taps stopped since
	closed  bool
}

// touch notes a viewer's request, and starts recording if it was not.
func (r *recorder) touch() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = time.Now()
	if r.tap == nil && !r.closed {
		r.tap = tap.Start(r.b, r.fn, r.opts)
	}
}

// hold keeps recording while a stream is open; release ends the hold.
func (r *recorder) hold() (release func()) {
	r.touch()
	r.mu.Lock()
	r.streams++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.streams--
		r.last = time.Now()
		r.mu.Unlock()
	}
}

// idle stops recording once nobody has looked for recordIdle.
func (r *recorder) idle(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tap != nil && r.streams == 0 && now.Sub(r.last) > recordIdle {
		r.stopLocked()
	}
}

// Dropped counts the messages the taps lost, the console not keeping up.
func (r *recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.dropped
	if r.tap != nil {
		n += r.tap.Dropped()
	}
	return n
}

// stop ends recording for good.
func (r *recorder) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.tap != nil {
		r.stopLocked()
	}
}

func (r *recorder) stopLocked() {
	r.tap.Stop()
	r.dropped += r.tap.Dropped()
	r.tap = nil
}
