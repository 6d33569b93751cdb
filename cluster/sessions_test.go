package cluster

import (
	"sync"
	"testing"
	"time"
)

// TestSessions: an instance answers the others' questions about the MCP
// sessions it holds, a session it does not hold and an instance that is
// not there are "not found"; a message relayed to an instance is answered
// by it, and one relayed to an instance that is not there is "not found";
// an end and a log level told by one instance are heard by every
// instance, the teller too.
func TestSessions(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	ended := map[string]chan string{"a": make(chan string, 4), "b": make(chan string, 4)}
	levels := map[string]chan string{"a": make(chan string, 4), "b": make(chan string, 4)}
	records := map[string][]byte{"s-1.a": []byte(`{"client":{"name":"c"}}`)}
	var mu sync.Mutex
	for _, in := range []*instance{a, b} {
		ch, lv := ended[in.name], levels[in.name]
		stop, err := in.c.Sessions().Serve(func(id string) ([]byte, bool) {
			mu.Lock()
			defer mu.Unlock()
			rec, ok := records[id]
			return rec, ok && in.name == "a"
		}, func(id string) { ch <- id },
			func(id, level string) { lv <- id + " " + level },
			func(msg []byte) []byte { return []byte(in.name + " got " + string(msg)) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	if got := b.c.Sessions().Name(); got != "b" {
		t.Errorf("Name: %q, want b", got)
	}
	for _, tc := range []struct {
		name, holder, id string
		want             string // "": not found
	}{
		{"held", "a", "s-1.a", `{"client":{"name":"c"}}`},
		{"not held", "a", "s-2.a", ""},
		{"no such instance", "z", "s-3.z", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, found, err := b.c.Sessions().Ask(tc.holder, tc.id)
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			if found != (tc.want != "") || string(rec) != tc.want {
				t.Errorf("ask %s about %s: %q, found %v; want %q", tc.holder, tc.id, rec, found, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, to string
		want     string // "": not found
	}{
		{"there", "a", "a got answer"},
		{"no such instance", "z", ""},
	} {
		t.Run("relay "+tc.name, func(t *testing.T) {
			reply, found, err := b.c.Sessions().Relay(tc.to, []byte("answer"))
			if err != nil {
				t.Fatalf("relay: %v", err)
			}
			if found != (tc.want != "") || string(reply) != tc.want {
				t.Errorf("relay to %s: %q, found %v; want %q", tc.to, reply, found, tc.want)
			}
		})
	}
	if err := a.c.Sessions().Level("s-1.a", "debug"); err != nil {
		t.Fatal(err)
	}
	for name, ch := range levels {
		select {
		case got := <-ch:
			if got != "s-1.a debug" {
				t.Errorf("%s heard the level %q, want s-1.a debug", name, got)
			}
		case <-time.After(wait):
			t.Errorf("%s never heard the level of s-1.a", name)
		}
	}
	if err := b.c.Sessions().End("s-1.a"); err != nil {
		t.Fatal(err)
	}
	for name, ch := range ended {
		select {
		case id := <-ch:
			if id != "s-1.a" {
				t.Errorf("%s heard the end of %q, want s-1.a", name, id)
			}
		case <-time.After(wait):
			t.Errorf("%s never heard the end of s-1.a", name)
		}
	}
}
