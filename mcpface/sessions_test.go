package mcpface

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestSessionTable: a session made here is on until a DELETE, another
// instance's end or an hour unused ends it, and is then terminated; an id
// never made is an error; the end of a session ends its GET streams and,
// when it did not come through mcp-go's DELETE here, what mcp-go holds of
// it.
func TestSessionTable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		end        func(tb *sessionTable, id string)
		terminated bool
		closed     bool // closeLocal was called for it
	}{
		{"on", func(*sessionTable, string) {}, false, false},
		{"deleted", func(tb *sessionTable, id string) { _, _ = tb.Terminate(id) }, true, false},
		{"ended elsewhere", func(tb *sessionTable, id string) { tb.ended(id) }, true, true},
		{"idle", func(tb *sessionTable, id string) {
			tb.mu.Lock()
			tb.entries[id].used = time.Now().Add(-2 * sessionIdle)
			tb.swept = time.Time{}
			tb.mu.Unlock()
			tb.Generate() // sweeps
		}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var closed []string
			tb := newSessionTable(func(id string) { closed = append(closed, id) })
			id := tb.Generate()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := tb.stream(id, cancel)
			defer done()
			tc.end(tb, id)
			terminated, err := tb.Validate(id)
			if err != nil || terminated != tc.terminated {
				t.Errorf("Validate: terminated %v, %v; want %v", terminated, err, tc.terminated)
			}
			if slices.Contains(closed, id) != tc.closed {
				t.Errorf("closed %v; want %s closed: %v", closed, id, tc.closed)
			}
			if (ctx.Err() != nil) != tc.terminated {
				t.Errorf("the GET stream ended: %v; want %v", ctx.Err() != nil, tc.terminated)
			}
		})
	}
	if _, err := newSessionTable(func(string) {}).Validate("s-00"); err == nil {
		t.Error("an id never made is valid")
	}
}

// TestSessionTableBound: past maxSessions the sessions used least lately
// go, and are ended.
func TestSessionTableBound(t *testing.T) {
	var closed []string
	tb := newSessionTable(func(id string) { closed = append(closed, id) })
	first := tb.Generate()
	tb.mu.Lock()
	tb.entries[first].used = time.Now().Add(-time.Minute)
	tb.mu.Unlock()
	for range maxSessions {
		tb.Generate()
	}
	if len(tb.entries) > maxSessions {
		t.Errorf("%d sessions kept, want at most %d", len(tb.entries), maxSessions)
	}
	if !slices.Contains(closed, first) {
		t.Errorf("the session used least lately was not ended")
	}
	if _, err := tb.Validate(first); err == nil {
		t.Error("the session used least lately is still valid")
	}
}
