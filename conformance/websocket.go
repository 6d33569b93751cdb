package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// hardLimit is how many times the frame limit a WebSocket message may be
// before the connection is closed rather than the message drained (as the
// bridge does).
const hardLimit = 16

// closeWait bounds the closing handshake: an agent that does not answer it
// is cut off.
const closeWait = time.Second

// Dial is a target the suite dials: an agent serving WebSocket at url
// (ws://HOST:PORT/PATH), one text message a frame each way.
func Dial(url string) Target { return DialWith(url, nil) }

// DialWith is Dial with header sent in the opening handshake, e.g. the
// agent's Authorization.
func DialWith(url string, header http.Header) Target {
	return dialTarget{url: url, header: header.Clone()}
}

type dialTarget struct {
	url    string
	header http.Header
}

func (d dialTarget) String() string { return d.url }

func (d dialTarget) Open(ctx context.Context, maxFrame int) (Conn, error) {
	c, err := agentclient.Dial(ctx, d.url, agentclient.Options{ReadLimit: -1, Header: d.header}) // Read enforces its own limits
	if err != nil {
		return nil, unreachable(fmt.Errorf("dialing %s: %w", d.url, err))
	}
	return newWSConn(c, maxFrame, nil), nil
}

// Listener is a target that waits for the agent to connect: a WebSocket
// server on any path.
type Listener struct {
	ln    net.Listener
	srv   *http.Server
	conns chan *wsConn
	done  chan struct{}
	once  sync.Once
}

// Listen binds addr (HOST:PORT; port 0 picks one) and returns a target
// that, each time it is opened, waits for the next agent that connects.
// An agent that connects while no run waits for one is held until it is
// taken; more are refused (HTTP 409). Close stops listening.
func Listen(addr string) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, unreachable(fmt.Errorf("listening on %s: %w", addr, err))
	}
	l := &Listener{ln: ln, conns: make(chan *wsConn, 1), done: make(chan struct{})}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.accept), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

// URL is the address agents connect to ("ws://127.0.0.1:PORT/").
func (l *Listener) URL() string { return "ws://" + l.ln.Addr().String() + "/" }

func (l *Listener) String() string { return "listening on " + l.URL() }

// accept takes one agent's connection and holds its handler until the
// connection ends.
func (l *Listener) accept(w http.ResponseWriter, r *http.Request) {
	if len(l.conns) == cap(l.conns) {
		http.Error(w, "conformance: an agent is already waiting to be tested", http.StatusConflict)
		return
	}
	c, err := agentclient.Accept(w, r, agentclient.AcceptOptions{ReadLimit: -1, AnyOrigin: true})
	if err != nil {
		return // Accept has answered
	}
	ended := make(chan struct{})
	wc := newWSConn(c, 0, ended)
	select {
	case l.conns <- wc:
	default:
		c.CloseBusy("an agent is already waiting to be tested")
		return
	}
	select {
	case <-ended:
	case <-l.done:
		c.CloseNow()
	}
}

// Open waits for the next agent to connect, until ctx ends.
func (l *Listener) Open(ctx context.Context, maxFrame int) (Conn, error) {
	select {
	case c := <-l.conns:
		c.limit = maxFrame
		return c, nil
	case <-l.done:
		return nil, unreachable(errors.New("the listener is closed"))
	case <-ctx.Done():
		return nil, unreachable(fmt.Errorf("no agent connected to %s: %w", l.URL(), ctx.Err()))
	}
}

// Close stops listening and closes a connection not taken yet.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		_ = l.srv.Close()
	})
	return nil
}

// wsConn is a WebSocket connection to the agent.
type wsConn struct {
	c     *agentclient.Conn
	limit int
	buf   bytes.Buffer
	cut   error         // set when the suite cut the connection off
	ended chan struct{} // closed by Close, when set
	once  sync.Once
}

// newWSConn wraps c, a connection with no read limit of its own: Read
// enforces limit.
func newWSConn(c *agentclient.Conn, limit int, ended chan struct{}) *wsConn {
	return &wsConn{c: c, limit: limit, ended: ended}
}

func (w *wsConn) Read() (Frame, error) {
	if w.cut != nil {
		return Frame{}, w.cut
	}
	r, err := w.c.Reader(context.Background())
	if err != nil {
		return Frame{}, fmt.Errorf("the connection ended: %w", err)
	}
	w.buf.Reset()
	n, err := w.buf.ReadFrom(io.LimitReader(r, int64(w.limit)+1))
	if err != nil {
		return Frame{}, fmt.Errorf("the connection ended: %w", err)
	}
	f := Frame{Data: bytes.Clone(w.buf.Bytes()), Size: int(n)}
	if n <= int64(w.limit) {
		return f, nil
	}
	f.Data = f.Data[:w.limit]
	rest, err := io.Copy(io.Discard, io.LimitReader(r, int64(w.limit)*hardLimit))
	f.Size += int(rest)
	if err != nil {
		return Frame{}, fmt.Errorf("the connection ended: %w", err)
	}
	if f.Size > w.limit*hardLimit {
		// the frame is reported; the connection ends with the next Read
		w.c.CloseNow()
		w.cut = fmt.Errorf("the agent sent a message of more than %d bytes; the suite closed the connection", w.limit*hardLimit)
	}
	return f, nil
}

func (w *wsConn) Write(ctx context.Context, frame []byte) error {
	return w.c.Write(ctx, frame)
}

// Close closes the connection normally, or cuts it when the agent does
// not finish the closing handshake within closeWait.
func (w *wsConn) Close() error {
	w.once.Do(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.c.Close("the conformance run is over")
		}()
		select {
		case <-done:
		case <-time.After(closeWait):
			w.c.CloseNow()
			<-done
		}
		if w.ended != nil {
			close(w.ended)
		}
	})
	return nil
}
