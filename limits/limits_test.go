package limits

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRates: each agent has its own bucket of burst messages, refilled at
// the rate; an empty one says how long until the next message.
func TestRates(t *testing.T) {
	if NewRates(0, 5) != nil {
		t.Fatal("a rate of 0 is no limit")
	}
	r := NewRates(2, 3) // 2 a second, 3 at once
	now := time.Unix(1000, 0)
	for i := range 3 {
		if ok, _ := r.Allow("eddy", now); !ok {
			t.Fatalf("message %d of the burst refused", i+1)
		}
	}
	ok, wait := r.Allow("eddy", now)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: %v, wait %v; want refused, 500ms", ok, wait)
	}
	if ok, _ := r.Allow("jules", now); !ok {
		t.Fatal("another agent's bucket was taken")
	}
	if ok, _ := r.Allow("eddy", now.Add(500*time.Millisecond)); !ok {
		t.Fatal("the bucket did not refill at the rate")
	}
}

// TestConns: over a cap, a connection's requests are answered 503 or 429
// with Retry-After; a closed connection frees its place; caps change live.
func TestConns(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refused []string
	c := NewConns(2, 1)
	c.Refused = func(limit string) { mu.Lock(); refused = append(refused, limit); mu.Unlock() }
	srv := &http.Server{Handler: Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })),
		ConnContext: ConnContext}
	go func() { _ = srv.Serve(c.Listen(raw)) }()
	defer srv.Close()
	addr := raw.Addr().String()
	// get sends one request on a connection of its own and keeps the
	// connection open.
	get := func() (int, string, net.Conn) {
		t.Helper()
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(nc, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, _ := nc.Read(buf)
		resp := string(buf[:n])
		var status int
		if len(resp) > 12 {
			status = int(resp[9]-'0')*100 + int(resp[10]-'0')*10 + int(resp[11]-'0')
		}
		return status, resp, nc
	}
	st, _, first := get()
	if st != 200 {
		t.Fatalf("the first connection: %d", st)
	}
	st, resp, second := get()
	if st != 429 || !strings.Contains(resp, "Retry-After: 1") || !strings.Contains(resp, "connections_per_address") {
		t.Fatalf("a second connection from the address: %d\n%s", st, resp)
	}
	second.Close()
	c.SetCaps(1, 0)
	st, resp, third := get()
	if st != 503 || !strings.Contains(resp, "limits.connections") {
		t.Fatalf("over the total: %d\n%s", st, resp)
	}
	third.Close()
	first.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _, nc := get()
		nc.Close()
		if st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection did not free its place")
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) < 2 || refused[0] != "connections_per_address" || refused[1] != "connections" {
		t.Errorf("refusals counted: %v", refused)
	}
}
