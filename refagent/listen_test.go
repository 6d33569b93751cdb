package refagent

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestListen serves an agent on a loopback listener: a peer dials it on any
// path and gets the introduction and an answer; a second peer is refused
// while the first is served; after the first hangs up, the next peer is
// served from the start; when the context ends, Listen closes the
// connection normally and returns nil.
func TestListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Dialect: "swarm", ID: "jules"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Listen(ctx, ln) }()
	url := "ws://" + ln.Addr().String()

	dial := func(path string) *websocket.Conn {
		t.Helper()
		dctx, dcancel := context.WithTimeout(context.Background(), testTimeout)
		defer dcancel()
		c, _, err := websocket.Dial(dctx, url+path, nil)
		if err != nil {
			t.Fatalf("dialing %s: %v", path, err)
		}
		return c
	}
	read := func(c *websocket.Conn) *canonical.Envelope {
		t.Helper()
		rctx, rcancel := context.WithTimeout(context.Background(), testTimeout)
		defer rcancel()
		_, f, err := c.Read(rctx)
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, "swarm", "the agent", [][]byte{f})
		return decode(t, "swarm", f)
	}

	first := dial("/any/path")
	if intro := read(first); intro.Act != canonical.ActQueryCapabilities || intro.Sender.ID != "jules" {
		t.Fatalf("introduction %+v", intro)
	}
	req := encode(t, "swarm", &canonical.Envelope{Act: canonical.ActRequest, ID: "req-1", Sender: canonical.Party{ID: "suite"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "jules"}, Operation: op("add"), Arguments: `{"a":2,"b":3}`})
	wctx, wcancel := context.WithTimeout(context.Background(), testTimeout)
	defer wcancel()
	if err := first.Write(wctx, websocket.MessageText, req); err != nil {
		t.Fatal(err)
	}
	if r := read(first); r.Act != canonical.ActResult || r.InReplyTo != "req-1" || string(r.Result) != `{"sum":5}` {
		t.Errorf("reply %+v", r)
	}

	dctx, dcancel := context.WithTimeout(context.Background(), testTimeout)
	defer dcancel()
	if _, resp, err := websocket.Dial(dctx, url+"/", nil); err == nil || resp == nil || resp.StatusCode != http.StatusConflict {
		t.Errorf("a second peer while the first is served: %v, want 409", err)
	}

	first.Close(websocket.StatusNormalClosure, "done")
	var second *websocket.Conn
	for deadline := time.Now().Add(testTimeout); second == nil; {
		// the agent lets the first session go once it sees the close
		c, resp, err := websocket.Dial(dctx, url+"/", nil)
		switch {
		case err == nil:
			second = c
		case resp == nil || resp.StatusCode != http.StatusConflict || time.Now().After(deadline):
			t.Fatalf("the next peer: %v", err)
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	if intro := read(second); intro.Act != canonical.ActQueryCapabilities {
		t.Errorf("the next peer's introduction %+v", intro)
	}

	// the peer reads on, to answer the closing handshake
	closed := make(chan error, 1)
	go func() {
		rctx, rcancel := context.WithTimeout(context.Background(), testTimeout)
		defer rcancel()
		_, _, err := second.Read(rctx)
		closed <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Listen after its context ended: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Listen did not return after its context ended")
	}
	if err := <-closed; websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("the served peer saw %v, want a normal closure", err)
	}
}
