package logjson

import (
	"io"
	"sync"
	"time"
)

// FlushDelay is how long a line written to a Buffered waits, at most, for
// the lines after it before they all go to the writer under it in one
// write.
const FlushDelay = 5 * time.Millisecond

// bufferedLimit is what a Buffered holds before a write goes through at
// once: a writer under it that falls behind (a full pipe) holds up the
// writers, rather than the buffer growing without bound.
const bufferedLimit = 1 << 20

// Buffered is an io.Writer for log lines that hands what is written to the
// writer under it from a goroutine of its own, in order, one write for
// everything written within FlushDelay: a line costs the goroutine that
// logs it a copy, not a system call on its way (a bridge logs each message
// it forwards). Past bufferedLimit bytes held, a write goes through at
// once, with everything before it. Lines written less than FlushDelay
// before the process dies may be lost: Flush (or Close) writes what is
// held, and a program calls it before it exits.
type Buffered struct {
	w     io.Writer
	delay time.Duration

	mu    sync.Mutex // guards buf, spare and closed
	buf   []byte     // what waits to be written
	spare []byte     // the buffer last written, for the next swap
	// closed: Close has run; writes go through at once.
	closed bool
	// out serializes the writes to w; taken while mu is held, so that
	// what leaves buf is written in the order it was written.
	out sync.Mutex

	kick chan struct{} // the first line in an empty buffer wakes flushing
	stop chan struct{}
	done chan struct{}
}

// NewBuffered returns a Buffered writing to w what was written within
// delay of the first line since the last write.
func NewBuffered(w io.Writer, delay time.Duration) *Buffered {
	b := &Buffered{w: w, delay: delay, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flushing()
	return b
}

// Write keeps a copy of p to be written within the delay; it reports no
// error from the writer under it, which Flush and Close return.
func (b *Buffered) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed || len(b.buf)+len(p) > bufferedLimit {
		b.buf = append(b.buf, p...)
		err := b.writeLocked()
		return len(p), err
	}
	first := len(b.buf) == 0
	b.buf = append(b.buf, p...)
	b.mu.Unlock()
	if first {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// writeLocked writes what b holds; b.mu is held, and released.
func (b *Buffered) writeLocked() error {
	data := b.buf
	b.buf, b.spare = b.spare[:0], nil
	b.out.Lock()
	b.mu.Unlock()
	var err error
	if len(data) > 0 {
		_, err = b.w.Write(data)
	}
	b.out.Unlock()
	b.mu.Lock()
	if b.spare == nil && cap(data) <= 2*bufferedLimit {
		b.spare = data[:0]
	}
	b.mu.Unlock()
	return err
}

// Flush writes what b holds.
func (b *Buffered) Flush() error {
	b.mu.Lock()
	return b.writeLocked()
}

// Close writes what b holds and stops its goroutine; later writes go
// through at once.
func (b *Buffered) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return b.Flush()
}

// flushing writes what is held a delay after the first line of each batch.
func (b *Buffered) flushing() {
	defer close(b.done)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-b.kick:
		}
		t.Reset(b.delay)
		select {
		case <-b.stop:
			t.Stop()
			return
		case <-t.C:
		}
		_ = b.Flush()
	}
}
