// Package logjson is a slog handler that writes exactly what
// slog.JSONHandler writes, in about a third of the time for the records
// the bridge logs for every message: a message and attributes that are
// strings, integers, finite floats or booleans. It is a fast path in front of the
// library (DESIGN.md section 9): it is driven by nothing but the record,
// the library's handler is built beside it and writes every record the
// fast path does not take (any other kind of value, a group, a string
// holding U+2028 or U+2029, a time outside years 0-9999, options that
// replace attributes or add the source), and FuzzHandler holds the two to
// the same bytes.
package logjson

import (
	"context"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// New returns a handler that writes to w what slog.NewJSONHandler(w, opts)
// would.
func New(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	out := &lockedWriter{w: w}
	inner := slog.NewJSONHandler(out, opts)
	if opts != nil && (opts.ReplaceAttr != nil || opts.AddSource) {
		return inner
	}
	return &Handler{inner: inner, out: out}
}

// Handler writes the records it can itself and hands the rest to inner,
// the library's handler with the same attributes, writing to the same out.
// New returns one, and so does its WithAttrs unless an attribute needs the
// library.
type Handler struct {
	inner slog.Handler
	out   *lockedWriter
	// attrs are the attributes given to WithAttrs, written: each
	// `,"key":value`.
	attrs []byte
}

// lockedWriter serialises the writes of a handler and of its library
// twin, as the library's handler does its own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	inner := h.inner.WithAttrs(as)
	attrs := slices.Clip(h.attrs)
	for _, a := range as {
		var ok bool
		if attrs, ok = appendAttr(attrs, a); !ok {
			return inner
		}
	}
	return &Handler{inner: inner, out: h.out, attrs: attrs}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return h.inner.WithGroup(name)
}

// bufs are the handlers' line buffers.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooled bounds the buffers kept for the next line.
const maxPooled = 16 << 10

func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	b, ok := h.head(r.Time, r.Level, r.Message)
	if ok {
		r.Attrs(func(a slog.Attr) bool {
			*b, ok = appendAttr(*b, a)
			return ok
		})
	}
	if !ok {
		h.drop(b)
		return h.inner.Handle(ctx, r)
	}
	return h.finish(b)
}

// Line writes what Handle writes for a record made at t of level, msg and
// attrs, without the record, which allocates for more than five attributes
// and walks them through a closure: the bridge logs a line or two for every
// message it carries. Called on the concrete type, attrs do not escape.
func (h *Handler) Line(t time.Time, level slog.Level, msg string, attrs []slog.Attr) error {
	b, ok := h.head(t, level, msg)
	for i := 0; ok && i < len(attrs); i++ {
		*b, ok = appendAttr(*b, attrs[i])
	}
	if !ok {
		h.drop(b)
		r := slog.NewRecord(t, level, msg, 0)
		r.AddAttrs(attrs...)
		return h.inner.Handle(context.Background(), r)
	}
	return h.finish(b)
}

// head starts a line in a pooled buffer: the time, level, message and the
// handler's own attributes. false, with no buffer, when the fast path
// cannot write the line (a time outside years 0-9999), or with the buffer
// when the message needs the library.
func (h *Handler) head(t time.Time, level slog.Level, msg string) (*[]byte, bool) {
	t = t.Round(0) // as the library: no monotonic reading
	if y := t.Year(); !t.IsZero() && (y < 0 || y >= 10000) {
		return nil, false
	}
	bp := bufs.Get().(*[]byte)
	b := append((*bp)[:0], '{')
	if !t.IsZero() {
		b = append(b, `"time":"`...)
		b = appendTime(b, t)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = jsonw.AppendString(b, level.String()) // "INFO", "WARN+2": plain ASCII
	b = append(b, `,"msg":`...)
	b, ok := appendString(b, msg)
	if ok {
		b = append(b, h.attrs...)
	}
	*bp = b
	return bp, ok
}

// finish ends the line in bp, writes it and returns the buffer to the pool.
func (h *Handler) finish(bp *[]byte) error {
	*bp = append(*bp, '}', '\n')
	_, err := h.out.Write(*bp)
	h.drop(bp)
	return err
}

// drop returns bp, if any and not grown too large, to the pool.
func (h *Handler) drop(bp *[]byte) {
	if bp != nil && cap(*bp) <= maxPooled {
		*bp = (*bp)[:0]
		bufs.Put(bp)
	}
}

// appendAttr appends `,"key":value` for a, and reports whether it could:
// not for a value of another kind than a string, an integer, a boolean or
// a duration.
func appendAttr(b []byte, a slog.Attr) ([]byte, bool) {
	v := a.Value
	switch v.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool, slog.KindDuration:
	case slog.KindFloat64:
		if f := v.Float64(); math.IsInf(f, 0) || math.IsNaN(f) {
			return b, false // the library writes its error
		}
	default:
		return b, false
	}
	b = append(b, ',')
	b, ok := appendString(b, a.Key)
	if !ok {
		return b, false
	}
	b = append(b, ':')
	switch v.Kind() {
	case slog.KindString:
		return appendString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindFloat64:
		return appendFloat(b, v.Float64()), true
	default: // a duration, in nanoseconds as encoding/json writes one
		return strconv.AppendInt(b, int64(v.Duration()), 10), true
	}
}

// appendFloat appends the finite f as encoding/json writes a float64 (the
// library marshals floats with it): plain decimal digits, or an exponent
// without a leading zero below 1e-6 and from 1e21.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 -> e-7
		b = b[:n-1]
	}
	return b
}

// appendString appends s as a JSON string, and reports whether it could:
// not when s holds U+2028 or U+2029, which the library escapes and
// jsonw.AppendString does not.
func appendString(b []byte, s string) ([]byte, bool) {
	if jsonw.Plain(s) {
		// What every key and nearly every value the bridge logs is:
		// written as it is, in one pass over s.
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"'), true
	}
	if strings.IndexByte(s, 0xe2) >= 0 && (strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029")) {
		return b, false
	}
	return jsonw.AppendString(b, s), true
}

// second is one second of the clock written as RFC 3339 without a
// fraction ("2006-01-02T15:04:05Z07:00"), in one location.
type second struct {
	unix int64
	loc  *time.Location
	text []byte
}

// lastSecond is the second the last line was written in: lines come many
// to a second, and writing the date and clock is most of a timestamp's
// cost.
var lastSecond atomic.Pointer[second]

// appendTime appends t, of a year 0-9999, as t.AppendFormat(b,
// time.RFC3339Nano) does: the date and clock of its second, kept from the
// last line written in that second and location, then the nanoseconds
// without their trailing zeros, then the zone.
func appendTime(b []byte, t time.Time) []byte {
	unix, loc := t.Unix(), t.Location()
	s := lastSecond.Load()
	if s == nil || s.unix != unix || s.loc != loc {
		s = &second{unix: unix, loc: loc, text: t.AppendFormat(nil, time.RFC3339)}
		lastSecond.Store(s)
	}
	const clock = len("2006-01-02T15:04:05")
	b = append(b, s.text[:clock]...)
	if ns := t.Nanosecond(); ns != 0 {
		var f [10]byte
		f[0] = '.'
		for i := 9; i > 0; i-- {
			f[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(f)
		for f[n-1] == '0' {
			n--
		}
		b = append(b, f[:n]...)
	}
	return append(b, s.text[clock:]...)
}
