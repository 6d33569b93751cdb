package limits

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// Conns counts the connections open to a listener, in all and by remote
// IP address, and refuses those over a cap: such a connection is still
// accepted (so that it can be told why), and every request it sends is
// answered 503 (too many connections) or 429 (too many from its address)
// with Retry-After, then it is closed. Caps of 0 are no limit; SetCaps
// changes them at any time.
type Conns struct {
	total, perAddr atomic.Int64
	// Refused, when set, is told of each connection refused, with the
	// cap it was over: "connections" or "connections_per_address".
	Refused func(limit string)
	// Open, when set, is told the number of connections counted after
	// each change.
	Open func(n int)

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

// NewConns returns a counter with the caps total and perAddr.
func NewConns(total, perAddr int) *Conns {
	c := &Conns{byAddr: map[string]int{}}
	c.SetCaps(total, perAddr)
	return c
}

// SetCaps changes the caps; connections already open stay.
func (c *Conns) SetCaps(total, perAddr int) {
	c.total.Store(int64(total))
	c.perAddr.Store(int64(perAddr))
}

// Listen wraps ln: each connection it accepts is counted until closed, or
// marked refused when over a cap.
func (c *Conns) Listen(ln net.Listener) net.Listener { return &listener{Listener: ln, c: c} }

type listener struct {
	net.Listener
	c *Conns
}

func (l *listener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.c.admit(conn), nil
}

// conn is an accepted connection: counted, or refused with the cap it
// was over.
type conn struct {
	net.Conn
	c       *Conns
	addr    string
	refused string
	once    sync.Once
}

// SyscallConn gives the socket under the connection (syscall.Conn), for
// writes that must not wait on the peer (transports/ws).
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

func (c *conn) Close() error {
	c.once.Do(func() {
		if c.refused == "" {
			c.c.release(c.addr)
		}
	})
	return c.Conn.Close()
}

// admit counts a new connection, or marks it refused.
func (c *Conns) admit(nc net.Conn) *conn {
	addr := hostOf(nc.RemoteAddr())
	w := &conn{Conn: nc, c: c, addr: addr}
	total, per := int(c.total.Load()), int(c.perAddr.Load())
	c.mu.Lock()
	switch {
	case total > 0 && c.open >= total:
		w.refused = "connections"
	case per > 0 && c.byAddr[addr] >= per:
		w.refused = "connections_per_address"
	default:
		c.open++
		c.byAddr[addr]++
	}
	open := c.open
	c.mu.Unlock()
	if w.refused != "" {
		if c.Refused != nil {
			c.Refused(w.refused)
		}
	} else if c.Open != nil {
		c.Open(open)
	}
	return w
}

func (c *Conns) release(addr string) {
	c.mu.Lock()
	c.open--
	if c.byAddr[addr]--; c.byAddr[addr] <= 0 {
		delete(c.byAddr, addr)
	}
	open := c.open
	c.mu.Unlock()
	if c.Open != nil {
		c.Open(open)
	}
}

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// refusedKey keys a request's connection verdict in its context.
type refusedKey struct{}

// ConnContext is http.Server's ConnContext: it puts the connection's
// verdict where Handler finds it.
func ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if t, ok := nc.(*tls.Conn); ok {
		nc = t.NetConn()
	}
	if w, ok := nc.(*conn); ok && w.refused != "" {
		return context.WithValue(ctx, refusedKey{}, w.refused)
	}
	return ctx
}

// RetryAfter is what a refused connection is told to wait, in seconds.
const RetryAfter = 1

// Handler answers every request of a refused connection, and hands the
// others to next.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := r.Context().Value(refusedKey{}).(string)
		if limit == "" {
			next.ServeHTTP(w, r)
			return
		}
		status, msg := http.StatusServiceUnavailable, "the bridge has as many connections as it takes (limits.connections); retry later"
		if limit == "connections_per_address" {
			status, msg = http.StatusTooManyRequests, "too many connections from your address (limits.connections_per_address); retry later"
		}
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":{"code":"unavailable","message":"` + msg + `","retryable":true,"retry_after":` + strconv.Itoa(RetryAfter) + `}}` + "\n"))
	})
}
