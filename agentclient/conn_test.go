package agentclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
)

// testTimeout bounds what a test waits for.
const testTimeout = 10 * time.Second

// handshake is what a loopback server saw of a client's opening handshake.
type handshake struct {
	path, agent, auth, extra string
}

// echoServer accepts WebSocket connections on loopback, tells seen of
// each handshake, and sends back each message it reads, of the same kind,
// until the connection ends.
func echoServer(t *testing.T, seen chan<- handshake) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(echoHandler(seen))
	t.Cleanup(srv.Close)
	return srv
}

func echoHandler(seen chan<- handshake) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen <- handshake{path: r.URL.Path, agent: r.URL.Query().Get("agent"),
				auth: r.Header.Get("Authorization"), extra: r.Header.Get("X-Extra")}
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(-1)
		for {
			typ, msg, err := c.Read(context.Background())
			if err != nil {
				return
			}
			if err := c.Write(context.Background(), typ, msg); err != nil {
				return
			}
		}
	})
}

// wsURL is the ws:// address of srv with path.
func wsURL(srv *httptest.Server, path string) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http") + path
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// TestDial checks the opening handshake: the path and query, the bearer
// token and the headers of Options.
func TestDial(t *testing.T) {
	cases := []struct {
		name      string
		o         Options
		auth, ext string
	}{
		{"no token", Options{}, "", ""},
		{"token", Options{Token: "s3cret"}, "Bearer s3cret", ""},
		{"header", Options{Header: http.Header{"X-Extra": {"1"}}}, "", "1"},
		{"token over the header's", Options{Token: "s3cret", Header: http.Header{"Authorization": {"Basic x"}, "X-Extra": {"2"}}}, "Bearer s3cret", "2"},
	}
	seen := make(chan handshake, 1)
	srv := echoServer(t, seen)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			header := tc.o.Header.Clone()
			c, err := Dial(testContext(t), wsURL(srv, "/ws/swarm?agent=jules"), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			got := <-seen
			want := handshake{path: "/ws/swarm", agent: "jules", auth: tc.auth, extra: tc.ext}
			if got != want {
				t.Errorf("handshake %+v, want %+v", got, want)
			}
			if !equalHeaders(tc.o.Header, header) {
				t.Errorf("Dial changed Options.Header: %v, was %v", tc.o.Header, header)
			}
		})
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, ",") != strings.Join(b[k], ",") {
			return false
		}
	}
	return true
}

// TestDialFails checks what Dial says when it cannot connect: the HTTP
// status of a refused handshake, a port where nothing listens, a context
// that ended.
func TestDialFails(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no token", http.StatusUnauthorized)
	}))
	defer refusing.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		url  string
		want string
	}{
		{"refused", context.Background(), wsURL(refusing, "/ws/swarm"), "agentclient: HTTP 401 Unauthorized: "},
		{"nothing listening", context.Background(), wsURL(closed, "/"), "agentclient: "},
		{"context ended", ended, wsURL(refusing, "/"), "context canceled"},
		{"not a WebSocket URL", context.Background(), "ftp://127.0.0.1/", "agentclient: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(tc.ctx, tc.url, Options{})
			if err == nil {
				c.CloseNow()
				t.Fatal("Dial succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to hold %q", err, tc.want)
			}
		})
	}
}

// TestReadWrite sends frames to an echo server and reads them back, with
// Read and Reader; a binary message is read as a frame too.
func TestReadWrite(t *testing.T) {
	srv := echoServer(t, nil)
	ctx := testContext(t)
	c, err := Dial(ctx, wsURL(srv, "/"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, frame := range []string{`{"a":1}`, `{"b":"` + strings.Repeat("x", 20000) + `"}`, `[]`} {
		if err := c.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		got, err := c.Read(ctx)
		if err != nil || string(got) != frame {
			t.Fatalf("Read: %.40q %v, want %.40q", got, err, frame)
		}
		if err := c.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		r, err := c.Reader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); err != nil || string(got) != frame {
			t.Fatalf("Reader: %.40q %v, want %.40q", got, err, frame)
		}
	}
	if err := c.ws.Write(ctx, websocket.MessageBinary, []byte("bin")); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Read(ctx); err != nil || string(got) != "bin" {
		t.Errorf("a binary message read as %q %v", got, err)
	}
	if err := c.Close("done"); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.Read(ctx); err == nil {
		t.Error("Read after Close succeeded")
	}
}

// TestReadLimit checks that a frame over the read limit ends the
// connection (1009, message too big), and one at the limit is read.
func TestReadLimit(t *testing.T) {
	cases := []struct {
		name  string
		limit int64
		size  int
		read  bool
	}{
		{"default, at it", 0, DefaultReadLimit, true},
		{"default, over it", 0, DefaultReadLimit + 1, false},
		{"set, at it", 100, 100, true},
		{"set, over it", 100, 101, false},
		{"none", -1, 1 << 20, true},
	}
	srv := echoServer(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			c, err := Dial(ctx, wsURL(srv, "/"), Options{ReadLimit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			if err := c.Write(ctx, bytes.Repeat([]byte("x"), tc.size)); err != nil {
				t.Fatal(err)
			}
			got, err := c.Read(ctx)
			switch {
			case tc.read && (err != nil || len(got) != tc.size):
				t.Errorf("read %d bytes, %v; want %d", len(got), err, tc.size)
			case !tc.read && !errors.Is(err, websocket.ErrMessageTooBig):
				t.Errorf("read %d bytes, %v; want the message refused as too big", len(got), err)
			}
		})
	}
}

// TestReadContext checks that a Read waiting for a frame returns when
// its context ends.
func TestReadContext(t *testing.T) {
	srv := echoServer(t, nil)
	c, err := Dial(testContext(t), wsURL(srv, "/"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	began := time.Now()
	if _, err := c.Read(ctx); err == nil {
		t.Fatal("Read returned a frame nobody sent")
	}
	if waited := time.Since(began); waited > testTimeout/2 {
		t.Errorf("Read returned %s after its context ended", waited)
	}
}

// TestDialTLS dials a wss:// server whose certificate a test CA signed,
// presenting a client certificate: trusted with the CA, refused without.
func TestDialTLS(t *testing.T) {
	ca := testpki.NewCA(t, "test CA")
	clientCN := make(chan string, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) > 0 {
			clientCN <- r.TLS.PeerCertificates[0].Subject.CommonName
		}
		echoHandler(nil).ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server(t, "bridge").TLS(t)},
		ClientCAs: ca.Pool(), ClientAuth: tls.VerifyClientCertIfGiven}
	srv.StartTLS()
	defer srv.Close()
	u := "wss" + strings.TrimPrefix(srv.URL, "https") + "/ws/collab"
	client := []tls.Certificate{ca.Client(t, "jules").TLS(t)}
	cases := []struct {
		name string
		tls  *tls.Config
		ok   bool
	}{
		{"trusted", &tls.Config{RootCAs: ca.Pool(), Certificates: client}, true},
		{"the system's CAs", nil, false},
		{"another CA", &tls.Config{RootCAs: testpki.NewCA(t, "other CA").Pool()}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			c, err := Dial(ctx, u, Options{TLS: tc.tls})
			if !tc.ok {
				if err == nil {
					c.CloseNow()
					t.Fatal("Dial trusted a certificate it should not")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			if cn := <-clientCN; cn != "jules" {
				t.Errorf("the server saw client certificate %q, want jules", cn)
			}
			if err := c.Write(ctx, []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			if got, err := c.Read(ctx); err != nil || string(got) != `{}` {
				t.Errorf("read %q %v over TLS", got, err)
			}
		})
	}
}

// TestAccept serves Accept on loopback: a connection accepted and closed
// busy (1013), which the dialing side sees as the peer going away; and the
// Origin check that AnyOrigin lifts.
func TestAccept(t *testing.T) {
	cases := []struct {
		name   string
		o      AcceptOptions
		origin string
		ok     bool
	}{
		{"no origin", AcceptOptions{}, "", true},
		{"same origin", AcceptOptions{}, "self", true},
		{"another origin", AcceptOptions{}, "http://elsewhere.example", false},
		{"another origin, any origin", AcceptOptions{AnyOrigin: true}, "http://elsewhere.example", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			accepted := make(chan error, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c, err := Accept(w, r, tc.o)
				accepted <- err
				if err != nil {
					return
				}
				defer c.CloseNow()
				frame, err := c.Read(context.Background())
				if err != nil {
					return
				}
				if err := c.Write(context.Background(), frame); err != nil {
					return
				}
				c.CloseBusy("serving another")
			}))
			defer srv.Close()
			h := http.Header{}
			switch tc.origin {
			case "self":
				h.Set("Origin", srv.URL)
			case "":
			default:
				h.Set("Origin", tc.origin)
			}
			ctx := testContext(t)
			c, err := Dial(ctx, wsURL(srv, "/"), Options{Header: h})
			if err := <-accepted; (err == nil) != tc.ok {
				t.Fatalf("Accept: %v; want accepted %v", err, tc.ok)
			}
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "HTTP 403") {
					t.Errorf("Dial: %v, want HTTP 403", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			if err := c.Write(ctx, []byte(`{"x":1}`)); err != nil {
				t.Fatal(err)
			}
			if got, err := c.Read(ctx); err != nil || string(got) != `{"x":1}` {
				t.Fatalf("read %q %v", got, err)
			}
			_, err = c.Read(ctx)
			if websocket.CloseStatus(err) != websocket.StatusTryAgainLater || !WentAway(err) {
				t.Errorf("after CloseBusy: %v, want 1013 try again later", err)
			}
		})
	}
}
