package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// ErrDown is returned by a Send to a child that has exited or is being
// stopped.
var ErrDown = errors.New("stdio: the agent's process is not running")

// link writes the bridge's messages to a child's standard input, one line
// each.
//
// Send writes in the caller's goroutine, under a mutex, with the pipe's
// write deadline set from the caller's context: the context's deadline, or
// at once when it is cancelled. A child that stops reading therefore holds
// a sender no longer than its context allows. A write cut short leaves part
// of a frame in the pipe; the next Send ends that line first, so the child
// sees one truncated line (never valid JSON: a compact JSON object is not
// complete before its last byte) and the frames after it intact.
type link struct {
	mu      sync.Mutex
	w       *os.File
	partial bool // a frame was cut short: its line is not ended yet
	down    atomic.Bool
}

func newLink(w *os.File) *link { return &link{w: w} }

// Transport names the transport.
func (l *link) Transport() string { return "stdio" }

// Send writes out.Frame and a newline to the child's standard input.
func (l *link) Send(ctx context.Context, out bridge.Outbound) error {
	if bytes.IndexByte(out.Frame, '\n') >= 0 {
		return errors.New("stdio: frame contains a newline and cannot be sent as one line")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down.Load() {
		return ErrDown
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stdio: send: %w", err)
	}
	deadline, _ := ctx.Deadline()
	if err := l.w.SetWriteDeadline(deadline); err != nil {
		return l.failed(err)
	}
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cancelled)
		_ = l.w.SetWriteDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-cancelled // its deadline must not outlive this Send
		}
	}()
	if l.partial {
		if _, err := l.w.Write([]byte{'\n'}); err != nil {
			return l.failed(err)
		}
		l.partial = false
	}
	line := append(out.Frame[:len(out.Frame):len(out.Frame)], '\n')
	if n, err := l.w.Write(line); err != nil {
		l.partial = n > 0
		return l.failed(err)
	}
	return nil
}

// failed explains a failed write.
func (l *link) failed(err error) error {
	if l.down.Load() {
		return ErrDown
	}
	return fmt.Errorf("stdio: write to the agent's standard input: %w", err)
}

// shut makes every later Send fail and closes the child's standard input;
// a write in progress is interrupted.
func (l *link) shut() {
	if l.down.Swap(true) {
		return
	}
	_ = l.w.Close()
}
