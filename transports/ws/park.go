package ws

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// An idle connection holds no goroutine either, where the system lets
// one goroutine wait for many sockets (Linux: epoll). A connection
// accepted by the Handler over plain TCP is read by a goroutine while
// messages come; it is parked once it has waited for the next message
// through a whole sweep (parkAfter), or at once after a message where its
// reader would have moved to a fresh goroutine (source.move: after its
// first message, the introduction, then at most once a second). Parked,
// its goroutine goes, and the parker's one goroutine waits for the socket
// with every other parked one's, starting a fresh reader when it has
// bytes (at once if it has some already), when it is closed, or when it
// drops. A reading goroutine's stack (4.5-6.5 KB an idle agent, and
// about 2.5 times that in peak memory, as the collector's goal counts
// stacks) is the largest thing an idle agent held (docs/performance.md,
// "What one idle agent holds").
//
// A reader stops only where nothing of a message has been taken: its
// wait for the next message's first header inside coder/websocket's
// Reader (inFrames says when the library is there). The sweep wakes a
// wait that has lasted through it by setting the socket's read deadline
// in the past (no runtime timer), and the wait returns errPark, which the
// library hands back unchanged from Reader, having taken nothing. A
// heartbeat's pong, a close frame or the peer's ping wake a parked
// connection as a message does: the library reads them as it always has,
// and the connection parks again after its next quiet sweep. A close
// frame the bridge writes (the library then reads the answer itself)
// stops its waits from parking.

// parkAfter is how often the parker sweeps the waiting connections: one
// that has been waiting through a whole sweep, so for between parkAfter
// and twice that, is parked. A busy connection never is.
const parkAfter = 500 * time.Millisecond

// errPark is what a connection's read returns when the connection is to
// park: nothing of a message has been read.
var errPark = errors.New("ws: the connection parks")

// Readers returns how many goroutines read the connections the Handler
// accepted, now: none for a connection that is parked.
func Readers() int64 { return readers.Load() }

// Parked returns how many of the connections the Handler accepted are
// parked now: idle, with no goroutine reading them.
func Parked() int64 { return parkedNow.Load() }

var readers, parkedNow atomic.Int64

// The states of a connection's wait for its next message (parking.state).
const (
	notWaiting int32 = iota
	waiting          // a reader waits for the next message
	swept            // ... and did when the last sweep came
	kicked           // ... and the sweep has told it to park
)

// parking is a connection's part in parking.
type parking struct {
	// resume starts the connection's reading again, in the calling
	// goroutine; nil when the connection never parks.
	resume func()
	state  atomic.Int32
	// kick is held while the sweep sets the read deadline that wakes the
	// wait, and by the reader clearing it.
	kick sync.Mutex
	// closing is set once the bridge has written a close frame: the
	// library then reads the peer's answer itself, which must not park.
	closing atomic.Bool
	// quiet is set, for the reader, when its last wait had lasted through
	// a sweep: if only control frames (a heartbeat's pong) come before
	// the next wait, that one goes on from the sweep, as no message came.
	quiet bool
	// never is set once the connection cannot park: the poller refused
	// it, or broke; its reader reads on as if it never could.
	never atomic.Bool
	id    uint64
	// Under the parker's mu: whether the socket is in the poller (armed
	// or not), waits there with no reader, is closed.
	registered, parked, closed bool
}

// parker holds the connections that may park, and the poller their
// parked sockets wait in.
type parker struct {
	mu     sync.Mutex
	conns  map[uint64]*promptConn
	next   uint64
	poll   poller
	broken bool // the poller failed: nothing parks any more
}

// poller waits for many sockets at once (the system's: park_linux.go).
type poller interface {
	// arm makes the poller report fd once, as id, when it has bytes or
	// its peer hangs up; first when fd is not in the poller yet.
	arm(fd uintptr, id uint64, first bool) error
	// disarm takes fd out of the poller.
	disarm(fd uintptr) error
	// wait returns the ids of sockets reported, into ids, waiting up to
	// timeout.
	wait(ids []uint64, timeout time.Duration) (int, error)
}

var (
	parkerOnce sync.Once
	theParker  *parker
)

// parkerOf returns the process's parker, started at the first call; nil
// where connections cannot park.
func parkerOf() *parker {
	parkerOnce.Do(func() {
		poll, err := newPoller()
		if err != nil {
			return
		}
		theParker = &parker{conns: make(map[uint64]*promptConn), poll: poll}
		go theParker.run()
	})
	return theParker
}

// run waits for the parked sockets and resumes their reading, and sweeps
// the waiting connections every parkAfter, for the life of the process:
// one goroutine, which waits in a system call (and so outside the
// runtime's timers).
func (p *parker) run() {
	ids := make([]uint64, 256)
	last := time.Now()
	for {
		n, err := p.poll.wait(ids, parkAfter)
		if err != nil {
			// The poller is broken: wake what waits in it and park no more.
			p.fail()
			return
		}
		for _, id := range ids[:n] {
			p.wake(id)
		}
		if now := time.Now(); now.Sub(last) >= parkAfter {
			last = now
			p.sweep()
		}
	}
}

// add lets c park, its reading resumed by resume.
func (p *parker) add(c *promptConn, resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.park.closed || p.broken {
		return // its reader finds it closed, or reads on as it never parks
	}
	p.next++
	c.park.id, c.park.resume = p.next, resume
	p.conns[c.park.id] = c
}

// wake resumes the reading of the connection id, if it is parked.
func (p *parker) wake(id uint64) {
	p.mu.Lock()
	c := p.conns[id]
	if c == nil || !c.park.parked {
		p.mu.Unlock()
		return
	}
	c.park.parked = false
	parkedNow.Add(-1)
	p.mu.Unlock()
	go c.park.resume()
}

// sweep tells the connections that have waited for their next message
// since the last sweep to park: a wait counts from the sweep before it
// when only control frames came since (parking.quiet), so that a
// heartbeat more frequent than the sweep does not keep a connection
// from parking. And it lets go of the library connection of a parked
// connection that holds one (library.go): one made for a write while it
// was parked, or in use by a write as its reader parked.
func (p *parker) sweep() {
	var kick, loose []*promptConn
	p.mu.Lock()
	for _, c := range p.conns {
		switch c.park.state.Load() {
		case waiting:
			c.park.state.CompareAndSwap(waiting, swept)
		case swept:
			kick = append(kick, c)
		}
		if c.park.parked && c.lib.held.Load() {
			loose = append(loose, c)
		}
	}
	p.mu.Unlock()
	for _, c := range loose {
		c.letGo()
	}
	for _, c := range kick {
		c.park.kick.Lock()
		if c.park.state.CompareAndSwap(swept, kicked) {
			// A deadline in the past wakes the wait at once, with no timer.
			_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		}
		c.park.kick.Unlock()
	}
}

// fail resumes every parked connection and parks none from now on.
func (p *parker) fail() {
	p.mu.Lock()
	p.broken = true
	var wake []*promptConn
	for _, c := range p.conns {
		c.park.never.Store(true)
		if c.park.parked {
			c.park.parked = false
			parkedNow.Add(-1)
			wake = append(wake, c)
		}
	}
	p.mu.Unlock()
	for _, c := range wake {
		go c.park.resume()
	}
}

// park puts c's socket in the poller, to resume its reading once it has
// bytes, and reports whether it did; called by c's reader after its read
// returned errPark. A connection that cannot park (closed meanwhile, the
// poller refusing it) is read on by the caller, and never parks again.
func (p *parker) park(c *promptConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.park.closed || p.broken {
		return false
	}
	var perr error
	err := c.raw.Control(func(fd uintptr) { perr = p.poll.arm(fd, c.park.id, !c.park.registered) })
	if err == nil {
		err = perr
	}
	if err != nil {
		c.park.never.Store(true)
		return false
	}
	c.park.registered, c.park.parked = true, true
	parkedNow.Add(1)
	return true
}

// forget takes c out of the parker as it closes, its socket out of the
// poller while it is still open (so that a socket that takes its number
// is not reported for it), and returns c's resume when c was parked: its
// reading is then to be resumed, to find the connection closed.
func (p *parker) forget(c *promptConn) (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.park.closed {
		return nil
	}
	c.park.closed = true
	delete(p.conns, c.park.id)
	if c.park.registered {
		_ = c.raw.Control(func(fd uintptr) { _ = p.poll.disarm(fd) })
		c.park.registered = false
	}
	if !c.park.parked {
		return nil
	}
	c.park.parked = false
	parkedNow.Add(-1)
	return c.park.resume
}

// parkable lets c park while idle, resume reading it on in the calling
// goroutine once it wakes; where connections cannot park, it does
// nothing.
func (c *promptConn) parkable(resume func()) {
	if p := parkerOf(); p != nil {
		p.add(c, resume)
	}
}

// fill reads what the socket has into c's read buffer, waiting until it
// has something. A reader waiting for the next message of a connection
// that may park waits so that the sweep can tell it to (errPark).
func (c *promptConn) fill() error {
	// closing first: the library's Close may read before the Handler
	// has set resume.
	if c.park.closing.Load() || c.park.resume == nil || !c.in.atMessageStart() || c.park.never.Load() {
		return c.raw.Read(c.readP)
	}
	st := waiting
	if c.park.quiet && !c.in.data {
		st = swept
	}
	c.in.data = false
	c.park.state.Store(st)
	err := c.raw.Read(c.readP)
	old := c.park.state.Swap(notWaiting)
	c.park.quiet = old == swept
	if old == kicked {
		c.park.kick.Lock()
		_ = c.Conn.SetReadDeadline(time.Time{})
		c.park.kick.Unlock()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return errPark
		}
	}
	return err
}

// parkNow parks c, its reader going; false when c cannot park, its
// reader to read on.
func (c *promptConn) parkNow() bool {
	if c.park.resume == nil {
		return false
	}
	return parkerOf().park(c)
}

// Close closes the connection, taking it out of the parker first; a
// parked connection's reading resumes, to find it closed and end.
func (c *promptConn) Close() error {
	c.park.closing.Store(true)
	var resume func()
	if p := parkerOf(); p != nil {
		resume = p.forget(c)
	}
	err := c.Conn.Close()
	tellPinger(&c.in, errPingClosed) // ping.go
	if resume != nil {
		go resume()
	}
	return err
}
