package logjson

import (
	"log/slog"
	"strconv"
	"time"
)

// Key is a member name written once, as `,"name":`, for a Builder: the
// lines the bridge writes for every message have the same names every
// time.
type Key struct {
	text string
	ok   bool // the name is one the fast path writes
}

// NewKey returns name as a Key.
func NewKey(name string) Key {
	b, ok := appendString([]byte{','}, name)
	return Key{text: string(append(b, ':')), ok: ok}
}

// A Builder writes one line member by member, as Line writes it from
// attributes, without making them: Start begins it, String and Int add
// members, End writes it. Where the fast path cannot write the line (a
// value holding U+2028 or U+2029, a time outside years 0-9999), End writes
// nothing and reports false, and the caller logs the line as attributes,
// for the library to write.
type Builder struct {
	h  *Handler
	bp *[]byte
	ok bool
}

// Start begins a line made at t of level and msg.
func (h *Handler) Start(t time.Time, level slog.Level, msg string) Builder {
	bp, ok := h.head(t, level, msg)
	return Builder{h: h, bp: bp, ok: ok}
}

// String adds the member k, the string v.
func (b *Builder) String(k Key, v string) {
	if !b.ok {
		return
	}
	if !k.ok {
		b.ok = false
		return
	}
	*b.bp = append(*b.bp, k.text...)
	*b.bp, b.ok = appendString(*b.bp, v)
}

// Int adds the member k, the integer v.
func (b *Builder) Int(k Key, v int) {
	if !b.ok {
		return
	}
	if !k.ok {
		b.ok = false
		return
	}
	*b.bp = strconv.AppendInt(append(*b.bp, k.text...), int64(v), 10)
}

// End writes the line and reports true, or, when the fast path could not
// write it, writes nothing and reports false. A Builder ends once.
func (b *Builder) End() bool {
	if !b.ok {
		b.h.drop(b.bp)
		b.bp = nil
		return false
	}
	_ = b.h.finish(b.bp)
	b.bp = nil
	return true
}
