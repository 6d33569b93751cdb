package mcpface

import (
	"context"
	"fmt"
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
			tb.entries[id].used = time.Now().Add(-2 * defaultSessionIdle)
			tb.swept = time.Time{}
			tb.mu.Unlock()
			tb.Generate() // sweeps
		}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var closed []string
			tb := newSessionTable(func(id string) { closed = append(closed, id) }, 0, 0)
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
	if _, err := newSessionTable(func(string) {}, 0, 0).Validate("s-00"); err == nil {
		t.Error("an id never made is valid")
	}
}

// TestSessionTableBound: past the table's bound (Options.Sessions, or
// the default) the sessions used least lately go, and are ended; a
// session unused for the table's idle time (Options.SessionIdle, or the
// default) ends, and one used more lately does not.
func TestSessionTableBound(t *testing.T) {
	for _, tc := range []struct {
		name      string
		limit     int
		idle      time.Duration
		wantLimit int
		unused    time.Duration // how long ago the first session was used
		idleEnded bool          // the first session ends as idle
	}{
		{"defaults", 0, 0, defaultSessions, time.Minute, false},
		{"configured", 5, 30 * time.Second, 5, time.Minute, true},
		{"configured, used lately", 5, 2 * time.Minute, 5, time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var closed []string
			tb := newSessionTable(func(id string) { closed = append(closed, id) }, tc.limit, tc.idle)
			first := tb.Generate()
			second := tb.Generate()
			tb.mu.Lock()
			tb.entries[first].used = time.Now().Add(-tc.unused)
			tb.entries[second].used = time.Now().Add(-tc.unused / 2)
			tb.swept = time.Time{}
			tb.mu.Unlock()
			tb.Generate() // sweeps
			if got := slices.Contains(closed, first); got != tc.idleEnded {
				t.Errorf("the session unused for %v ended: %v, want %v", tc.unused, got, tc.idleEnded)
			}
			for range tc.wantLimit {
				tb.Generate()
			}
			if len(tb.entries) > tc.wantLimit {
				t.Errorf("%d sessions kept, want at most %d", len(tb.entries), tc.wantLimit)
			}
			if !slices.Contains(closed, second) {
				t.Errorf("the session used least lately was not ended")
			}
			if _, err := tb.Validate(second); err == nil {
				t.Error("the session used least lately is still valid")
			}
		})
	}
}

// TestSessionTableUnknownEnds: DELETEs of ids the table never made, and
// news of sessions ended elsewhere, keep the table within its bound and
// end no session that is on.
func TestSessionTableUnknownEnds(t *testing.T) {
	var closed []string
	tb := newSessionTable(func(id string) { closed = append(closed, id) }, 3, time.Hour)
	on := []string{tb.Generate(), tb.Generate()}
	for i := range 10 {
		if _, err := tb.Terminate(fmt.Sprintf("s-unknown-%d", i)); err != nil {
			t.Fatal(err)
		}
		tb.ended(fmt.Sprintf("s-elsewhere-%d", i))
	}
	if n := tb.size(); n > 3 {
		t.Errorf("%v sessions kept, want at most 3", n)
	}
	for _, id := range on {
		if terminated, err := tb.Validate(id); err != nil || terminated {
			t.Errorf("session %s: terminated %v, %v; want on", id, terminated, err)
		}
		if slices.Contains(closed, id) {
			t.Errorf("session %s was ended", id)
		}
	}
}
