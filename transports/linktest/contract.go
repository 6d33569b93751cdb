package linktest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
)

// payload is the n-th test message: a compact JSON object, its keys in
// order, pad bytes of padding.
func payload(n, pad int) []byte {
	return fmt.Appendf(nil, `{"n":%d,"pad":"%s","text":"grüße, 世界 ✓ \"quoted\""}`, n, strings.Repeat("x", pad))
}

// expect fails the test unless the peer's next payload is want.
func expect(t *testing.T, c *Conn, want []byte) {
	t.Helper()
	got, err := c.Next(patient(t))
	if err != nil {
		t.Fatalf("the peer received nothing: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the peer received %.80q (%d bytes), want %.80q (%d bytes)", got, len(got), want, len(want))
	}
}

// testSend: messages small and large arrive intact and in order, and the
// link leaves the frame it was given as it was.
func testSend(t *testing.T, c *Conn) {
	if c.Link.Transport() == "" {
		t.Error("the link names no transport")
	}
	for i, pad := range []int{0, 10, 256 << 10, 1} {
		p := payload(i, pad)
		out := c.Out(p)
		frame := bytes.Clone(out.Frame)
		if err := c.Link.Send(patient(t), out); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if !bytes.Equal(out.Frame, frame) {
			t.Fatalf("send %d changed its frame", i)
		}
		expect(t, c, p)
	}
}

// testSendNow: a prompt link delivers a message without waiting; what it
// kept, Flush writes.
func testSendNow(t *testing.T, c *Conn) {
	pl, ok := c.Link.(delivery.Prompt)
	if !ok {
		t.Skipf("%T is not prompt (delivery.Prompt): the queue's writer sends everything", c.Link)
	}
	for i := range 3 {
		p := payload(i, 100)
		backlog, err := pl.SendNow(c.Out(p))
		if err != nil {
			t.Fatalf("SendNow %d to a peer that reads: %v", i, err)
		}
		if backlog {
			if err := pl.Flush(patient(t)); err != nil {
				t.Fatalf("Flush: %v", err)
			}
		}
		expect(t, c, p)
	}
}

// testBusy: behind a write the queue did not make (a ping) that waits on
// a peer which stopped reading, SendNow answers bridge.ErrBusy at once,
// having written nothing; once the peer reads again, the ping is answered
// and every message SendNow took arrives, in order.
func testBusy(t *testing.T, c *Conn) {
	pl, ok := c.Link.(delivery.Prompt)
	if !ok {
		t.Skipf("%T is not prompt (delivery.Prompt)", c.Link)
	}
	pinger, ok := c.Link.(bridge.Pinger)
	if !ok {
		t.Skipf("%T makes no writes of its own (bridge.Pinger) to be busy behind", c.Link)
	}
	if c.Stall == nil {
		t.Skip("the peer cannot be stalled")
	}
	ctx := patient(t)
	c.Stall()
	var taken [][]byte
	for i := 0; ; i++ {
		if i == 10000 {
			t.Fatal("the peer's socket never filled")
		}
		p := payload(i, 16<<10)
		backlog, err := pl.SendNow(c.Out(p))
		if err != nil {
			t.Fatalf("SendNow %d before the ping: %v", i, err)
		}
		taken = append(taken, p)
		if backlog {
			break
		}
	}
	pinged := make(chan error, 1)
	go func() { pinged <- pinger.Ping(ctx) }()
	busy := false
	for n := len(taken); !busy; n++ {
		if ctx.Err() != nil {
			t.Fatal("SendNow was never busy behind the waiting ping")
		}
		p := payload(n, 10)
		start := time.Now()
		_, err := pl.SendNow(c.Out(p))
		if d := time.Since(start); d > Patience/4 {
			t.Fatalf("SendNow waited %s", d)
		}
		switch {
		case errors.Is(err, bridge.ErrBusy):
			busy = true
		case err != nil:
			t.Fatalf("SendNow behind the ping: %v, want bridge.ErrBusy", err)
		default:
			taken = append(taken, p) // the ping's write had not begun
			time.Sleep(time.Millisecond)
		}
	}
	c.Resume()
	if err := <-pinged; err != nil {
		t.Fatalf("the ping, once the peer read again: %v", err)
	}
	if err := pl.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	for _, p := range taken {
		expect(t, c, p)
	}
}

// testClose: Close tells the peer why.
func testClose(t *testing.T, c *Conn) {
	cl, ok := c.Link.(bridge.Closer)
	if !ok {
		t.Skipf("%T cannot end its connection telling why (bridge.Closer)", c.Link)
	}
	if c.CloseReason == nil {
		t.Skip("the peer cannot show why it was closed")
	}
	const reason = "the bridge is going away"
	if err := cl.Close(reason); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got, err := c.CloseReason(patient(t))
	if err != nil {
		t.Fatalf("the peer saw no close: %v", err)
	}
	if got != reason {
		t.Errorf("the peer was told %q, want %q", got, reason)
	}
}

// testAbort: a send blocked on a peer that stopped reading ends, failed,
// when the link is aborted.
func testAbort(t *testing.T, c *Conn) {
	ab, ok := c.Link.(delivery.Aborter)
	if !ok {
		t.Skipf("%T cannot end a send from outside (delivery.Aborter): its sends end with their context", c.Link)
	}
	if c.Stall == nil {
		t.Skip("the peer cannot be stalled")
	}
	c.Stall()
	var sent atomic.Int64
	failed := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			if err := c.Link.Send(context.Background(), c.Out(payload(i, 1<<20))); err != nil {
				failed <- err
				return
			}
			sent.Add(1)
		}
	}()
	// Blocked: no send has returned for a while.
	for last := int64(-1); ; {
		time.Sleep(200 * time.Millisecond)
		select {
		case err := <-failed:
			t.Fatalf("a send to a stalled peer failed before the abort: %v", err)
		default:
		}
		n := sent.Load()
		if n == last {
			break
		}
		last = n
	}
	ab.Abort()
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("the aborted send succeeded")
		}
	case <-time.After(Patience):
		t.Fatal("the send went on past the abort")
	}
	c.Resume()
}

// testPing: a live peer answers; a dead one does not.
func testPing(t *testing.T, c *Conn) {
	p, ok := c.Link.(bridge.Pinger)
	if !ok {
		t.Skipf("%T cannot check its peer is alive (bridge.Pinger)", c.Link)
	}
	if c.NoPing != "" {
		t.Skipf("%T: %s", c.Link, c.NoPing)
	}
	if err := p.Ping(patient(t)); err != nil {
		t.Fatalf("a live peer: %v", err)
	}
	c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), Patience/4)
	defer cancel()
	if err := p.Ping(ctx); err == nil {
		t.Fatal("a dead peer answered the ping")
	}
}

// testCancel: the peer's work on a message the bridge gave up is
// stopped.
func testCancel(t *testing.T, c *Conn) {
	cn, ok := c.Link.(bridge.Canceller)
	if !ok {
		t.Skipf("%T cannot stop its peer's work (bridge.Canceller)", c.Link)
	}
	if c.Slow == nil || c.Working == nil || c.Cancelled == nil {
		t.Skip("the peer has no work to cancel")
	}
	out, token := c.Slow()
	if err := c.Link.Send(patient(t), out); err != nil {
		t.Fatalf("send: %v", err)
	}
	if err := c.Working(patient(t)); err != nil {
		t.Fatalf("the peer never worked on it: %v", err)
	}
	cn.Cancel(token)
	if err := c.Cancelled(patient(t)); err != nil {
		t.Fatalf("the peer's work was not cancelled: %v", err)
	}
}

// testDeadPeer: once the peer is dead, sends fail (within their context:
// none hangs), and the bridge is told the connection was lost. An async
// link's send cannot fail: the session must be told.
func testDeadPeer(t *testing.T, c *Conn) {
	p := payload(0, 10)
	if err := c.Link.Send(patient(t), c.Out(p)); err != nil {
		t.Fatalf("send to the live peer: %v", err)
	}
	expect(t, c, p)
	c.Kill()
	if c.Async {
		if c.Lost == nil {
			t.Fatal("an async link whose loss nothing shows")
		}
		if err := c.Link.Send(patient(t), c.Out(payload(1, 10))); err != nil {
			t.Logf("send to the dead peer: %v", err)
		}
		if err := c.Lost(patient(t)); err != nil {
			t.Fatalf("the bridge was not told the connection was lost: %v", err)
		}
		return
	}
	deadline := time.Now().Add(Patience)
	for i := 1; ; i++ {
		if time.Now().After(deadline) {
			t.Fatal("sends to a dead peer went on succeeding")
		}
		ctx, cancel := context.WithTimeout(context.Background(), Patience/4)
		err := c.Link.Send(ctx, c.Out(payload(i, 10)))
		cancel()
		if err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.Lost == nil {
		t.Log("sends fail; nothing tells a session of this link it was lost")
		return
	}
	if err := c.Lost(patient(t)); err != nil {
		t.Fatalf("the bridge was not told the connection was lost: %v", err)
	}
}
