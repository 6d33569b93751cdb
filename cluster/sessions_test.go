package cluster

import (
	"sync"
	"testing"
	"time"
)

// TestSessions: an instance answers the others' questions about the MCP
// sessions it holds, a session it does not hold and an instance that is
// not there are "not found", and an end told by one instance is heard by
// every instance, the teller too.
func TestSessions(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	ended := map[string]chan string{"a": make(chan string, 4), "b": make(chan string, 4)}
	records := map[string][]byte{"s-1.a": []byte(`{"client":{"name":"c"}}`)}
	var mu sync.Mutex
	for _, in := range []*instance{a, b} {
		ch := ended[in.name]
		stop, err := in.c.Sessions().Serve(func(id string) ([]byte, bool) {
			mu.Lock()
			defer mu.Unlock()
			rec, ok := records[id]
			return rec, ok && in.name == "a"
		}, func(id string) { ch <- id })
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
