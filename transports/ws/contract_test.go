package ws

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/transports/linktest"
)

// TestLinkContract runs the link contract over loopback WebSocket
// connections: one the bridge accepted (a prompt link, as the Handler
// makes on plain TCP) and one it dialled (as the Dialer makes), each
// attached to a bridge and carried as the transport carries them.
func TestLinkContract(t *testing.T) {
	t.Run("accepted", func(t *testing.T) { linktest.Run(t, acceptedLink) })
	t.Run("dialled", func(t *testing.T) { linktest.Run(t, dialledLink) })
}

// contractBridge is a bridge without heartbeats, on which the agent peer
// is declared.
func contractBridge(t *testing.T) *bridge.Bridge {
	t.Helper()
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Heartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b.Declare(bridge.AgentSpec{ID: "peer", Dialect: "swarm"})
	return b
}

// attach attaches l, the bridge's end of c, as the agent peer and
// carries c until it ends.
func attach(t *testing.T, b *bridge.Bridge, l bridge.Link, c *websocket.Conn, in source) {
	s, err := b.Attach(l, bridge.AttachOptions{Dialect: "swarm", AgentID: "peer", Reached: true})
	if err != nil {
		t.Error(err)
		c.CloseNow()
		return
	}
	var read func()
	read = func() {
		if _, err := carry(context.Background(), c, s, b.MaxFrame(), in); err == errMoved {
			go read()
		}
	}
	go read()
}

// acceptedLink is the link of a connection the bridge accepted from the
// peer.
func acceptedLink(t *testing.T) *linktest.Conn {
	b := contractBridge(t)
	links := make(chan bridge.Link, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, l, in, ok := acceptPrompt(t, w, r, nil)
		if !ok {
			return
		}
		attach(t, b, l, c, in)
		links <- l
	}))
	t.Cleanup(srv.Close)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return contractConn(t, b, <-links, c)
}

// dialledLink is the link of a connection the bridge made to the peer.
func dialledLink(t *testing.T) *linktest.Conn {
	b := contractBridge(t)
	peers := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		peers <- c
	}))
	t.Cleanup(srv.Close)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := link{c}
	attach(t, b, l, c, source{})
	return contractConn(t, b, l, <-peers)
}

// contractConn is the contract's view of l, whose peer end is peer: the
// peer reads in a goroutine of its own, which Stall holds.
func contractConn(t *testing.T, b *bridge.Bridge, l bridge.Link, peer *websocket.Conn) *linktest.Conn {
	t.Cleanup(func() { peer.CloseNow() })
	peer.SetReadLimit(-1)
	frames := make(chan []byte, 4096)
	ended := make(chan error, 1)
	var mu sync.Mutex
	gate := make(chan struct{})
	close(gate)
	go func() {
		for {
			mu.Lock()
			g := gate
			mu.Unlock()
			<-g
			_, data, err := peer.Read(context.Background())
			if err != nil {
				ended <- err
				return
			}
			frames <- data
		}
	}()
	return &linktest.Conn{
		Link: l,
		Out:  func(p []byte) bridge.Outbound { return bridge.Outbound{Frame: p} },
		Next: func(ctx context.Context) ([]byte, error) {
			select {
			case f := <-frames:
				return f, nil
			case err := <-ended:
				ended <- err
				return nil, err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		Kill: func() { peer.CloseNow() },
		Stall: func() {
			mu.Lock()
			gate = make(chan struct{})
			mu.Unlock()
		},
		Resume: func() {
			mu.Lock()
			close(gate)
			mu.Unlock()
		},
		CloseReason: func(ctx context.Context) (string, error) {
			select {
			case err := <-ended:
				var ce websocket.CloseError
				if !errors.As(err, &ce) {
					return "", err
				}
				return ce.Reason, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		},
		Lost: linktest.AwaitLost(t, b, "peer"),
	}
}
