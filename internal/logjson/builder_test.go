package logjson

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestBuilderAsLine: a line built member by member is the line Line writes
// from the same members as attributes; one the fast path cannot write is
// not written, for the caller to log as attributes.
func TestBuilderAsLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     string
		value   string
		written bool
	}{
		{"plain", "sender", "collab-1", true},
		{"escaped", "sender", "a \"quoted\"\n\\ name\x01", true},
		{"not UTF-8", "id", "bad \xff byte", true},
		{"empty", "id", "", true},
		{"line separator in a value", "id", "a\u2028b", false},
		{"paragraph separator in a key", "i\u2029d", "x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var built, line bytes.Buffer
			h := New(&built, nil).(*Handler)
			b := h.Start(when, slog.LevelInfo, "received")
			b.String(NewKey("dialect"), "collab")
			b.String(NewKey(tc.key), tc.value)
			b.Int(NewKey("bytes"), -1016)
			if got := b.End(); got != tc.written {
				t.Fatalf("End = %v, want %v", got, tc.written)
			}
			if !tc.written {
				if built.Len() != 0 {
					t.Fatalf("wrote %q", built.Bytes())
				}
				return
			}
			l := New(&line, nil).(*Handler)
			if err := l.Line(when, slog.LevelInfo, "received", []slog.Attr{
				slog.String("dialect", "collab"), slog.String(tc.key, tc.value), slog.Int("bytes", -1016)}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(built.Bytes(), line.Bytes()) {
				t.Fatalf("lines differ:\n built %q\n Line  %q", built.Bytes(), line.Bytes())
			}
		})
	}
}
